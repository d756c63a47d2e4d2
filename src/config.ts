/**
 * The per-repository configuration, `.github/issue-leases.yml`.
 *
 * `configSchema` is the single source of truth: each key's type, default
 * and `.describe()` text (the documentation) live together below. The
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
 * one message that names the file, the key and the fix.
 */

import { z } from "zod";
import { DURATION_FORMS, formatDuration, parseDuration } from "./commands/parse-duration.js";

/** The path shown to users. */
export const CONFIG_FILE = ".github/issue-leases.yml";
/** The name passed to Probot's `context.config`, which looks under `.github/`. */
export const CONFIG_NAME = "issue-leases.yml";

export interface Config {
  /** Milliseconds; null means leases are open-ended. */
  defaultTtl: number | null;
  minTtl: number;
  maxTtl: number;
  /** Milliseconds before expiry; null means no reminders. */
  reminderBefore: number | null;
  /** Per holder per repository; 0 means no limit. */
  maxLeasesPerHolder: number;
  /** Replies one person (without OWNER, MEMBER or COLLABORATOR association) may get per hour in the repository; 0 means no limit. */
  maxRepliesPerHour: number;
  claimers: "anyone" | "collaborators" | "members";
  bots: boolean;
  assign: boolean;
  labels: { claimed: string | false; holder: string | false; token: string | false; inReview: string | false };
  requireLeaseForPullRequests: boolean;
  /** Live leases one person may hold on issues carrying a label, per label (names compared case-insensitively); empty: none. */
  limitsByLabel: ReadonlyArray<{ label: string; limit: number }>;
  /**
   * Live leases one person may hold across every repository of the
   * installation; 0 means no limit. Once loaded (see config-sources.ts), the
   * strictest of the repository's value and its organisation's.
   */
  maxLeasesPerHolderInOrg: number;
  /** Milliseconds after an issue is opened during which only its author and people with write permission may claim it; null: none. */
  authorFirst: number | null;
  /** The holder's own comments, and pushes, comments and reviews on a pull request that closes the issue, renew the lease by its term. */
  renewOnActivity: boolean;
  /** Whether a lease whose holder has an open pull request for the issue counts toward the per-holder limits. */
  countInReview: boolean;
  /** A lease on an issue carrying one of these labels does not expire. */
  exemptLabels: string[];
}

export type ConfigResult = { ok: true; config: Config } | { ok: false; error: string };

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// Expiry is computed as now + ttl; a cap keeps that far inside the range a
// Date (and a database timestamp) can hold. Longer leases should be `none`.
const LONGEST = 365 * DAY;
const LONGEST_TEXT = "`365d`";
// GitHub rejects longer label names.
const LABEL_MAX = 50;
// Echoed user values are cut to this many characters.
const ECHO_MAX = 40;
// More problems than this are summarised, so a pasted wrong file gets a short reply.
const PROBLEMS_MAX = 10;

// ---------------------------------------------------------------------------
// Field schemas

function durationSchema(allowNone: false): z.ZodType<number, string>;
function durationSchema(allowNone: true): z.ZodType<number | null, string>;
function durationSchema(allowNone: boolean): z.ZodType<number | null, string> {
  const forms = allowNone ? `${DURATION_FORMS}, or \`none\`` : DURATION_FORMS;
  return z
    .string({ error: (issue) => notAString(issue.input, forms, allowNone) })
    .transform((text, ctx) => {
      const trimmed = text.trim();
      if (trimmed.toLowerCase() === "none") {
        if (allowNone) return null;
        ctx.issues.push({ code: "custom", input: text, message: `cannot be \`none\`; use ${forms}.` });
        return z.NEVER;
      }
      // Anything this long is not a duration; skip the regex on huge input.
      const ms = trimmed.length <= 40 ? parseDuration(trimmed) : null;
      if (ms === null) {
        ctx.issues.push({ code: "custom", input: text, message: `${echo(text)} is not a duration; use ${forms}.` });
        return z.NEVER;
      }
      if (ms > LONGEST) {
        const fix = allowNone ? `at most ${LONGEST_TEXT}, or \`none\` for no limit` : `at most ${LONGEST_TEXT}`;
        ctx.issues.push({ code: "custom", input: text, message: `${echo(text)} is longer than a year; use ${fix}.` });
        return z.NEVER;
      }
      return ms;
    });
}

