/**
 * The config check: `.github/issue-leases.yml` (with the files it extends)
 * checked as the app will read it, giving every problem at its place in the
 * file that has it, `FILE:LINE:COLUMN: message` (positions counted from 1,
 * as the `yaml` library's LineCounter counts them), or the config in force.
 * What the check run `issue-leases config` shows (config-check-run.ts) and
 * what `issue-leases check-config` prints.
 *
 * The problems are those a reply would tell (issues.ts, files.ts), in the
 * same words: values are shown only from the repository's own file. A
 * problem of several keys (`min_ttl` longer than `max_ttl`) gets one line at
 * the value it is about and one at each other key involved that a file sets,
 * so that each place to fix it is marked.
 *
 * A file that cannot be read (not YAML, too big, a bad `_extends`) is all the
 * check tells: its keys cannot be checked until it reads.
 */
import { stringify } from "yaml";
import type { z } from "zod";
import { formatDuration, parseDuration } from "../commands/parse-duration.js";
import type { Alias } from "./commands-field.js";
import { UnreadableConfig } from "./config.js";
import type { ConfigFile } from "./files.js";
import { listProblems, type Site } from "./issues.js";
import { DEFAULT_TARGET_POLICY, type TargetPolicy } from "../events/target-guard.js";
import { configSchema, configSchemaFor, configShape } from "./schema.js";
import { locateIn, mergeFiles } from "./sources.js";

/** One line of a check: `file:line:column: message`. */
export interface Problem {
  /** The repository's own file as the caller names it; any other as `owner/repo:path`. */
  file: string;
  line: number;
  column: number;
  message: string;
}

/** A key of the config in force, and where its value came from. */
export interface EffectiveKey {
  key: string;
  /**
   * Its value as a file would write it (a duration in words: `7 days`,
   * `none`); absent when set in another file, whose values are not shown
   * (a reader may not be able to see that repository).
   */
  value?: unknown;
  /** `default` (no file sets it), `own` (the file checked), or the other file's name, `owner/repo:path`. */
  from: string;
}

/**
 * `unchecked`: each `_extends` (as written) that was not followed, so that
 * nothing of its file is in the check (a fork's pull request, files.ts).
 */
export type ConfigCheck = ({ ok: true; effective: EffectiveKey[] } | { ok: false; problems: Problem[] }) & { unchecked?: string[] };

/**
 * Checks the files of a config as read (the file checked first, then those it
 * extends), or the one that could not be read. `name`: how lines name the
 * file checked (`.github/issue-leases.yml`, or the path a user typed).
 * `targets`: where outgoing webhooks may go (the operator's policy).
 */
export function checkConfig(files: readonly ConfigFile[] | UnreadableConfig, name: string, targets: TargetPolicy = DEFAULT_TARGET_POLICY): ConfigCheck {
  if (files instanceof UnreadableConfig) return { ok: false, problems: unreadableProblems(files, name) };
  const unchecked = files.flatMap((f) => (f.unfollowed === undefined ? [] : [f.unfollowed]));
  const check = checkFiles(files, name, targets);
  return unchecked.length > 0 ? { ...check, unchecked } : check;
}

function checkFiles(files: readonly ConfigFile[], name: string, targets: TargetPolicy): ConfigCheck {
  const raw = mergeFiles(files);
  const locate = locateIn(files);
  let result: ReturnType<typeof configSchema.safeParse>;
  try {
    result = configSchemaFor(targets).safeParse(raw);
  } catch {
    // Only exotic objects get here (see parseConfig); YAML cannot produce them.
    return { ok: false, problems: [{ file: name, line: 1, column: 1, message: "could not be read as a mapping of keys to values." }] };
  }
  if (!result.success) {
    const problems: Problem[] = [];
    for (const p of listProblems(result.error.issues, raw, locate).problems) {
      for (const place of placesOf(p.places)) {
        const file = place.own ? name : place.source;
        const problem = { file, line: place.line ?? 1, column: place.column ?? 1, message: p.text };
        if (!problems.some((q) => q.file === file && q.line === problem.line && q.column === problem.column && q.message === p.text)) problems.push(problem);
      }
    }
    return { ok: false, problems: sorted(problems, name) };
  }
  // The keys as the file writes them, with every default filled in (before they become the app's camelCase `Config`).
  const values = configSchemaFor(targets).in.parse(raw) as Record<string, unknown>;
  const effective = Object.keys(configShape).map((key): EffectiveKey => {
    if (!Object.hasOwn(raw, key)) return { key, value: written(key, values[key]), from: "default" };
    const site = locate([key]);
    return site.own ? { key, value: written(key, values[key]), from: "own" } : { key, from: site.source };
  });
  return { ok: true, effective };
}

