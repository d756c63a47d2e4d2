/**
 * `configSchema`, the single source of truth of `.github/issue-leases.yml`
 * (see config.ts): each key's schema (fields.ts), default and
 * `.describe()` text (the documentation) together, and the checks across
 * keys. It reads the YAML's snake_case keys and produces the camelCase
 * `Config` with durations in milliseconds.
 */
import { z } from "zod";
import { formatDuration } from "../commands/parse-duration.js";
import { type Alias, commandsSchema } from "./commands-field.js";
import { describeKind, echo, keyList, notThis, ownOnly } from "./echo.js";
import {
  ASSIGNMENT,
  booleanSchema,
  CLAIMERS,
  DAY,
  durationSchema,
  exemptLabelsSchema,
  labelSchema,
  leaseLimitSchema,
  limitsByLabelSchema,
  MINUTE,
} from "./fields.js";
import { DEFAULT_TARGET_POLICY, type TargetPolicy } from "../events/target-guard.js";
import { type WebhookTarget, webhooksKey } from "./webhooks-field.js";

/** The configuration a repository's file gives, once parsed: camelCase, durations in milliseconds. */
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
  /** `claims`: an assignment by someone with write permission gives the assignee a lease, unassigning the holder ends it; `ignore`: nothing. */
  assignment: "claims" | "ignore";
  labels: { claimed: string | false; holder: string | false; token: string | false; inReview: string | false };
  requireLeaseForPullRequests: boolean;
  /** Live leases one person may hold on issues carrying a label, per label (names compared case-insensitively); empty: none. */
  limitsByLabel: ReadonlyArray<{ label: string; limit: number }>;
  /**
   * Live leases one person may hold across every repository of the
   * installation; 0 means no limit. Once loaded (see sources.ts), the
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
  /** Extra words for the commands (`/take` for `/claim`), lower case and without the slash. */
  aliases: readonly Alias[];
  /** Whether `@<app-slug> claim` (and each alias after the mention) is read as a command. */
  mentions: boolean;
  /** Whether `/claim` on a held issue puts the commenter in line for it (the API's `?wait=true` does, whatever this says). */
  queue: boolean;
  /** Milliseconds a place in line lasts unless its holder asks again. */
  queuePlaceTtl: number;
  /** Where the repository's lease events are sent (outgoing webhooks); empty: nowhere. */
  webhooks: readonly WebhookTarget[];
}

