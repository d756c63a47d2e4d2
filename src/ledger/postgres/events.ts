/**
 * The PostgreSQL ledger's lease events (migration 19): the statement that
 * writes a transaction's events (run-plan.ts sends it last), and the
 * EventLog role's reads, pruning and cursors.
 *
 * Positions follow the order of commits, which a sequence would not: a
 * transaction that drew pos 7 could commit after one that drew pos 8, and a
 * reader that had seen 8 would never read 7. So the events' statement is
 * the transaction's last write, and takes `event_counter`'s one row first:
 * from there to its COMMIT, nothing else writes events, and the next
 * transaction to take the row (after the commit) draws the positions after
 * it. It takes no other lock that anyone else holds while waiting for the
 * counter (its installation's `event_seqs` row is only ever taken under the
 * counter), so no deadlock can form around it. The cost: transactions that
 * write events commit one at a time.
 */
import { createHash } from "node:crypto";
import { EVENT_COLUMNS, type EventRow, EVENTS_PAGE, storedEventOf } from "../events/event-rows.js";
import type { StoredEvent } from "../events/event-types.js";
import type { EventWrite } from "../plan.js";
import type { EventLog } from "../events/event-roles.js";
import type { NewEffect } from "../outbox/outbox-types.js";
import type { PostgresConnection, Statement } from "./connection.js";
import type { PostgresEventWatch } from "./event-watch.js";
import type { PostgresOutbox } from "./outbox.js";

/**
 * The NOTIFY channel of a schema's events: replicas (and tests) may share a
 * database under schemas of their own, and a channel name is at most 63 bytes.
 */
export function eventChannel(schema: string): string {
  return `issue_leases_events_${createHash("sha256").update(schema).digest("hex").slice(0, 24)}`;
}

export class PostgresEvents implements EventLog {
  private readonly sql;

  /** `s`: the quoted schema; `channel`: its NOTIFY channel (eventChannel), which `watch` listens to. */
  constructor(
    s: string,
    private readonly channel: string,
    private readonly db: PostgresConnection,
    private readonly outbox: PostgresOutbox,
    private readonly watch: PostgresEventWatch,
  ) {
    this.sql = {
      // One repository's events of one transaction ($3: its id), numbered in
      // order from the counter ($1 of them), and its installation's sequence.
      // The counter's UPDATE runs (and waits for its lock) before the rest:
      // they read its row. Notified at COMMIT, to every replica's LISTEN.
      write: `WITH c AS (UPDATE ${s}.event_counter SET pos = pos + $1::bigint WHERE id = 1 RETURNING pos - $1::bigint AS base),
               q AS (INSERT INTO ${s}.event_seqs AS q (installation, seq)
                       SELECT COALESCE($2::bigint, (SELECT installation FROM ${s}.repos WHERE repo_id = $3), 0), $1::bigint FROM c
                     ON CONFLICT (installation) DO UPDATE SET seq = q.seq + EXCLUDED.seq
                     RETURNING installation, seq - $1::bigint AS base),
               w AS (INSERT INTO ${s}.events (${EVENT_COLUMNS})
                     SELECT c.base + x.n, q.installation, q.base + x.n, $3, x.repo, x.issue, x.type, x.at, x.holder_id, x.holder_login,
                            x.holder_instance, x.token, x.expires_at, x.actor_id, x.actor_login, x.cause
                     FROM c, q, unnest($4::text[], $5::bigint[], $6::text[], $7::bigint[], $8::bigint[], $9::text[], $10::text[], $11::bigint[],
                                       $12::bigint[], $13::bigint[], $14::text[], $15::text[])
                       WITH ORDINALITY AS x(repo, issue, type, at, holder_id, holder_login, holder_instance, token, expires_at, actor_id, actor_login, cause, n))
               SELECT pg_notify($16, (base + $1::bigint)::text) FROM c`,
      after: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE pos > $1 ORDER BY pos LIMIT $2`,
      afterIn: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE repo_id = ANY($3::bigint[]) AND pos > $1 ORDER BY pos LIMIT $2`,
      since: `SELECT ${EVENT_COLUMNS} FROM ${s}.events WHERE at >= $1 ORDER BY pos LIMIT $2`,
      last: `SELECT pos FROM ${s}.event_counter WHERE id = 1`,
      // As SQLite's: the events before the first one made at or after the time, along the positions (migration 20).
      prune: `DELETE FROM ${s}.events
              WHERE pos < COALESCE((SELECT pos FROM ${s}.events WHERE at >= $1 ORDER BY pos LIMIT 1), (SELECT max(pos) + 1 FROM ${s}.events))`,
      cursor: `SELECT pos FROM ${s}.event_cursors WHERE name = $1`,
      moveCursor: `UPDATE ${s}.event_cursors SET pos = $3 WHERE name = $1 AND pos = $2`,
      // A racer inserting the same name waits on ours, then inserts nothing.
      newCursor: `INSERT INTO ${s}.event_cursors (name, pos) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`,
    };
  }

