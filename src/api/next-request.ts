/**
 * What a `next` request says, validated before anything is asked of GitHub
 * or the ledger: the path's repository or organisation, and the JSON body
 * (every field optional, unknown ones refused): the filters, the order, and
 * the claim's `ttl` and `instance`.
 */
import { z } from "zod";
import { DURATION_FORMS, parseDuration } from "../commands/parse-duration.js";
import type { ReadyFilter } from "../ledger/inventory/inventory-types.js";
import { type Answer, errorAnswer } from "./answers.js";
import { instance, invalid, isAnswer, json, NAME_PATTERN } from "./requests.js";

/** A label name as GitHub allows it (at most 50 characters); at most 20 of them per list. */
const labels = z.array(z.string().min(1).max(50)).max(20).optional();

const nextBody = z.strictObject({
  labels,
  any_labels: labels,
  exclude_labels: labels,
  milestone: z.string().min(1).max(255).optional(),
  order: labels,
  ttl: z.string().max(40).nullable().optional(),
  instance,
  assignee: z.enum(["none", "none_or_me"]).optional(),
  include_with_pulls: z.boolean().optional(),
  include_blocked: z.boolean().optional(),
});

export interface NextRequest {
  filter: ReadyFilter;
  /** null: the repository's default. */
  ttl: number | null;
  instance?: string;
}

/** Where `next` looks: one repository, or every repository of an owner. */
export type NextScope = { kind: "repo"; owner: string; name: string } | { kind: "org"; org: string };

function decoded(part: string): string | null {
  try {
    const s = decodeURIComponent(part);
    return NAME_PATTERN.test(s) ? s : null;
  } catch {
    return null;
  }
}

export function nextScope(path: RegExpExecArray): NextScope | Answer {
  if (path[1] !== undefined) {
    const org = decoded(path[1]);
    return org ? { kind: "org", org } : errorAnswer(422, "invalid_path", "The path's organisation must be 1 to 100 letters, digits, `.`, `_` or `-`, as GitHub's names are.");
  }
  const owner = decoded(path[2]!);
  const name = decoded(path[3]!);
  if (!owner || !name) {
    return errorAnswer(422, "invalid_path", "The path's owner and repository must each be 1 to 100 letters, digits, `.`, `_` or `-`, as GitHub's names are.");
  }
  return { kind: "repo", owner, name };
}

export function nextRequest(text: string): NextRequest | Answer {
  const raw = json(text);
  if (isAnswer(raw)) return raw;
  const parsed = nextBody.safeParse(raw);
  if (!parsed.success) return invalid(parsed.error);
  const b = parsed.data;
  let ttl: number | null = null;
  if (b.ttl !== undefined && b.ttl !== null) {
    ttl = parseDuration(b.ttl.trim());
    if (ttl === null) return errorAnswer(422, "invalid_ttl", `\`ttl\` is not a duration; use ${DURATION_FORMS}, or leave it out for the repository's default.`);
  }
  const filter: ReadyFilter = {
    ...(b.labels ? { labels: b.labels } : {}),
    ...(b.any_labels ? { anyLabels: b.any_labels } : {}),
    ...(b.exclude_labels ? { excludeLabels: b.exclude_labels } : {}),
    ...(b.milestone !== undefined ? { milestone: b.milestone } : {}),
    ...(b.order ? { order: b.order } : {}),
    assignee: b.assignee ?? "none_or_me",
    noOpenPull: !(b.include_with_pulls ?? false),
    notBlocked: !(b.include_blocked ?? false),
  };
  return { filter, ttl, ...(b.instance ? { instance: b.instance } : {}) };
}
