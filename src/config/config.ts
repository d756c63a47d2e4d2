/**
 * The per-repository configuration, `.github/issue-leases.yml`.
 *
 * `configSchema` is the single source of truth: each key's type, default
 * and `.describe()` text (the documentation) live together in
 * schema.ts, the values' schemas in fields.ts. The
 * schema reads the YAML's snake_case keys and produces the camelCase
 * `Config` with durations in milliseconds.
 *
 * Durations are strings in the forms `parseDuration` accepts (`30s`, `2h`,
 * `3d`, `2 weeks`). A bare number (`default_ttl: 7`) is rejected rather than
 * read as seconds: in a file whose every other duration has a unit, `7`
 * means "7 days" to its author as often as "7 seconds", and guessing wrong
 * silently would expire leases a week early or never. The error tells the
 * user to add a unit.
 *
 * `parseConfig` never throws: a broken config is a user error, reported as
 * one message that names the file, the key and the fix (issues.ts).
 */

import { DEFAULT_TARGET_POLICY, type TargetPolicy } from "../events/target-guard.js";
import { type Config, configSchema, configSchemaFor } from "./schema.js";
import { formatIssues, type Locate } from "./issues.js";


/** The path shown to users. */
export const CONFIG_FILE = ".github/issue-leases.yml";
/** The name passed to Probot's `context.config`, which looks under `.github/`. */
export const CONFIG_NAME = "issue-leases.yml";


export type ConfigResult = { ok: true; config: Config } | { ok: false; error: string };

/** A file of the config: a repository, and a path in it. */
export interface FileRef {
  owner: string;
  repo: string;
  path: string;
}

/** A problem at a position in a file (line and column counted from 1), as a config check lists it (config-check.ts). */
export interface PlacedProblem {
  line: number;
  column: number;
  /** The rest of the line after `FILE:LINE:COLUMN: `, in words its readers may see (as `problem`). */
  message: string;
}

/** Where an unreadable file's problems are: the file, and each problem at its position. */
export interface UnreadablePlaces {
  ref: FileRef;
  /** The repository's own `.github/issue-leases.yml`. */
  own: boolean;
  problems: PlacedProblem[];
}

/**
 * What the loader hands over when a file exists but cannot be used (too big,
 * not YAML, a bad `_extends`; GitHub's answer was fine): `file`, its name as a
 * reply shows it, and `problem`, the rest of the sentence, in words its
 * readers may see (files.ts). `places`, when known: the same told at
 * positions of the file (every syntax error the parser found), for a
 * config check's lines.
 */
export class UnreadableConfig {
  constructor(
    readonly problem: string,
    readonly file = `\`${CONFIG_FILE}\``,
    readonly places?: UnreadablePlaces,
  ) {}
}

/** The configuration of a repository without `.github/issue-leases.yml`. */
export const DEFAULT_CONFIG: Config = freeze(configSchema.parse({}));

/**
 * Validates the parsed YAML of the config file. `raw` is null or undefined
 * when the repository has no config file, which means the defaults.
 * `locate` says which file each value came from (default: the repository's own).
 * `targets`: where outgoing webhooks may go (the operator's policy).
 * The returned config is frozen: results are shared between webhooks.
 */
export function parseConfig(raw: unknown, locate?: Locate, targets: TargetPolicy = DEFAULT_TARGET_POLICY): ConfigResult {
  if (raw === null || raw === undefined) return { ok: true, config: DEFAULT_CONFIG };
  if (raw instanceof UnreadableConfig) return { ok: false, error: `${raw.file} ${raw.problem} Until then commands here change nothing.` };
  let result: ReturnType<typeof configSchema.safeParse>;
  try {
    result = configSchemaFor(targets).safeParse(raw);
  } catch {
    // Only exotic objects (throwing getters, proxies) get here; YAML cannot produce them.
    return { ok: false, error: `\`${CONFIG_FILE}\`: could not be read as a mapping of keys to values.` };
  }
  if (result.success) return { ok: true, config: freeze(result.data) };
  return { ok: false, error: formatIssues(CONFIG_FILE, result.error.issues, raw, locate) };
}

function freeze(config: Config): Config {
  Object.freeze(config.labels);
  for (const limit of config.limitsByLabel) Object.freeze(limit);
  Object.freeze(config.limitsByLabel);
  Object.freeze(config.exemptLabels);
  for (const alias of config.aliases) Object.freeze(alias);
  Object.freeze(config.aliases);
  for (const target of config.webhooks) Object.freeze(target);
  Object.freeze(config.webhooks);
  return Object.freeze(config);
}