function notAString(input: unknown, forms: string, allowNone: boolean): string {
  if (typeof input === "number" && Number.isFinite(input) && input > 0) {
    return `${echo(input)} has no unit; write it with one, e.g. \`${input}d\` or \`${input}h\`.`;
  }
  if (input === null) return `has no value; use ${forms}.`;
  if (input === false && allowNone) return "`false` is not a duration; use `none` to turn this off.";
  return `must be a duration; ${echo(input)} is not one. Use ${forms}.`;
}

/** Whether a template's own text (without its placeholder) sets its labels apart from a repository's other labels. */
function distinctive(own: string): boolean {
  return codePoints(own.trim()) >= 3 && /[^\p{L}\p{N}]/u.test(own);
}

function labelSchema(placeholder: "{holder}" | "{token}" | null, example: string) {
  return z
    .union([z.literal(false), z.string()], {
      error: (issue) =>
        issue.input === true
          ? `\`true\` is not a label name; write the label's name, e.g. "${example}", or \`false\` to not use this label.`
          : `must be a label name such as "${example}", or \`false\`; ${echo(issue.input)} is neither.`,
    })
    .superRefine((value, ctx) => {
      if (value === false) return;
      let problem: string | null = null;
      if (value.trim() === "") {
        problem = `is empty; write a label name such as "${example}", or \`false\` to not use this label.`;
      } else if (codePoints(value) > LABEL_MAX) {
        problem = `${echo(value)} is too long; GitHub allows at most ${LABEL_MAX} characters in a label name.`;
      } else if (placeholder !== null && !value.includes(placeholder)) {
        problem = `${echo(value)} must contain \`${placeholder}\`, e.g. "${example}".`;
      } else if (placeholder !== null && !distinctive(value.replaceAll(placeholder, ""))) {
        // "{holder}" would make `bug` a holder label, "v{token}" would make `v2` a token label.
        problem =
          `${echo(value)} could match ordinary labels; write at least 3 characters of its own around \`${placeholder}\`, ` +
          `one of them a space or punctuation, e.g. "${example}".`;
      }
      if (problem !== null) ctx.addIssue({ code: "custom", input: value, message: problem });
    });
}

/** Characters as GitHub counts them, counting no further than needed to compare with LABEL_MAX. */
function codePoints(value: string): number {
  return [...value.slice(0, 2 * LABEL_MAX + 2)].length;
}

/** A whole number of leases, 0 for no limit. */
export function leaseLimitSchema() {
  const message = (input: unknown) => `must be a whole number (0 for no limit), not ${echo(input)}.`;
  return z
    .number({ error: (issue) => message(issue.input) })
    .int({ error: (issue) => message(issue.input) })
    .min(0, { error: (issue) => `must be 0 (no limit) or more, not ${echo(issue.input)}.` });
}

function limitsByLabelSchema() {
  return z
    .record(
      z.string().superRefine((label, ctx) => {
        if (label.trim() === "") ctx.addIssue({ code: "custom", input: label, message: "is not a label name; write the label's name as the key." });
        else if (codePoints(label) > LABEL_MAX) {
          ctx.addIssue({ code: "custom", input: label, message: `is too long for a label name; GitHub allows at most ${LABEL_MAX} characters.` });
        }
      }),
      leaseLimitSchema(),
      {
        error: (issue) =>
          // A key that is not a label name: the key's own problem.
          issue.code === "invalid_key"
            ? (issue.issues[0]?.message ?? "is not a label name.")
            : `must be a mapping of label names to limits, such as \`"good first issue": 1\`; it is ${describeKind(issue.input)}.`,
      },
    )
    .superRefine((limits, ctx) => {
      // GitHub's label names are case-insensitive: two keys naming one label would be two limits for it.
      const seen = new Set<string>();
      for (const label of Object.keys(limits)) {
        const key = label.trim().toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: "custom", path: [label], input: label, message: "names a label already listed (label names ignore case)." });
        seen.add(key);
      }
    });
}

