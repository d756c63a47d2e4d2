/**
 * The claim limits on PostgreSQL, read in the acquire's transaction after
 * the locks that make them race-free: the holder's advisory lock per
 * repository (any limit in the repository: `max_leases_per_holder`,
 * `limits_by_label`) and, before it, per installation
 * (`max_leases_per_holder_in_org`), so two claims by one person never both
 * pass a limit, on any replica. What counts is limit-counting.ts's.
 */
import type pg from "pg";
import { leaseOfRow, type LiveLeaseRow } from "../lease-rows.js";
import { countsTowardLimits, labelKeys, labelLimits, limitsApply } from "../limit-counting.js";
import type { ClaimPolicies, Holder, IssueKey, Lease, LimitScope } from "../types.js";

/** A limit the holder is at: the leases that count toward it, and which limit it is (absent: the repository's). */
export interface LimitReached {
  limit: number;
  held: Lease[];
  scope?: LimitScope;
}

type LeaseRow = LiveLeaseRow;

const toLease = leaseOfRow;

/** The advisory locks an acquire takes before its row lock, in this order (so no two acquires deadlock), as (namespace, key) pairs. */
export function policyLocks(
  schema: string,
  key: IssueKey,
  holder: Holder,
  maxPerHolder: number,
  policies?: ClaimPolicies,
): Array<[string, string]> {
  const applies = limitsApply(maxPerHolder, policies);
  const locks: Array<[string, string]> = [];
  if (applies.org) locks.push([`${schema}/org-holder`, `${policies!.org!.installation}/${holder.id}`]);
  // The same lock as the reply limit's (postgres.ts), so they never wait on each other in the other order.
  if (applies.repo || applies.org) locks.push([`${schema}/holder`, `${key.repoId}/${holder.id}`]);
  return locks;
}

/** The SQL of the limits, in schema `s` (quoted). Parameters: $1 repo_id, $2 holder_id, $3 issue, $4 now, $5 label or installation. */
export function policySql(s: string, countInReview = true) {
  const counted = countsTowardLimits("l", "$4", countInReview);
  const order = "ORDER BY l.repo, l.repo_id, l.issue";
  const inRepo = `SELECT l.* FROM ${s}.leases l WHERE l.holder_id = $2 AND l.repo_id = $1 AND l.issue <> $3 AND ${counted}`;
  return {
    repo: `${inRepo} ${order}`,
    label: `${inRepo}
      AND EXISTS (SELECT 1 FROM ${s}.lease_labels x WHERE x.repo_id = l.repo_id AND x.issue = l.issue AND x.token = l.token AND x.label = $5)
      ${order}`,
    // Every repository of the installation, and this one whether or not it is remembered yet.
    org: `SELECT l.* FROM (SELECT $1::bigint AS repo_id UNION SELECT repo_id FROM ${s}.repos WHERE installation = $5) r
      JOIN ${s}.leases l ON l.repo_id = r.repo_id AND l.holder_id = $2
      WHERE NOT (l.repo_id = $1 AND l.issue = $3) AND ${counted}
      ${order}`,
    remember: `INSERT INTO ${s}.lease_labels (repo_id, issue, label, token)
      SELECT $1, $2, label, $4 FROM unnest($3::text[]) AS label
      ON CONFLICT (repo_id, issue, label) DO UPDATE SET token = EXCLUDED.token`,
  };
}

type PolicySql = ReturnType<typeof policySql>;

/** The limits' statements counting leases in review, and not counting them (`count_in_review: false`). */
export function policySqls(s: string): { counted: PolicySql; notInReview: PolicySql } {
  return { counted: policySql(s, true), notInReview: policySql(s, false) };
}

/** The first limit the holder is at, for a new tenure of `key` (the repository's, each label's, the organisation's); null when under them all. */
export async function limitReached(
  c: pg.PoolClient,
  sqls: { counted: PolicySql; notInReview: PolicySql },
  key: IssueKey,
  holder: Holder,
  now: number,
  maxPerHolder: number,
  policies?: ClaimPolicies,
  countInReview = true,
): Promise<LimitReached | null> {
  const sql = countInReview ? sqls.counted : sqls.notInReview;
  const check = async (text: string, limit: number, extra: unknown[], scope?: LimitScope): Promise<LimitReached | null> => {
    const held = (await c.query<LeaseRow>(text, [key.repoId, holder.id, key.issue, now, ...extra])).rows.map(toLease);
    return held.length >= limit ? { limit, held, ...(scope ? { scope } : {}) } : null;
  };
  if (maxPerHolder > 0) {
    const reached = await check(sql.repo, maxPerHolder, []);
    if (reached) return reached;
  }
  for (const { label, key: labelKey, limit } of labelLimits(policies)) {
    const reached = await check(sql.label, limit, [labelKey], { kind: "label", label });
    if (reached) return reached;
  }
  const org = policies?.org;
  if (org !== undefined && org.limit > 0) return check(sql.org, org.limit, [org.installation], { kind: "org" });
  return null;
}

/** The statement that remembers the issue's labels with its new tenure `token`, or null when it has none. */
export function rememberLabels(sql: PolicySql, key: IssueKey, token: number, policies?: ClaimPolicies): { text: string; values: unknown[] } | null {
  const labels = labelKeys(policies);
  return labels.length === 0 ? null : { text: sql.remember, values: [key.repoId, key.issue, labels, token] };
}
