/**
 * Runs a plan (plan.ts) on PostgreSQL, inside the caller's READ COMMITTED
 * transaction, in as few round trips as it can: a read (or a lock) is sent
 * when the plan asks for it, and the writes asked for since the last read
 * wait and go with the next read's turn, or at the end, as one statement of
 * data-modifying CTEs. The CTEs of one statement run in no set order, so a
 * second effect of the same batch gets a statement of its own, after: an
 * issue's effects apply in the order of their ids. Lease events wait for the
 * end, after every other write: their statement is the transaction's last
 * (events.ts says why).
 */
import type pg from "pg";
import { leaseOfRow, type LiveLeaseRow, ruleRow, type StateRowFields } from "../leases/lease-rows.js";
import { type EventWrite, type IssueRow, type LeaseWrite, type Plan, type Step, WRITES } from "../plan.js";
import type { IssueKey } from "../leases/lease-types.js";
import { pullsColumn, workOf } from "../work/work-rules.js";
import { combineWrites, type Outcome, statement, type Statement } from "./connection.js";
import type { PostgresEvents } from "./events.js";
import type { PostgresOutbox } from "./outbox.js";
import { limitSql, planStatements } from "./plan-statements.js";
import { placeOfRow, type PlaceRow } from "../queue/queue-types.js";

type Client = pg.PoolClient;
type Row = StateRowFields<boolean> & { issue: number; last_history: number | null; next_history: number; token_floor?: number };

/** The history ids a plan's locks reserved, by issue, until its history rows take them. */
class Reserved {
  private readonly ids = new Map<string, number | "taken">();

  keep(repoId: number, row: Row): void {
    this.ids.set(`${repoId}/${row.issue}`, row.next_history);
  }

  /**
   * The id of `key`'s history row, or `again` for a second row of an issue
   * whose reserved id is taken (a handoff: the ending's row, then the new
   * tenure's): a plan appends only to an issue it locked.
   */
  take(key: IssueKey): number | "again" {
    const name = `${key.repoId}/${key.issue}`;
    const id = this.ids.get(name);
    if (id === undefined) throw new Error(`no history id reserved for ${key.repo}#${key.issue}: its row was not locked`);
    this.ids.set(name, "taken");
    return id === "taken" ? "again" : id;
  }
}

export class PostgresPlans {
  private readonly sql;
  private readonly limits;

  /**
   * `s`: the quoted schema; `schema`: its name, which the advisory locks'
   * names carry; `events` null (`events: false`): the `event` step writes nothing.
   */
  constructor(
    s: string,
    private readonly schema: string,
    private readonly outbox: PostgresOutbox,
    private readonly events: PostgresEvents | null,
  ) {
    this.limits = { counted: limitSql(s, true), notInReview: limitSql(s, false) };
    this.sql = planStatements(s);
  }

  /**
   * Runs `plan` on `c`, the caller's transaction. A redelivery (its delivery id
   * taken) rolls back: nothing of it is kept.
   */
  async run<T>(c: Client, plan: Plan<T>): Promise<Outcome<T>> {
    const waiting: Statement[] = [];
    const reserved = new Reserved();
    const events: EventWrite[] = [];
    let effectWaiting = false;
    let rollback = false;
    const flush = async (): Promise<void> => {
      if (waiting.length === 0) return;
      const all = combineWrites(waiting.splice(0));
      effectWaiting = false;
      await c.query(all.text, all.values);
    };
    let next = plan.next();
    while (!next.done) {
      const step = next.value;
      let answer: unknown;
      if (step.op === "event") {
        if (this.events) events.push(step.event);
      } else if (WRITES.has(step.op)) {
        if (step.op === "enqueue" && effectWaiting) await flush();
        // A history row's id is the one its issue's lock reserved (or one drawn now, under that lock): the writes after it name it.
        let id = step.op === "history" ? reserved.take(step.row.key) : undefined;
        if (id === "again") id = (await c.query<{ id: number }>(this.sql.nextHistory)).rows[0]!.id;
        waiting.push(...this.writes(step, id));
        if (step.op === "enqueue") effectWaiting = true;
        answer = id;
      } else {
        await flush();
        answer = await this.read(c, step, reserved);
        if (step.op === "delivery" && answer !== null) rollback = true;
      }
      next = plan.next(answer);
    }
    await flush();
    if (rollback) return { value: next.value, rollback };
    if (events.length > 0) for (const st of this.events!.writes(events)) await c.query(st.text, st.values);
    return { value: next.value };
  }