function booleanSchema() {
  return z.boolean({ error: (issue) => `must be \`true\` or \`false\`, not ${echo(issue.input)}.` });
}

const CLAIMERS = ["anyone", "collaborators", "members"] as const;

// More exempt labels than this is a pasted list, not a policy.
const EXEMPT_MAX = 20;

function exemptLabelsSchema() {
  const example = '["pinned"]';
  return z
    .array(
      z.string({ error: (issue) => `must be a list of label names such as ${example}; ${echo(issue.input)} is not a label name.` }),
      { error: (issue) => `must be a list of label names such as ${example}, not ${echo(issue.input)}.` },
    )
    .superRefine((names, ctx) => {
      if (names.length > EXEMPT_MAX) {
        ctx.addIssue({ code: "custom", input: names, message: `lists ${names.length} labels; at most ${EXEMPT_MAX} are allowed.` });
        return;
      }
      names.forEach((name, i) => {
        let problem: string | null = null;
        if (name.trim() === "") problem = `is empty; write label names such as ${example}.`;
        else if (codePoints(name) > LABEL_MAX) problem = `${echo(name)} is too long; GitHub allows at most ${LABEL_MAX} characters in a label name.`;
        if (problem !== null) ctx.addIssue({ code: "custom", path: [i], input: name, message: problem });
      });
    });
}

// ---------------------------------------------------------------------------
// The schema

const labelsShape = {
  claimed: labelSchema(null, "claimed")
    .default("claimed")
    .describe("Label put on every issue that has a lease, and removed when it ends. `false` to not use it."),
  holder: labelSchema("{holder}", "claimed-by: {holder}")
    .default("claimed-by: {holder}")
    .describe("Label naming the holder; `{holder}` becomes their login. `false` to not use it."),
  token: labelSchema("{token}", "lease #{token}")
    .default("lease #{token}")
    .describe("Label carrying the lease's fencing token; `{token}` becomes the number. `false` to not use it."),
  in_review: labelSchema(null, "claimed: in review")
    .default("claimed: in review")
    .describe("Label put on an issue while an open pull request by the holder closes it (the lease does not expire then). `false` to not use it."),
};

