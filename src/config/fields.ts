/**
 * The schemas of the config's values, one per kind (durations, label names,
 * limits, booleans): each parses the YAML value and says what is wrong with
 * it and how to fix it. configSchema (schema.ts) puts them together.
 */
import { z } from "zod";
import { DURATION_FORMS, parseDuration } from "../commands/parse-duration.js";
import { describeKind, echo, notThis, ownOnly } from "./echo.js";

export const MINUTE = 60_000;
export const DAY = 24 * 60 * MINUTE;
// Expiry is computed as now + ttl; a cap keeps that far inside the range a
// Date (and a database timestamp) can hold. Longer leases should be `none`.
const LONGEST = 365 * DAY;
const LONGEST_TEXT = "`365d`";
// GitHub rejects longer label names.
const LABEL_MAX = 50;

export function durationSchema(allowNone: false): z.ZodType<number, string>;
export function durationSchema(allowNone: true): z.ZodType<number | null, string>;
export function durationSchema(allowNone: boolean): z.ZodType<number | null, string> {
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
    return `${echo(input)} has no unit; write it with one, e.g. ${ownOnly(`\`${input}d\` or \`${input}h\``, "`7d` or `12h`")}.`;
  }
  if (input === null) return `has no value; use ${forms}.`;
  if (input === false && allowNone) return "`false` is not a duration; use `none` to turn this off.";
  return `must be a duration; ${echo(input)} is not one. Use ${forms}.`;
}

/** Whether a template's own text (without its placeholder) sets its labels apart from a repository's other labels. */
function distinctive(own: string): boolean {
  return codePoints(own.trim()) >= 3 && /[^\p{L}\p{N}]/u.test(own);
}

export function labelSchema(placeholder: "{holder}" | "{token}" | null, example: string) {
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
  const message = (input: unknown) => `must be a whole number (0 for no limit)${notThis(input)}.`;
  return z
    .number({ error: (issue) => message(issue.input) })
    .int({ error: (issue) => message(issue.input) })
    .min(0, { error: (issue) => `must be 0 (no limit) or more${notThis(issue.input)}.` });
}

export function limitsByLabelSchema() {
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

export function booleanSchema() {
  return z.boolean({ error: (issue) => `must be \`true\` or \`false\`${notThis(issue.input)}.` });
}

export const CLAIMERS = ["anyone", "collaborators", "members"] as const;

/** What an assignment in the issue's sidebar does (`assignment`): gives and ends leases, or nothing. */
export const ASSIGNMENT = ["claims", "ignore"] as const;

// More exempt labels than this is a pasted list, not a policy.
const EXEMPT_MAX = 20;

export function exemptLabelsSchema() {
  const example = '["pinned"]';
  return z
    .array(
      z.string({ error: (issue) => `must be a list of label names such as ${example}; ${echo(issue.input)} is not a label name.` }),
      { error: (issue) => `must be a list of label names such as ${example}${notThis(issue.input)}.` },
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