  private async read(c: Client, s: Step, reserved: Reserved): Promise<unknown> {
    switch (s.op) {
      case "delivery": {
        // First, so that a replica handling the same delivery at the same time
        // waits here on our uncommitted row (unique index), then sees the conflict.
        const claimed = await c.query(this.sql.claimDelivery, [s.id, s.now]);
        if ((claimed.rowCount ?? 0) > 0) return null;
        const { rows } = await c.query<{ result: string }>(this.sql.getDelivery, [s.id]);
        return JSON.parse(rows[0]!.result) as unknown;
      }
      case "serialize":
        for (const [name, key] of s.locks) await c.query(this.sql.lock, [`${this.schema}/${name}`, key]);
        return undefined;
      case "row": {
        // An issue never seen gets a free row with token 0 first, so that two
        // first claims have a row to queue on; it reads exactly like no row.
        const text = s.floor ? this.sql.lockRowFloor : this.sql.lockRow;
        const args = [s.key.repoId, s.key.issue];
        let found = (await c.query<Row>(text, args)).rows[0];
        if (!found) {
          await c.query(this.sql.insertFree, [...args, s.key.repo, s.now]);
          found = (await c.query<Row>(text, args)).rows[0];
        }
        // Always there now (the free row just made, or one made at once by another transaction, which we waited on).
        if (!found) throw new Error(`no row for ${s.key.repo}#${s.key.issue} after inserting it`);
        reserved.keep(s.key.repoId, found);
        return { ...issueRow(found), floor: found.token_floor ?? 0 };
      }
      case "rows": {
        const issues = [...new Set(s.issues)];
        if (issues.length === 0) return [];
        const { rows } = await c.query<Row>(this.sql.lockRows, [s.repoId, issues]);
        for (const r of rows) reserved.keep(s.repoId, r);
        return rows.map((r) => ({ issue: r.issue, ...issueRow(r) }));
      }
      case "held": {
        const text = (s.countInReview ? this.limits.counted : this.limits.notInReview)[s.kind];
        const extra = s.kind === "label" ? [s.label] : s.kind === "org" ? [s.installation] : [];
        const { rows } = await c.query<LiveLeaseRow>(text, [s.key.repoId, s.holderId, s.key.issue, s.now, ...extra]);
        return rows.length >= s.limit ? rows.map(leaseOfRow) : null;
      }
      case "pullsOf":
        return (await c.query<{ pull: number }>(this.sql.linksOf, [s.repoId, s.issue, s.authorId])).rows.map((r) => r.pull);
      case "closedBy":
        return (await c.query<{ issue: number }>(this.sql.closedBy, [s.repoId, s.pull])).rows.map((r) => r.issue);
      case "replies":
        return (await c.query<{ n: number; top: number | null }>(this.sql.replies, [s.repoId, s.actorId, s.since])).rows[0]!;
      case "queue":
        return (await c.query<PlaceRow>(this.sql.line, [s.key.repoId, s.key.issue])).rows.map(placeOfRow);
      default:
        throw new Error(`not a read: ${s.op}`);
    }
  }