const configShape = {
  default_ttl: durationSchema(true)
    .default(7 * DAY)
    .describe("How long a lease lasts when `/claim` names no duration (default `7d`). `none` makes leases open-ended."),
  min_ttl: durationSchema(false)
    .default(1 * MINUTE)
    .describe("The shortest duration a `/claim` or `/renew` may ask for (default `1m`)."),
  max_ttl: durationSchema(false)
    .default(30 * DAY)
    .describe("The longest duration a `/claim` or `/renew` may ask for (default `30d`, at most `365d`)."),
  reminder_before: durationSchema(true)
    .default(1 * DAY)
    .describe("How long before a lease expires its holder is reminded, once (default `1d`). `none` turns reminders off."),
  max_leases_per_holder: z
    .number({ error: (issue) => `must be a whole number (0 for no limit), not ${echo(issue.input)}.` })
    .int({ error: (issue) => `must be a whole number (0 for no limit), not ${echo(issue.input)}.` })
    .min(0, { error: (issue) => `must be 0 (no limit) or more, not ${echo(issue.input)}.` })
    .default(0)
    .describe("How many leases one person may hold at once in this repository; 0 means no limit."),
  max_replies_per_hour: z
    .number({ error: (issue) => `must be a whole number (0 for no limit), not ${echo(issue.input)}.` })
    .int({ error: (issue) => `must be a whole number (0 for no limit), not ${echo(issue.input)}.` })
    .min(0, { error: (issue) => `must be 0 (no limit) or more, not ${echo(issue.input)}.` })
    .default(20)
    .describe(
      "How many replies the app posts to one person's commands in any hour in this repository (default 20); 0 means no limit. " +
        "People with the OWNER, MEMBER or COLLABORATOR association are not limited. Past the limit, commands still " +
        "run and labels still follow; the first reply over it says so, and the rest are not posted until the hour has passed.",
    ),
  claimers: z
    .enum(CLAIMERS, {
      error: (issue) => `must be one of ${CLAIMERS.map((c) => `\`${c}\``).join(", ")}, not ${echo(issue.input)}.`,
    })
    .default("anyone")
    .describe(
      "Who may claim: `anyone`; `collaborators`: a comment whose author has the OWNER, MEMBER or COLLABORATOR association " +
        "with the repository (GitHub's `author_association`); `members`: OWNER or MEMBER association only. " +
        "Read from the comment, not from permissions: no API call, and no `members` permission needed.",
    ),
  bots: booleanSchema().default(true).describe("Whether other bots may claim issues."),
  assign: booleanSchema()
    .default(true)
    .describe("Whether the holder is also assigned to the issue on GitHub, and unassigned when the lease ends."),
  labels: z
    .object(labelsShape, { error: (issue) => `must be a mapping with the keys ${keyList(Object.keys(labelsShape))}, not ${echo(issue.input)}.` })
    .strict()
    .default({ claimed: "claimed", holder: "claimed-by: {holder}", token: "lease #{token}", in_review: "claimed: in review" })
    .describe("Names of the labels that mirror a lease on its issue."),
  require_lease_for_pull_requests: booleanSchema()
    .default(false)
    .describe("Whether a pull request that closes an issue must be opened by the holder of that issue's lease."),
  limits_by_label: limitsByLabelSchema()
    .default({})
    .describe(
      'Live leases one person may hold at once on issues carrying a label, in this repository, per label: `{"good first issue": 1}`. ' +
        "The issue's labels are those it had when it was claimed; 0 means no limit.",
    ),
  max_leases_per_holder_in_org: leaseLimitSchema()
    .default(0)
    .describe(
      "How many leases one person may hold at once across every repository of the installation; 0 means no limit. " +
        "Set in the organisation's `.github` repository, it applies even where a repository has a file of its own; " +
        "where both set it, the smaller limit wins.",
    ),
  author_first: durationSchema(true)
    .default(null)
    .describe(
      "For this long after an issue is opened, only its author and people with write, maintain or admin permission may claim it " +
        "(default `none`).",
    ),
  renew_on_activity: booleanSchema()
    .default(true)
    .describe(
      "Whether the holder's own activity renews their lease by its current length, silently: their comments on the issue, " +
        "and their pushes, comments and reviews on a pull request that closes it. Nobody else's activity does.",
    ),
  count_in_review: booleanSchema()
    .default(false)
    .describe("Whether a lease whose holder has an open pull request that closes its issue counts toward `max_leases_per_holder`."),
  exempt_labels: exemptLabelsSchema()
    .default([])
    .describe("Labels that keep a lease from expiring while its issue carries one (long-running or pinned work); none by default."),
};

export const configSchema = z
  .object(configShape, {
    error: (issue) => `must be a mapping of keys to values, such as \`default_ttl: 7d\`; it is ${describeKind(issue.input)}.`,
  })
  .strict()
  .superRefine((c, ctx) => {
    // The app puts these on every lease (or every lease in review): as exempt labels they would exempt them all.
    const own = [c.labels.claimed, c.labels.in_review].filter((l): l is string => l !== false).map((l) => l.toLowerCase());
    c.exempt_labels.forEach((name, i) => {
      if (own.includes(name.toLowerCase())) {
        ctx.addIssue({ code: "custom", path: ["exempt_labels", i], message: `${echo(name)} is a label the app puts on leases itself; name a label of your own.` });
      }
    });
    if (c.min_ttl > c.max_ttl) {
      ctx.addIssue({
        code: "custom",
        path: ["min_ttl"],
        message: `is ${formatDuration(c.min_ttl)}, longer than \`max_ttl\` (${formatDuration(c.max_ttl)}); make \`min_ttl\` shorter or \`max_ttl\` longer.`,
      });
    } else if (c.default_ttl !== null && (c.default_ttl < c.min_ttl || c.default_ttl > c.max_ttl)) {
      const side = c.default_ttl < c.min_ttl ? "shorter than `min_ttl`" : "longer than `max_ttl`";
      const bound = c.default_ttl < c.min_ttl ? c.min_ttl : c.max_ttl;
      const value = formatDuration(c.default_ttl);
      const rest =
        `${side} (${formatDuration(bound)}); ` +
        `set \`default_ttl\` between ${formatDuration(c.min_ttl)} and ${formatDuration(c.max_ttl)}, or to \`none\`.`;
      // The formatter adds "(the default)" when the file does not set default_ttl, which only it can see.
      ctx.addIssue({ code: "custom", path: ["default_ttl"], params: { value, rest }, message: `is ${value}, ${rest}` });
    }
  })
  .transform(
    (c): Config => ({
      defaultTtl: c.default_ttl,
      minTtl: c.min_ttl,
      maxTtl: c.max_ttl,
      reminderBefore: c.reminder_before,
      maxLeasesPerHolder: c.max_leases_per_holder,
      maxRepliesPerHour: c.max_replies_per_hour,
      claimers: c.claimers,
      bots: c.bots,
      assign: c.assign,
      labels: { claimed: c.labels.claimed, holder: c.labels.holder, token: c.labels.token, inReview: c.labels.in_review },
      requireLeaseForPullRequests: c.require_lease_for_pull_requests,
      limitsByLabel: Object.entries(c.limits_by_label).map(([label, limit]) => ({ label: label.trim(), limit })),
      maxLeasesPerHolderInOrg: c.max_leases_per_holder_in_org,
      authorFirst: c.author_first,
      renewOnActivity: c.renew_on_activity,
      countInReview: c.count_in_review,
      exemptLabels: c.exempt_labels,
    }),
  );