/** The lines of a file that could not be read: each of its problems where it is. */
function unreadableProblems(unreadable: UnreadableConfig, name: string): Problem[] {
  const places = unreadable.places;
  if (places === undefined) return [{ file: name, line: 1, column: 1, message: unreadable.problem }];
  const { owner, repo, path } = places.ref;
  const file = places.own ? name : `${owner}/${repo}:${path}`;
  return places.problems.map((p) => ({ file, ...p }));
}

/** The places of a problem that a file wrote (each once); the file checked, at its start, when none did (a default against a default). */
function placesOf(sites: readonly Site[]): Site[] {
  const written = sites.filter((s) => s.line !== undefined);
  return written.length > 0 ? written : [{ own: true, line: 1, column: 1 }];
}

/** The file checked first, then the others by name; each by line and column. */
function sorted(problems: Problem[], name: string): Problem[] {
  const rank = (p: Problem) => (p.file === name ? "" : p.file);
  return problems.sort((a, b) => rank(a).localeCompare(rank(b)) || a.line - b.line || a.column - b.column);
}

/**
 * A value in force as a file would write it, so that the config printed
 * reads back as the same config: a duration in words (`7 days`, `none`), the
 * aliases as the mapping `commands:` takes (`{take: claim}`), anything else
 * as it is.
 */
function written(key: string, value: unknown): unknown {
  const schema = (configShape as Record<string, z.ZodType>)[key]!;
  if (takesDuration(schema)) {
    if (value === null) return "none";
    if (typeof value === "number") return durationWords(value);
  }
  if (key === "commands") return Object.fromEntries((value as readonly Alias[]).map((a) => [a.word, a.command]));
  return value;
}

/** A duration in words when they read back exactly (`90 minutes`); else in seconds, to the millisecond (`1.5s`). */
function durationWords(ms: number): string {
  const words = formatDuration(ms);
  return parseDuration(words) === ms ? words : `${ms / 1000}s`;
}

/** Whether a key's schema reads a duration: durations are kept in milliseconds, which a reader wants back in words. */
function takesDuration(schema: z.ZodType): boolean {
  return schema.safeParse("1m").data === 60_000;
}

/**
 * The config in force as YAML lines, each key's source after it: `# default`,
 * or, for a value not shown, the key commented out with `# from
 * owner/repo:path`. Pasted into a file, the lines are that config.
 */
export function effectiveLines(effective: readonly EffectiveKey[]): string[] {
  const lines = effective.map((e) => {
    // YAML on one line: a mapping or a list in flow style.
    const text = "value" in e ? `${e.key}: ${stringify(e.value, { collectionStyle: "flow", lineWidth: 0 }).trim()}` : `# ${e.key}: …`;
    return { text, note: e.from === "default" ? "default" : e.from === "own" ? "" : `from ${e.from}` };
  });
  // Notes line up after the short lines; a long one (a mapping in flow style) does not push them all out.
  const width = Math.min(30, Math.max(0, ...lines.filter((l) => l.note !== "").map((l) => l.text.length)));
  return lines.map((l) => (l.note === "" ? l.text : `${l.text.padEnd(width)}  # ${l.note}`));
}

/** A problem as a line: `file:line:column: message`. */
export function problemLine(p: Problem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.message}`;
}