export const labelsShape = {
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

/** Every key, with the default policy for outgoing webhooks' targets: what keys there are, their defaults and descriptions. */
export const configShape = {
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
    .number({ error: (issue) => `must be a whole number (0 for no limit)${notThis(issue.input)}.` })
    .int({ error: (issue) => `must be a whole number (0 for no limit)${notThis(issue.input)}.` })
    .min(0, { error: (issue) => `must be 0 (no limit) or more${notThis(issue.input)}.` })
    .default(0)
    .describe("How many leases one person may hold at once in this repository; 0 means no limit."),
  max_replies_per_hour: z
    .number({ error: (issue) => `must be a whole number (0 for no limit)${notThis(issue.input)}.` })
    .int({ error: (issue) => `must be a whole number (0 for no limit)${notThis(issue.input)}.` })
    .min(0, { error: (issue) => `must be 0 (no limit) or more${notThis(issue.input)}.` })
    .default(20)
    .describe(
      "How many replies the app posts to one person's commands in any hour in this repository (default 20); 0 means no limit. " +
        "People with the OWNER, MEMBER or COLLABORATOR association are not limited. Past the limit, commands still " +
        "run and labels still follow; the first reply over it says so, and the rest are not posted until the hour has passed.",
    ),
  claimers: z
    .enum(CLAIMERS, {
      error: (issue) => `must be one of ${CLAIMERS.map((c) => `\`${c}\``).join(", ")}${notThis(issue.input)}.`,
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
  assignment: z
    .enum(ASSIGNMENT, {
      error: (issue) => `must be one of ${ASSIGNMENT.map((c) => `\`${c}\``).join(", ")}${notThis(issue.input)}.`,
    })
    .default("ignore")
    .describe(
      "What assigning someone in the issue's sidebar does: `claims`: an assignment made by someone with write, maintain or admin " +
        "permission (asked of GitHub) gives the assignee a lease for `default_ttl`, under the same rules and limits as `/claim`, " +
        "and unassigning the holder (by the holder, or by someone with that permission) ends it; `ignore` (the default): nothing.",
    ),
  labels: z
    .object(labelsShape, { error: (issue) => `must be a mapping with the keys ${keyList(Object.keys(labelsShape))}${notThis(issue.input)}.` })
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
  commands: commandsSchema()
    .default([])
    .describe(
      "Extra words for the commands, each mapped to `claim`, `renew`, `release` or `lease`: `take: claim` makes `/take` a `/claim`, " +
        "read with the same durations, notes and rules. A word that would shadow a command or that comments use in conversation " +
        "(`thanks`, `done`, `/s`) is refused. None by default.",
    ),
  mentions: booleanSchema()
    .default(false)
    .describe("Whether `@<app-slug> claim` (or any other command or alias after a mention of the app) is read as the command, as other bots read theirs."),
  queue: booleanSchema()
    .default(false)
    .describe(
      "Whether `/claim` on a held issue puts the commenter in line for it (answered \"you are 2nd in line\"); when the lease ends " +
        "(released or expired) it passes to the first in line, whose reply mentions them. Off by default; the API's `?wait=true` queues either way.",
    ),
  queue_place_ttl: durationSchema(false)
    .default(1 * DAY)
    .describe("How long a place in line lasts unless its holder asks again (`/claim`, or the API's `?wait=true`), which renews it (default `1d`)."),
  webhooks: webhooksKey(DEFAULT_TARGET_POLICY),
};

/** The whole config's schema, for a shape whose `webhooks:` checks targets by some policy. */
function schemaOf(shape: typeof configShape) {
  return z
    .object(shape, {
      error: (issue) => `must be a mapping of keys to values, such as \`default_ttl: 7d\`; it is ${describeKind(issue.input)}.`,
    })
    .strict()
    .superRefine((c, ctx) => {
      // The app puts these on every lease (or every lease in review): as exempt labels they would exempt them all.
      const own = [c.labels.claimed, c.labels.in_review].filter((l): l is string => l !== false).map((l) => l.toLowerCase());
      c.exempt_labels.forEach((name, i) => {
        if (own.includes(name.toLowerCase())) {
          // Two keys are involved: the file that set the labels decides where the problem is shown (issues.ts).
          const keys = ["exempt_labels", "labels"];
          ctx.addIssue({
            code: "custom",
            path: ["exempt_labels", i],
            params: { keys },
            message: `${echo(name, "it")} is a label the app puts on leases itself; name a label of your own.`,
          });
        }
      });
      // The durations compared are shown only where every one is in the repository's own file (issues.ts).
      if (c.min_ttl > c.max_ttl) {
        ctx.addIssue({
          code: "custom",
          path: ["min_ttl"],
          params: { keys: ["min_ttl", "max_ttl"] },
          message:
            `is ${ownOnly(`${formatDuration(c.min_ttl)}, longer`, "longer")} than \`max_ttl\`${ownOnly(` (${formatDuration(c.max_ttl)})`, "")}; ` +
            "make `min_ttl` shorter or `max_ttl` longer.",
        });
      } else if (c.default_ttl !== null && (c.default_ttl < c.min_ttl || c.default_ttl > c.max_ttl)) {
        const side = c.default_ttl < c.min_ttl ? "shorter than `min_ttl`" : "longer than `max_ttl`";
        const bound = c.default_ttl < c.min_ttl ? c.min_ttl : c.max_ttl;
        const value = formatDuration(c.default_ttl);
        const rest =
          `${side}${ownOnly(` (${formatDuration(bound)})`, "")}; ` +
          `set \`default_ttl\` between ${ownOnly(`${formatDuration(c.min_ttl)} and ${formatDuration(c.max_ttl)}`, "`min_ttl` and `max_ttl`")}, or to \`none\`.`;
        // The formatter adds "(the default)" when the file does not set default_ttl, which only it can see.
        ctx.addIssue({
          code: "custom",
          path: ["default_ttl"],
          params: { value, rest, keys: ["default_ttl", "min_ttl", "max_ttl"] },
          message: `is ${ownOnly(`${value}, `, "")}${rest}`,
        });
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
        assignment: c.assignment,
        labels: { claimed: c.labels.claimed, holder: c.labels.holder, token: c.labels.token, inReview: c.labels.in_review },
        requireLeaseForPullRequests: c.require_lease_for_pull_requests,
        limitsByLabel: Object.entries(c.limits_by_label).map(([label, limit]) => ({ label: label.trim(), limit })),
        maxLeasesPerHolderInOrg: c.max_leases_per_holder_in_org,
        authorFirst: c.author_first,
        renewOnActivity: c.renew_on_activity,
        countInReview: c.count_in_review,
        exemptLabels: c.exempt_labels,
        aliases: c.commands,
        mentions: c.mentions,
        queue: c.queue,
        queuePlaceTtl: c.queue_place_ttl,
        webhooks: c.webhooks,
      }),
    );
}

const schemas = new Map<boolean, ReturnType<typeof schemaOf>>();

/** The schema that checks outgoing webhooks' targets by the operator's `policy` (EVENTS_WEBHOOK_ALLOW_PRIVATE), built once per policy. */
export function configSchemaFor(policy: TargetPolicy): ReturnType<typeof schemaOf> {
  let schema = schemas.get(policy.allowPrivate);
  if (schema === undefined) {
    schema = schemaOf({ ...configShape, webhooks: webhooksKey(policy) });
    schemas.set(policy.allowPrivate, schema);
  }
  return schema;
}

/** The schema with the default policy (loopback and private targets refused). */
export const configSchema = configSchemaFor(DEFAULT_TARGET_POLICY);