/** What the loader hands over when the file exists but is not YAML (GitHub's answer was fine). */
export class UnreadableConfig {
  constructor(readonly reason: string) {}
}

/** The configuration of a repository without `.github/issue-leases.yml`. */
export const DEFAULT_CONFIG: Config = freeze(configSchema.parse({}));

/**
 * Validates the parsed YAML of the config file. `raw` is null or undefined
 * when the repository has no config file, which means the defaults.
 * The returned config is frozen: results are shared between webhooks.
 */
export function parseConfig(raw: unknown): ConfigResult {
  if (raw === null || raw === undefined) return { ok: true, config: DEFAULT_CONFIG };
  if (raw instanceof UnreadableConfig) {
    return { ok: false, error: `\`${CONFIG_FILE}\` could not be read as YAML; fix its syntax. Until then commands here change nothing.` };
  }
  let result: ReturnType<typeof configSchema.safeParse>;
  try {
    result = configSchema.safeParse(raw);
  } catch {
    // Only exotic objects (throwing getters, proxies) get here; YAML cannot produce them.
    return { ok: false, error: `\`${CONFIG_FILE}\`: could not be read as a mapping of keys to values.` };
  }
  if (result.success) return { ok: true, config: freeze(result.data) };
  return { ok: false, error: formatIssues(result.error.issues, raw) };
}

