/**
 * Leases that follow the work, on SQLite (migration 13): which open pull
 * requests close which issues (`pull_links`), the leases they hold, the
 * holder's activity that renews a lease, and exempt labels. The rules are
 * work-rules.ts's; every function here runs inside the caller's IMMEDIATE
 * transaction (sqlite.ts), except `mayRenew`, a read.
 */
import type Database from "better-sqlite3";
import { decide } from "../decide.js";
import { ruleRow, type StateRowFields } from "../lease-rows.js";
import type { Applied, Holder, IssueKey, Lease } from "../types.js";
import type { ActivityPolicy, ActivityResult, ExemptOptions, ExemptResult, Followed, LinkPullOptions, LinkPullResult } from "../work-types.js";
import {
  followExempt,
  followPulls,
  heldByWork,
  pullsColumn,
  remindAtFor,
  renewedByActivity,
  workOf,
} from "../work-rules.js";

/** Live, as lease-statements.ts reads it: held, and no expiry or one ahead. */
const LIVE = "holder_id IS NOT NULL AND (expires_at IS NULL OR expires_at > @now)";

interface WorkRow extends StateRowFields<number> {
  repo: string;
  last_history: number | null;
}



export class SqliteWork {
  private readonly st;

  constructor(db: Database.Database) {
    this.st = {
      row: db.prepare<[number, number], WorkRow>(
        `SELECT repo, holder_id, holder_login, holder_instance, token, acquired_at, expires_at, reminded, last_history, pulls, exempt, term_ms
         FROM leases WHERE repo_id = ? AND issue = ?`,
      ),
      // Through pull_links_by_issue: the holder's open pull requests that close the issue.
      linksOf: db.prepare<[number, number, number], number>("SELECT pull FROM pull_links WHERE repo_id = ? AND issue = ? AND author_id = ? ORDER BY pull").pluck(),
      // By the primary key's prefix: the issues a pull request closes.
      closedBy: db.prepare<[number, number], number>("SELECT issue FROM pull_links WHERE repo_id = ? AND pull = ? ORDER BY issue").pluck(),
      link: db.prepare(
        `INSERT INTO pull_links (repo_id, pull, issue, author_id) VALUES (@repoId, @pull, @issue, @authorId)
         ON CONFLICT (repo_id, pull, issue) DO UPDATE SET author_id = excluded.author_id`,
      ),
      unlink: db.prepare("DELETE FROM pull_links WHERE repo_id = @repoId AND pull = @pull AND issue = @issue"),
      // What the work decided: the same tenure, its expiry and reminder, and what holds it.
      write: db.prepare(
        `UPDATE leases SET expires_at = @expiresAt, remind_at = @remindAt, reminded = 0, pulls = @pulls, exempt = @exempt,
           term_ms = @termMs, updated_at = @now, last_history = @lastHistory
         WHERE repo_id = @repoId AND issue = @issue`,
      ),
      history: db.prepare(
        `INSERT INTO history (repo_id, repo, issue, op, outcome, actor_id, actor_login, actor_instance, holder_id, holder_login, holder_instance,
           token, expires_at, at, delivery, prev)
         VALUES (@repoId, @repo, @issue, 'follow', @outcome, @actorId, @actorLogin, @actorInstance, @holderId, @holderLogin, @holderInstance,
           @token, @expiresAt, @at, @delivery, @prev)`,
      ),
      enqueue: db.prepare(
        `INSERT INTO outbox (repo_id, issue, installation, kind, payload, next_at, created_at, priority, nonce)
         VALUES (@repoId, @issue, @installation, @kind, @payload, @now, @now, @priority, lower(hex(randomblob(12))))`,
      ),
      getDelivery: db.prepare<[string], { result: string }>("SELECT result FROM deliveries WHERE id = ?"),
      putDelivery: db.prepare("INSERT INTO deliveries (id, result, at) VALUES (?, ?, ?)"),
      // What every comment by anyone costs when it is no command: through
      // leases_held (repo_id, holder_id), the actor's leases in the
      // repository that time holds, on the issue or on one the pull request
      // closes. An index probe, and no write.
      mayRenew: db
        .prepare<{ repoId: number; holderId: number; issue: number; now: number }, number>(
          `SELECT 1 FROM leases INDEXED BY leases_held
           WHERE repo_id = @repoId AND holder_id = @holderId AND ${LIVE} AND expires_at IS NOT NULL
             AND (issue = @issue OR issue IN (SELECT issue FROM pull_links WHERE repo_id = @repoId AND pull = @issue))
           LIMIT 1`,
        )
        .pluck(),
    };
  }

  /**
   * A claim's lease as its work holds it: the holder's open pull requests
   * that close the issue (read now, so that one opened before the claim
   * counts), and the exempt label the claim's webhook showed (kept from the
   * row when not given, for the same tenure).
   */
  claimed(key: IssueKey, lease: Lease, newTenure: boolean, exempt: boolean | undefined): Lease {
    const pulls = this.st.linksOf.all(key.repoId, key.issue, lease.holder.id);
    return heldByWork(lease, { pulls, exempt: exempt ?? (newTenure ? false : workOf(lease.heldBy).exempt) });
  }

  linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): LinkPullResult {
    const repoId = pull.repoId;
    const before = this.st.closedBy.all(repoId, pull.issue);
    const wanted = [...new Set(issues)].filter((i) => i > 0 && i !== pull.issue);
    for (const issue of before) if (!wanted.includes(issue)) this.st.unlink.run({ repoId, pull: pull.issue, issue });
    for (const issue of wanted) this.st.link.run({ repoId, pull: pull.issue, issue, authorId: author.id });

    const start = Math.min(opts.at ?? now, now);
    const changed: Followed[] = [];
    for (const issue of [...new Set([...before, ...wanted])].sort((a, b) => a - b)) {
      const key = { repoId, repo: pull.repo, issue };
      const state = this.st.row.get(repoId, issue);
      const current = decide.live(key, ruleRow(state), now);
      // A pull request holds only its author's lease.
      if (!state || !current || current.holder.id !== author.id) continue;
      const followed = followPulls(current, this.st.linksOf.all(repoId, issue, author.id), opts.resume, start);
      if (!followed) continue;
      const resumedTerm = followed.change === "resumed" ? opts.resume : null;
      this.store(key, state, followed, author, now, null, resumedTerm ? resumedTerm.ttl : state.term_ms, resumedTerm?.remindBefore ?? null);
      changed.push(followed);
    }
    this.enqueue(repoId, now, opts.effects?.(changed) ?? []);
    return { outcome: "linked", changed };
  }

  /** Whether `actor` holds a lease their activity on `key` could renew (a read, outside any transaction). */
  mayRenew(key: IssueKey, actor: Holder, now: number): boolean {
    return this.st.mayRenew.get({ repoId: key.repoId, holderId: actor.id, issue: key.issue, now }) !== undefined;
  }

  renewOnActivity(key: IssueKey, actor: Holder, now: number, policy: ActivityPolicy, delivery: string | undefined): Applied<ActivityResult> {
    if (delivery !== undefined) {
      const seen = this.st.getDelivery.get(delivery);
      if (seen) return { ...(JSON.parse(seen.result) as ActivityResult), duplicate: true };
    }
    const renewed: Lease[] = [];
    const issues = [...new Set([key.issue, ...this.st.closedBy.all(key.repoId, key.issue)])].sort((a, b) => a - b);
    for (const issue of issues) {
      const k = { ...key, issue };
      const state = this.st.row.get(key.repoId, issue);
      const current = decide.live(k, ruleRow(state), now);
      const r = current && renewedByActivity(current, actor.id, state?.term_ms, policy.fallbackTtl, now);
      if (!state || !r) continue;
      this.store(k, state, { change: "renewed", lease: r.lease }, actor, now, delivery ?? null, r.termMs, policy.remindBefore);
      renewed.push(r.lease);
    }
    const result: ActivityResult = { outcome: renewed.length > 0 ? "renewed" : "none", renewed };
    if (delivery !== undefined) this.st.putDelivery.run(delivery, JSON.stringify(result), now);
    return { ...result, duplicate: false };
  }

  setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Applied<ExemptResult> {
    if (opts.delivery !== undefined) {
      const seen = this.st.getDelivery.get(opts.delivery);
      if (seen) return { ...(JSON.parse(seen.result) as ExemptResult), duplicate: true };
    }
    const state = this.st.row.get(key.repoId, key.issue);
    const current = decide.live(key, ruleRow(state), now);
    const followed = current && followExempt(current, exempt, opts.resume, now);
    let result: ExemptResult = { outcome: "unchanged", lease: current };
    if (state && followed) {
      const resumed = followed.change === "resumed";
      const term = resumed ? opts.resume.ttl : state.term_ms;
      this.store(key, state, followed, actor, now, opts.delivery ?? null, term, resumed ? opts.resume.remindBefore : null);
      result = { outcome: resumed ? "resumed" : "suspended", lease: followed.lease };
    }
    if (opts.delivery !== undefined) this.st.putDelivery.run(opts.delivery, JSON.stringify(result), now);
    return { ...result, duplicate: false };
  }

  /** Writes a lease the work changed, and its `follow` history row (which the row then names as its latest). */
  private store(
    key: IssueKey,
    state: WorkRow,
    followed: Followed,
    actor: Holder,
    now: number,
    delivery: string | null,
    termMs: number | null,
    remindBefore: number | null,
  ): void {
    const { lease } = followed;
    const { lastInsertRowid } = this.st.history.run({
      repoId: key.repoId,
      repo: key.repo,
      issue: key.issue,
      outcome: followed.change,
      actorId: actor.id,
      actorLogin: actor.login,
      actorInstance: actor.instance ?? null,
      holderId: lease.holder.id,
      holderLogin: lease.holder.login,
      holderInstance: lease.holder.instance ?? null,
      token: lease.token,
      expiresAt: lease.expiresAt,
      at: now,
      delivery,
      prev: state.last_history,
    });
    this.st.write.run({
      repoId: key.repoId,
      issue: key.issue,
      expiresAt: lease.expiresAt,
      remindAt: remindAtFor(lease.expiresAt, termMs, remindBefore),
      pulls: pullsColumn(lease.heldBy),
      exempt: workOf(lease.heldBy).exempt ? 1 : 0,
      termMs,
      now,
      lastHistory: Number(lastInsertRowid),
    });
  }

  private enqueue(repoId: number, now: number, effects: Array<{ issue: number; installation: number; kind: string; payload: unknown; priority?: number }>): void {
    for (const e of effects) {
      this.st.enqueue.run({
        repoId,
        issue: e.issue,
        installation: e.installation,
        kind: e.kind,
        payload: JSON.stringify(e.payload),
        now,
        priority: e.priority ?? 0,
      });
    }
  }
}
