/**
 * Beside the schema (schema.ts, whose `.describe()` says what each key
 * does): the kind of value each key of `.github/issue-leases.yml` takes, in
 * a reader's words, and an example of it as a file writes it. The reference
 * page of the config (docs/reference/config.md, `npm run docs:reference`)
 * is written from the two; its test parses every example with the schema,
 * so an example that the app would refuse fails it. A key added to the
 * schema without its line here does not compile.
 */
import type { configShape, labelsShape } from "./schema.js";

export interface ConfigKeyDoc {
  /** The value it takes. */
  type: string;
  /** YAML, as a file writes the key: the key itself and its value. */
  example: string;
}

type Key = keyof typeof configShape | `labels.${keyof typeof labelsShape}`;

const DURATION = "duration: `30s`, `45m`, `2h`, `3d`, `2w`, `2 hours`, `1.5h`";

export const CONFIG_KEY_DOCS: Readonly<Record<Key, ConfigKeyDoc>> = {
  default_ttl: { type: `${DURATION}, or \`none\` (open-ended); at most \`365d\``, example: "default_ttl: 3d" },
  min_ttl: { type: `${DURATION}; at most \`365d\``, example: "min_ttl: 10m" },
  max_ttl: { type: `${DURATION}; at most \`365d\``, example: "max_ttl: 14d" },
  reminder_before: { type: `${DURATION}, or \`none\` (no reminder); at most \`365d\``, example: "reminder_before: 12h" },
  max_leases_per_holder: { type: "whole number, 0 (no limit) or more", example: "max_leases_per_holder: 2" },
  max_replies_per_hour: { type: "whole number, 0 (no limit) or more", example: "max_replies_per_hour: 10" },
  claimers: { type: "`anyone`, `collaborators` or `members`", example: "claimers: collaborators" },
  bots: { type: "`true` or `false`", example: "bots: false" },
  assign: { type: "`true` or `false`", example: "assign: false" },
  assignment: { type: "`claims` or `ignore`", example: "assignment: claims" },
  labels: { type: "mapping of `claimed`, `holder`, `token` and `in_review` (each below)", example: 'labels:\n  holder: "taken-by: {holder}"\n  in_review: false' },
  "labels.claimed": { type: "label name (at most 50 characters), or `false`", example: "labels:\n  claimed: in progress" },
  "labels.holder": {
    type: "label name with `{holder}` and at least 3 characters of its own around it, one a space or punctuation; or `false`",
    example: 'labels:\n  holder: "taken-by: {holder}"',
  },
  "labels.token": {
    type: "label name with `{token}` and at least 3 characters of its own around it, one a space or punctuation; or `false`",
    example: 'labels:\n  token: "tenure {token}"',
  },
  "labels.in_review": { type: "label name (at most 50 characters), or `false`", example: "labels:\n  in_review: false" },
  require_lease_for_pull_requests: { type: "`true` or `false`", example: "require_lease_for_pull_requests: true" },
  limits_by_label: { type: "mapping of label names (case ignored) to whole numbers, 0 (no limit) or more", example: 'limits_by_label:\n  "good first issue": 1' },
  max_leases_per_holder_in_org: { type: "whole number, 0 (no limit) or more", example: "max_leases_per_holder_in_org: 5" },
  author_first: { type: `${DURATION}, or \`none\`; at most \`365d\``, example: "author_first: 2d" },
  renew_on_activity: { type: "`true` or `false`", example: "renew_on_activity: false" },
  count_in_review: { type: "`true` or `false`", example: "count_in_review: true" },
  exempt_labels: { type: "list of at most 20 label names", example: "exempt_labels: [pinned, long-running]" },
  commands: {
    type: "mapping of at most 20 words (letters, digits and single hyphens, starting with a letter; with or without the slash) to `claim`, `renew`, `release` or `lease`",
    example: "commands:\n  take: claim\n  abandon: release",
  },
  mentions: { type: "`true` or `false`", example: "mentions: true" },
  queue: { type: "`true` or `false`", example: "queue: true" },
  queue_place_ttl: { type: `${DURATION}; at most \`365d\``, example: "queue_place_ttl: 2d" },
  webhooks: {
    type: "list of at most 5 targets, each `url` (`https://`), `events` (a list of event types; default all) and `format` (`json` or `slack`)",
    example:
      "webhooks:\n  - url: https://ci.example.com/hooks/issue-leases\n    events: [lease.acquired, lease.released]\n  - url: https://hooks.slack.com/services/T000/B000/XXXXXXXX\n    format: slack",
  },
};