function freeze(config: Config): Config {
  Object.freeze(config.labels);
  for (const limit of config.limitsByLabel) Object.freeze(limit);
  Object.freeze(config.limitsByLabel);
  Object.freeze(config.exemptLabels);
  return Object.freeze(config);
}

// ---------------------------------------------------------------------------
// Error messages

function formatIssues(issues: readonly z.core.$ZodIssue[], raw: unknown): string {
  const problems: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      const known = path.length === 0 ? Object.keys(configShape) : path[0] === "labels" ? Object.keys(labelsShape) : [];
      for (const key of issue.keys) problems.push(line([...path, safeKey(key)], unknownKey(key, known)));
      continue;
    }
    let message = issue.message;
    const params: Record<string, unknown> = issue.code === "custom" ? (issue.params ?? {}) : {};
    if (typeof params["value"] === "string" && typeof params["rest"] === "string" && !hasKey(raw, "default_ttl")) {
      message = `is ${params["value"]} (the default), ${params["rest"]}`;
    }
    problems.push(line(path, message));
  }
  if (problems.length === 0) problems.push(line([], "is not valid."));

  if (problems.length === 1) return `\`${CONFIG_FILE}\`: ${problems[0]}`;
  const shown = problems.slice(0, PROBLEMS_MAX).map((p) => `- ${p}`);
  if (problems.length > PROBLEMS_MAX) shown.push(`- and ${problems.length - PROBLEMS_MAX} more.`);
  return `\`${CONFIG_FILE}\` has ${problems.length} problems:\n${shown.join("\n")}`;
}

function line(path: string[], message: string): string {
  // A path may hold a user's key (a label name under `limits_by_label`): no backticks.
  return path.length === 0 ? message : `\`${path.map(safeKey).join(".")}\`: ${message}`;
}

function unknownKey(key: string, known: string[]): string {
  const guess = closest(key, known);
  if (guess !== null) return `unknown key; did you mean \`${guess}\`?`;
  return known.length > 0 ? `unknown key; the keys here are ${keyList(known)}.` : "unknown key.";
}

/** A known key the user probably meant: same letters ignoring case and `_`/`-`, or at most two edits away. */
function closest(key: string, known: string[]): string | null {
  if (key.length > 60) return null;
  const squash = (s: string) => s.toLowerCase().replace(/[_\-\s]/g, "");
  for (const k of known) if (squash(k) === squash(key)) return k;
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitute));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function keyList(keys: string[]): string {
  return keys.map((k) => `\`${k}\``).join(", ");
}

function hasKey(raw: unknown, key: string): boolean {
  return typeof raw === "object" && raw !== null && Object.prototype.hasOwnProperty.call(raw, key);
}

/** A user-written key, cut short and stripped of characters that would break a code span or the reply. */
function safeKey(key: string): string {
  return clip(key).replace(/[\p{Cc}\p{Cf}`]/gu, "?");
}

/** A user-written value for an error message: short, quoted, one line. */
function echo(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(clip(value).replace(/[\p{Cc}\p{Cf}`]/gu, "?"));
  if (typeof value === "number" || typeof value === "boolean") return `\`${clip(String(value))}\``;
  return describeKind(value);
}

function describeKind(value: unknown): string {
  if (value === null) return "an empty value";
  if (value === undefined) return "missing";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  if (typeof value === "string") return "a string";
  if (typeof value === "number" || typeof value === "bigint") return "a number";
  if (typeof value === "boolean") return `\`${String(value)}\``;
  return `a ${typeof value}`;
}

function clip(text: string): string {
  // Slice first so a huge string is never split into code points whole.
  const points = [...text.slice(0, ECHO_MAX * 2)];
  return points.length > ECHO_MAX || text.length > ECHO_MAX * 2 ? `${points.slice(0, ECHO_MAX).join("")}…` : text;
}
