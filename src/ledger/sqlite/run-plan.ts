/**
 * Runs a plan (plan.ts) on SQLite: each step one prepared statement (or none),
 * synchronously, inside the caller's BEGIN IMMEDIATE transaction (or a
 * savepoint of a group commit): better-sqlite3 cannot await inside one.
 */
import type Database from "better-sqlite3";
import { ruleRow } from "../leases/lease-rows.js";
import type { IssueRow, LeaseWrite, Plan, Step } from "../plan.js";
import { leaseStatements, type LeaseStatements } from "./lease-statements.js";
import type { SqliteEvents } from "./events.js";
import type { SqliteOutbox } from "./outbox.js";
import { SqlitePolicies } from "./policies.js";
import { placeOfRow } from "../queue/queue-types.js";
import { queueStatements, type QueueStatements } from "./queue-statements.js";
import { workStatements, type WorkStatements } from "./work.js";
import { pullsColumn, workOf } from "../work/work-rules.js";

export class SqlitePlans {
  readonly st: LeaseStatements;
  readonly work: WorkStatements;
  readonly queue: QueueStatements;
  private readonly policies: SqlitePolicies;

  constructor(
    db: Database.Database,
    private readonly outbox: SqliteOutbox,
    private readonly events: SqliteEvents,
  ) {
    this.st = leaseStatements(db);
    this.work = workStatements(db);
    this.queue = queueStatements(db);
    this.policies = new SqlitePolicies(db);
  }

  /** Runs `plan` to its end; the caller holds the transaction. */
  run<T>(plan: Plan<T>): T {
    let next = plan.next();
    while (!next.done) next = plan.next(this.step(next.value));
    return next.value;
  }

  private issueRow(repoId: number, issue: number): (IssueRow & { issue: number }) | null {
    const state = this.st.get.get(repoId, issue);
    return state ? { issue, rule: ruleRow(state), exists: true, head: state.last_history } : null;
  }

  private leaseParams(w: LeaseWrite, now: number) {
    const { key, lease } = w;
    return {
      repoId: key.repoId,
      issue: key.issue,
      repo: key.repo,
      holderId: lease.holder.id,
      holderLogin: lease.holder.login,
      holderInstance: lease.holder.instance ?? null,
      token: lease.token,
      acquiredAt: lease.acquiredAt,
      expiresAt: lease.expiresAt,
      remindAt: w.remindAt,
      now,
      lastHistory: w.lastHistory,
      pulls: pullsColumn(lease.heldBy),
      exempt: workOf(lease.heldBy).exempt ? 1 : 0,
      termMs: w.termMs,
    };
  }

