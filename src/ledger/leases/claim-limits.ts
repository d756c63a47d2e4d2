/**
 * The claim limits (a holder's leases in the repository, under a label,
 * across the organisation): what counts toward each, in one place for every
 * limit and both stores (sqlite/policies.ts and postgres/plan-statements.ts
 * build their queries from `countsTowardLimits`, so that a rule about which
 * leases count, a lease in review say, is written once and bears on every
 * limit), which limits bear on a claim, and an acquire's part of them (the
 * locks it takes, the first limit it meets), written once as plan steps.
 */
import { inReviewSql } from "../work/in-review.js";
import { ask, type Step } from "../plan.js";
import type { AcquireOptions, ClaimPolicies } from "./lease-roles.js";
import type { Holder, IssueKey, Lease, LimitScope } from "./lease-types.js";
import { liveSql } from "./tenure-rules.js";

/**
 * The SQL condition a row of `leases` (aliased `lease`) meets when it counts
 * toward a limit at `now` (an SQL expression): a live lease, and when
 * `countInReview` is false (the config's `count_in_review`) one not in
 * review (in-review.ts).
 */
export function countsTowardLimits(lease: string, now: string, countInReview = true): string {
  const live = liveSql(now, lease);
  return countInReview ? live : `${live} AND NOT (${inReviewSql(lease)})`;
}

/** GitHub's label names ignore case: the ledger keeps them lower-cased (and trimmed). */
export function labelKey(label: string): string {
  return label.trim().toLowerCase();
}

/** A claim's labels to remember: distinct keys, at most GitHub's 100 labels per issue. */
export function labelKeys(policies: ClaimPolicies | undefined): string[] {
  return [...new Set((policies?.labels ?? []).map(labelKey).filter((key) => key !== ""))].slice(0, 100);
}

/** The label limits that bear on a claim: those over 0 of labels the issue carries, in the config's order. */
export function labelLimits(policies: ClaimPolicies | undefined): Array<{ label: string; key: string; limit: number }> {
  const carried = new Set(labelKeys(policies));
  return (policies?.byLabel ?? [])
    .filter((l) => l.limit > 0 && carried.has(labelKey(l.label)))
    .map((l) => ({ label: l.label, key: labelKey(l.label), limit: l.limit }));
}

/** Whether an acquire must check any limit at all (and, on PostgreSQL, take the holder's lock). */
export function limitsApply(maxPerHolder: number, policies: ClaimPolicies | undefined): { repo: boolean; org: boolean } {
  return {
    repo: maxPerHolder > 0 || labelLimits(policies).length > 0,
    org: (policies?.org?.limit ?? 0) > 0,
  };
}

/** The lock a holder's commands in a repository share (the reply limit's, and the repository's claim limits'). */
export function holderLock(key: IssueKey, holder: Holder): [string, string] {
  return ["holder", `${key.repoId}/${holder.id}`];
}

/**
 * The locks an acquire takes before its row, always in this order so that no
 * two acquires wait on each other: the holder's across the installation
 * (`max_leases_per_holder_in_org`), then in the repository.
 */
export function claimLocks(key: IssueKey, holder: Holder, maxPerHolder: number, policies?: ClaimPolicies): Array<[string, string]> {
  const applies = limitsApply(maxPerHolder, policies);
  const locks: Array<[string, string]> = [];
  if (applies.org) locks.push(["org-holder", `${policies!.org!.installation}/${holder.id}`]);
  if (applies.repo || applies.org) locks.push(holderLock(key, holder));
  return locks;
}

/** A limit the holder is at: the leases that count toward it, and which limit it is (absent: the repository's). */
export interface LimitReached {
  limit: number;
  held: Lease[];
  scope?: LimitScope;
}

/**
 * The first limit the holder is at, for a new tenure of `key`: the
 * repository's, then each label's, then the organisation's. Null when under
 * them all. Leases in review count unless `countInReview` is false.
 */
export function* limitReached(key: IssueKey, holder: Holder, now: number, opts: AcquireOptions | undefined): Generator<Step, LimitReached | null, unknown> {
  const policies = opts?.policies;
  const base = { op: "held" as const, key, holderId: holder.id, now, countInReview: opts?.countInReview ?? true };
  const maxPerHolder = opts?.maxPerHolder ?? 0;
  if (maxPerHolder > 0) {
    const held = yield* ask({ ...base, kind: "repo", limit: maxPerHolder });
    if (held) return { limit: maxPerHolder, held };
  }
  for (const { label, key: labelKey, limit } of labelLimits(policies)) {
    const held = yield* ask({ ...base, kind: "label", limit, label: labelKey });
    if (held) return { limit, held, scope: { kind: "label", label } };
  }
  const org = policies?.org;
  if (org !== undefined && org.limit > 0) {
    const held = yield* ask({ ...base, kind: "org", limit: org.limit, installation: org.installation });
    if (held) return { limit: org.limit, held, scope: { kind: "org" } };
  }
  return null;
}