  /**
   * The statements that write `events` (a transaction's, in order), one per
   * repository and installation given: every plan changes one repository,
   * so nearly always one.
   */
  writes(events: readonly EventWrite[]): Statement[] {
    const groups = new Map<string, EventWrite[]>();
    for (const e of events) {
      const name = `${e.lease.repoId}/${e.installation ?? ""}`;
      const group = groups.get(name);
      if (group) group.push(e);
      else groups.set(name, [e]);
    }
    return [...groups.values()].map((group) => {
      const first = group[0]!;
      const column = <T>(f: (e: EventWrite) => T): T[] => group.map(f);
      return {
        text: this.sql.write,
        values: [
          group.length,
          first.installation,
          first.lease.repoId,
          column((e) => e.lease.repo),
          column((e) => e.lease.issue),
          column((e) => e.type),
          column((e) => e.at),
          column((e) => e.lease.holder.id),
          column((e) => e.lease.holder.login),
          column((e) => e.lease.holder.instance ?? null),
          column((e) => e.lease.token),
          column((e) => e.lease.expiresAt),
          column((e) => e.actor?.id ?? null),
          column((e) => e.actor?.login ?? null),
          column((e) => e.cause),
          this.channel,
        ],
      };
    });
  }

  async eventsAfter(after: number, opts: { limit?: number; repoIds?: readonly number[] } = {}): Promise<StoredEvent[]> {
    const limit = opts.limit ?? EVENTS_PAGE;
    const { rows } = opts.repoIds
      ? await this.db.query<EventRow>(this.sql.afterIn, [after, limit, opts.repoIds])
      : await this.db.query<EventRow>(this.sql.after, [after, limit]);
    return rows.map(storedEventOf);
  }

  async eventsSince(since: number, limit = EVENTS_PAGE): Promise<StoredEvent[]> {
    return (await this.db.query<EventRow>(this.sql.since, [since, limit])).rows.map(storedEventOf);
  }

  /** Every replica's events, heard on the schema's channel (event-watch.ts). */
  watchEvents(listener: () => void): () => void {
    return this.watch.watch(listener);
  }

  async lastEventPos(): Promise<number> {
    return (await this.db.query<{ pos: number }>(this.sql.last, [])).rows[0]?.pos ?? 0;
  }

  async pruneEvents(before: number): Promise<number> {
    return (await this.db.query(this.sql.prune, [before])).rowCount ?? 0;
  }

  async eventCursor(name: string): Promise<number> {
    return (await this.db.query<{ pos: number }>(this.sql.cursor, [name])).rows[0]?.pos ?? 0;
  }

  async advanceEventCursor(name: string, from: number, to: number, effects: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): Promise<boolean> {
    return this.db.transaction(now, async (c, now) => {
      let moved = ((await c.query(this.sql.moveCursor, [name, from, to])).rowCount ?? 0) > 0;
      if (!moved && from === 0) moved = ((await c.query(this.sql.newCursor, [name, to])).rowCount ?? 0) > 0;
      if (!moved) return { value: false, rollback: true };
      // One statement each, in order: an issue's effects apply in the order of their ids.
      for (const e of effects) for (const st of this.outbox.enqueue(e.repoId, e.issue, e.effect, now)) await c.query(st.text, st.values);
      return { value: true };
    });
  }
}