  private step(s: Step): unknown {
    switch (s.op) {
      case "delivery": {
        const seen = this.st.getDelivery.get(s.id);
        return seen ? (JSON.parse(seen.result) as unknown) : null;
      }
      case "serialize":
        // One connection writes the file: BEGIN IMMEDIATE already serialises every transaction.
        return undefined;
      case "row": {
        const found = this.issueRow(s.key.repoId, s.key.issue);
        const floor = s.floor ? (this.st.tokenFloor.get() ?? 0) : 0;
        // An issue never held has no row: history_heads names its latest history row.
        if (found) return { ...found, floor };
        return { rule: null, exists: false, head: this.st.historyHead.get(s.key.repoId, s.key.issue) ?? null, floor };
      }
      case "rows":
        return [...new Set(s.issues)]
          .sort((a, b) => a - b)
          .map((issue) => this.issueRow(s.repoId, issue))
          .filter((row) => row !== null);
      case "held":
        return this.policies.held(s.kind, s.countInReview, {
          repoId: s.key.repoId,
          holderId: s.holderId,
          issue: s.key.issue,
          now: s.now,
          ...(s.label !== undefined ? { label: s.label } : {}),
          ...(s.installation !== undefined ? { installation: s.installation } : {}),
        }, s.limit);
      case "pullsOf":
        return this.work.linksOf.all(s.repoId, s.issue, s.authorId);
      case "closedBy":
        return this.work.closedBy.all(s.repoId, s.pull);
      case "queue":
        return this.queue.line.all({ repoId: s.key.repoId, issue: s.key.issue }).map(placeOfRow);
      case "replies":
        return this.st.replies.get({ repoId: s.repoId, actorId: s.actorId, since: s.since })!;
      case "history": {
        const { key, actor, lease, ...h } = s.row;
        const { lastInsertRowid } = this.st.history.run({
          repoId: key.repoId,
          repo: key.repo,
          issue: key.issue,
          op: h.op,
          outcome: h.outcome,
          actorId: actor?.id ?? null,
          actorLogin: actor?.login ?? null,
          actorInstance: actor?.instance ?? null,
          holderId: lease?.holder.id ?? null,
          holderLogin: lease?.holder.login ?? null,
          holderInstance: lease?.holder.instance ?? null,
          token: lease ? lease.token : null,
          expiresAt: lease ? lease.expiresAt : null,
          at: h.at,
          delivery: h.delivery,
          prev: h.prev,
          replied: h.replied,
        });
        return Number(lastInsertRowid);
      }
      case "putLease": {
        // The same tenure carrying on: not naming holder_id leaves leases_held untouched.
        const { holderId: _id, holderInstance: _instance, token: _token, acquiredAt: _at, ...extend } = this.leaseParams(s.write, s.now);
        if (s.newTenure) this.st.upsert.run(this.leaseParams(s.write, s.now));
        else this.st.extend.run(extend);
        return undefined;
      }
      case "followLease": {
        const { repoId, issue, expiresAt, remindAt, pulls, exempt, termMs, now, lastHistory } = this.leaseParams(s.write, s.now);
        this.work.write.run({ repoId, issue, expiresAt, remindAt, pulls, exempt, termMs, now, lastHistory });
        return undefined;
      }
      case "freeLease":
        this.st.free.run({ repoId: s.key.repoId, issue: s.key.issue, now: s.now, lastHistory: s.lastHistory });
        return undefined;
      case "markReminded":
        this.st.markReminded.run({ repoId: s.key.repoId, issue: s.key.issue, now: s.now, lastHistory: s.lastHistory });
        return undefined;
      case "setHead": {
        const head = { repoId: s.key.repoId, issue: s.key.issue, id: s.id };
        if (s.rowExists) this.st.setLastHistory.run(head);
        else this.st.putHistoryHead.run(head);
        return undefined;
      }
      case "dropHead":
        this.st.dropHistoryHead.run(s.key.repoId, s.key.issue);
        return undefined;
      case "rememberLabels":
        this.policies.remember(s.key, s.token, s.labels);
        return undefined;
      case "relink":
        for (const issue of s.remove) this.work.unlink.run({ repoId: s.repoId, pull: s.pull, issue });
        for (const issue of s.add) this.work.link.run({ repoId: s.repoId, pull: s.pull, issue, authorId: s.authorId });
        return undefined;
      case "putDelivery":
        this.st.putDelivery.run(s.id, s.result, s.now);
        return undefined;
      case "freeDelivery":
        // The `delivery` step only read it.
        return undefined;
      case "putPlace": {
        const { place } = s;
        const fields = { holderLogin: place.holder.login, until: place.until, ttlMs: place.ttl, remindMs: place.remindBefore, now: s.now };
        if (place.id !== undefined) this.queue.renew.run({ ...fields, id: place.id });
        else {
          const { repoId, issue } = s.key;
          const holder = { holderId: place.holder.id, holderInstance: place.holder.instance ?? null, authorFirst: place.authorFirst ? 1 : 0 };
          this.queue.add.run({ ...fields, ...holder, repoId, issue });
        }
        return undefined;
      }
      case "endPlaces":
        for (const id of s.ids) this.queue.end.run({ id, why: s.why, now: s.now });
        return undefined;
      case "enqueue":
        this.outbox.enqueue(s.repoId, s.issue, [s.effect], s.now);
        return undefined;
      case "event":
        this.events.write(s.event);
        return undefined;
    }
  }
}