  /** The statements of write step `s`; `id`: a history row's reserved id. */
  private writes(s: Step, id?: number): Statement[] {
    switch (s.op) {
      case "history": {
        const { key, actor, lease, ...h } = s.row;
        return [
          statement(this.sql.history, [
            id,
            h.prev,
            key.repoId,
            key.repo,
            key.issue,
            h.op,
            h.outcome,
            actor?.id ?? null,
            actor?.login ?? null,
            lease?.holder.id ?? null,
            lease?.holder.login ?? null,
            lease ? lease.token : null,
            lease ? lease.expiresAt : null,
            h.at,
            h.delivery,
            h.replied,
            actor?.instance ?? null,
            lease?.holder.instance ?? null,
          ]),
        ];
      }
      case "putLease": {
        // The row exists (the row step made it): a new tenure and the same one carrying on are one UPDATE.
        const { key, lease } = s.write;
        return [
          statement(this.sql.putLease, [
            key.repoId,
            key.issue,
            key.repo,
            lease.holder.id,
            lease.holder.login,
            lease.token,
            lease.acquiredAt,
            lease.expiresAt,
            s.now,
            s.write.remindAt,
            ...work(s.write),
            lease.holder.instance ?? null,
            s.write.lastHistory,
          ]),
        ];
      }
      case "followLease": {
        const { key, lease } = s.write;
        const args = [key.repoId, key.issue, lease.expiresAt, s.write.remindAt, ...work(s.write), s.now, s.write.lastHistory];
        return [statement(this.sql.followLease, args)];
      }
      case "freeLease":
        return [statement(this.sql.free, [s.key.repoId, s.key.issue, s.now, s.lastHistory])];
      case "markReminded":
        return [statement(this.sql.markReminded, [s.key.repoId, s.key.issue, s.now, s.lastHistory])];
      case "setHead":
        // The row step always leaves a row (a free one at least); history_heads only for an issue without.
        return [statement(s.rowExists ? this.sql.lastHistory : this.sql.putHead, [s.key.repoId, s.key.issue, s.id])];
      case "dropHead":
        return [statement(this.sql.dropHead, [s.key.repoId, s.key.issue])];
      case "rememberLabels":
        return [statement(this.sql.rememberLabels, [s.key.repoId, s.key.issue, s.labels, s.token])];
      case "relink":
        return [
          ...(s.remove.length > 0 ? [statement(this.sql.unlink, [s.repoId, s.pull, s.remove])] : []),
          ...(s.add.length > 0 ? [statement(this.sql.link, [s.repoId, s.pull, s.add, s.authorId])] : []),
        ];
      case "putDelivery":
        return [statement(this.sql.putDelivery, [s.id, s.result])];
      case "freeDelivery":
        // The `delivery` step claimed it with an empty row: gone, a transaction waiting on it claims it in turn.
        return [statement(this.sql.freeDelivery, [s.id])];
      case "putPlace": {
        const { place: p } = s;
        if (p.id !== undefined) return [statement(this.sql.renewPlace, [p.id, p.holder.login, p.until, p.ttl, p.remindBefore, s.now])];
        const { repoId, issue } = s.key;
        const holder = [p.holder.id, p.holder.login, p.holder.instance ?? null, p.authorFirst];
        return [statement(this.sql.addPlace, [repoId, issue, ...holder, s.now, p.until, p.ttl, p.remindBefore])];
      }
      case "endPlaces":
        return [statement(this.sql.endPlaces, [s.ids, s.now, s.why])];
      case "enqueue":
        return this.outbox.enqueue(s.repoId, s.issue, s.effect, s.now);
      default:
        throw new Error(`not a write: ${s.op}`);
    }
  }
}

/** What holds a lease, as its row's columns (pulls, exempt, term_ms). */
function work(w: LeaseWrite): [string | null, boolean, number | null] {
  return [pullsColumn(w.lease.heldBy), workOf(w.lease.heldBy).exempt, w.termMs];
}

function issueRow(found: Row): IssueRow {
  return { rule: ruleRow(found), exists: true, head: found.last_history };
}
