/**
 * The SQLite ledger's lease events (migration 19): the `event` step of the
 * plans (run-plan.ts), written inside the operation's transaction, and the
 * EventLog role. One connection writes the file, so the order of positions
 * is the order of commits with nothing more to do, and the next position is
 * read from the table's last row (no counter page written by every event):
 * `event_counter` keeps the highest position pruned, which pruning may have
 * taken from the table. Listeners of this process
 * are called after a commit that wrote events (`SqliteLedger.runPlan`); a
 * CLI writing the same file from another process is not heard until the
 * next event of this one.
 */
import type Database from "better-sqlite3";
import { EVENT_COLUMNS, type EventRow, EVENTS_PAGE, storedEventOf } from "../event-rows.js";
import type { StoredEvent } from "../event-types.js";
import type { EventWrite } from "../plan.js";
import type { EventLog } from "../roles.js";
import type { NewEffect } from "../types.js";
import type { SqliteOutbox } from "./outbox.js";

export class SqliteEvents implements EventLog {
  private readonly st;
  private readonly listeners = new Set<() => void>();
  /** Events were written since listeners were last called. */
  private unheard = false;

  /** `enabled` false (`events: false`, for the benchmark): the `event` step writes nothing. */
  constructor(
    db: Database.Database,
    private readonly immediate: <T>(f: () => T) => T,
    private readonly outbox: SqliteOutbox,
    private readonly enabled: boolean,
  ) {
    this.st = {
      lastPos: db.prepare<[], { pos: number }>(`SELECT max(COALESCE((SELECT max(pos) FROM events), 0), (SELECT pos FROM event_counter)) AS pos`),
      nextSeq: db.prepare<[number], { seq: number }>(
        `INSERT INTO event_seqs (installation, seq) VALUES (?, 1)
         ON CONFLICT (installation) DO UPDATE SET seq = seq + 1 RETURNING seq`,
      ),
      installation: db.prepare<[number], { installation: number }>("SELECT installation FROM repos WHERE repo_id = ?"),
      insert: db.prepare(
        `INSERT INTO events (${EVENT_COLUMNS})
         VALUES (@pos, @installation, @seq, @repoId, @repo, @issue, @type, @at, @holderId, @holderLogin, @holderInstance, @token,
                 @expiresAt, @actorId, @actorLogin, @cause)`,
      ),
      after: db.prepare<{ after: number; limit: number }, EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE pos > @after ORDER BY pos LIMIT @limit`),
      afterIn: db.prepare<{ after: number; limit: number; repoIds: string }, EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events
         WHERE repo_id IN (SELECT value FROM json_each(@repoIds)) AND pos > @after ORDER BY pos LIMIT @limit`,
      ),
      since: db.prepare<{ since: number; limit: number }, EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE at >= @since ORDER BY pos LIMIT @limit`),
      keepLast: db.prepare("UPDATE event_counter SET pos = max(pos, COALESCE((SELECT max(pos) FROM events), 0))"),
      prune: db.prepare<[number]>("DELETE FROM events WHERE at < ?"),
      cursor: db.prepare<[string], { pos: number }>("SELECT pos FROM event_cursors WHERE name = ?"),
      moveCursor: db.prepare<{ name: string; from: number; to: number }>("UPDATE event_cursors SET pos = @to WHERE name = @name AND pos = @from"),
      newCursor: db.prepare<{ name: string; to: number }>("INSERT INTO event_cursors (name, pos) VALUES (@name, @to) ON CONFLICT (name) DO NOTHING"),
    };
  }

  /** The `event` step: inside the operation's transaction. */
  write(e: EventWrite): void {
    if (!this.enabled) return;
    const { lease, actor } = e;
    const installation = e.installation ?? this.st.installation.get(lease.repoId)?.installation ?? 0;
    this.st.insert.run({
      pos: this.st.lastPos.get()!.pos + 1,
      installation,
      seq: this.st.nextSeq.get(installation)!.seq,
      repoId: lease.repoId,
      repo: lease.repo,
      issue: lease.issue,
      type: e.type,
      at: e.at,
      holderId: lease.holder.id,
      holderLogin: lease.holder.login,
      holderInstance: lease.holder.instance ?? null,
      token: lease.token,
      expiresAt: lease.expiresAt,
      actorId: actor?.id ?? null,
      actorLogin: actor?.login ?? null,
      cause: e.cause,
    });
    this.unheard = true;
  }

  /** After a commit: calls the listeners if events were written since they were last called. */
  committed(): void {
    if (!this.unheard) return;
    this.unheard = false;
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // A listener's failure is its own: the operation committed, and the other listeners still hear of it.
      }
    }
  }

  async eventsAfter(after: number, opts: { limit?: number; repoIds?: readonly number[] } = {}): Promise<StoredEvent[]> {
    const limit = opts.limit ?? EVENTS_PAGE;
    const rows = opts.repoIds ? this.st.afterIn.all({ after, limit, repoIds: JSON.stringify(opts.repoIds) }) : this.st.after.all({ after, limit });
    return rows.map(storedEventOf);
  }

  async eventsSince(since: number, limit = EVENTS_PAGE): Promise<StoredEvent[]> {
    return this.st.since.all({ since, limit }).map(storedEventOf);
  }

  async lastEventPos(): Promise<number> {
    return this.st.lastPos.get()?.pos ?? 0;
  }

  watchEvents(listener: () => void): () => void {
    // Wrapped, so that one function subscribed twice is called twice and unsubscribed once each.
    const own = () => listener();
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  async pruneEvents(before: number): Promise<number> {
    return this.immediate(() => {
      this.st.keepLast.run();
      return this.st.prune.run(before).changes;
    });
  }

  async eventCursor(name: string): Promise<number> {
    return this.st.cursor.get(name)?.pos ?? 0;
  }

  async advanceEventCursor(name: string, from: number, to: number, effects: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): Promise<boolean> {
    return this.immediate(() => {
      const moved = this.st.moveCursor.run({ name, from, to }).changes > 0 || (from === 0 && this.st.newCursor.run({ name, to }).changes > 0);
      if (!moved) return false;
      for (const e of effects) this.outbox.enqueue(e.repoId, e.issue, [e.effect], now);
      return true;
    });
  }
}
