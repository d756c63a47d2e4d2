/**
 * The claim limits on SQLite, read in the acquire's BEGIN IMMEDIATE
 * transaction (so two claims never both pass a limit): the holder's leases in
 * the repository (`max_leases_per_holder`), under a label (`limits_by_label`),
 * and across the repositories of an installation
 * (`max_leases_per_holder_in_org`). What counts is leases/claim-limits.ts's.
 *
 * Which limits apply, in which order, is lease-plans.ts's. Each limit is
 * counted first, through an index; only a holder at a limit has their leases
 * read, for the refusal to list them.
 */
import type Database from "better-sqlite3";
import { leaseOfRow, type LiveLeaseRow } from "../leases/lease-rows.js";
import { countsTowardLimits } from "../leases/claim-limits.js";
import type { LimitKind } from "../plan.js";
import type { IssueKey, Lease } from "../leases/lease-types.js";

type LeaseRow = LiveLeaseRow;

export type Params = { repoId: number; holderId: number; issue: number; now: number; label?: string; installation?: number };

/** The limits' FROM clauses, counting leases in review or not (`count_in_review`). */
function fromClauses(countInReview: boolean) {
  const COUNTED = countsTowardLimits("l", "@now", countInReview);
  // INDEXED BY: left to itself the planner prefers the primary key's
  // (repo_id = ?) prefix and reads every row the repository ever had; rows are
  // never deleted, so that only grows.
  const IN_REPO = `FROM leases l INDEXED BY leases_held
    WHERE l.holder_id = @holderId AND l.repo_id = @repoId AND l.issue <> @issue AND ${COUNTED}`;
  const UNDER_LABEL = `${IN_REPO}
    AND EXISTS (SELECT 1 FROM lease_labels x WHERE x.repo_id = l.repo_id AND x.issue = l.issue AND x.token = l.token AND x.label = @label)`;
  // Every repository of the installation, and this one whether or not it is
  // remembered yet, each probed through leases_held (repo_id, holder_id): the
  // cost grows with the installation's repositories, not with every lease.
  const IN_ORG = `FROM (SELECT @repoId AS repo_id UNION SELECT repo_id FROM repos WHERE installation = @installation) r
    JOIN leases l INDEXED BY leases_held ON l.repo_id = r.repo_id AND l.holder_id = @holderId
    WHERE NOT (l.repo_id = @repoId AND l.issue = @issue) AND ${COUNTED}`;
  return { IN_REPO, UNDER_LABEL, IN_ORG };
}

export class SqlitePolicies {
  private readonly st;

  constructor(db: Database.Database) {
    const pair = (from: string) => ({
      count: db.prepare<Params, number>(`SELECT count(*) ${from}`).pluck(),
      list: db.prepare<Params, LeaseRow>(`SELECT l.* ${from} ORDER BY l.repo, l.repo_id, l.issue`),
    });
    const limits = (countInReview: boolean) => {
      const { IN_REPO, UNDER_LABEL, IN_ORG } = fromClauses(countInReview);
      return { repo: pair(IN_REPO), label: pair(UNDER_LABEL), org: pair(IN_ORG) };
    };
    this.st = {
      counted: limits(true),
      notInReview: limits(false),
      remember: db.prepare<{ repoId: number; issue: number; label: string; token: number }>(
        `INSERT INTO lease_labels (repo_id, issue, label, token) VALUES (@repoId, @issue, @label, @token)
         ON CONFLICT (repo_id, issue, label) DO UPDATE SET token = excluded.token`,
      ),
    };
  }

  /** The leases counting toward a limit of `kind` when there are at least `limit` (counted first, through an index), else null. */
  held(kind: LimitKind, countInReview: boolean, p: Params, limit: number): Lease[] | null {
    const statements = (countInReview ? this.st.counted : this.st.notInReview)[kind];
    if (statements.count.get(p)! < limit) return null;
    return statements.list.all(p).map(leaseOfRow);
  }

  /** Remembers the issue's labels (keys) with its new tenure `token`. */
  remember(key: IssueKey, token: number, labels: string[]): void {
    for (const label of labels) this.st.remember.run({ repoId: key.repoId, issue: key.issue, label, token });
  }
}
