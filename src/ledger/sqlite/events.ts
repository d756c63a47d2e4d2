/**
 * The SQLite ledger's lease events (migration 19): the `event` step of the
 * plans (run-plan.ts), written inside the operation's transaction, and the
 * EventLog role. One connection writes the file, so the order of positions
 * is the order of commits with nothing more to do.
 *
 * An event writes its row and no other page (migration 20; each page is WAL
 * that every lease change fsyncs, bench:events' ledger_ratio):
 * - the next position is the last row's + 1, or after the highest pruned
 *   when pruning took every row (`event_counter`, written only by pruning);
 * - the next `seq` of an installation is its newest row's + 1, or after the
 *   highest its pruned events had (`event_seqs`, written only by pruning).
 *   This process remembers each installation's last `seq` while the table's
 *   last row is the one it wrote last: any other writer (the CLI, another
 *   process) or a rolled-back write makes the last row another, and the
 *   numbers are read from the table again.
 *
 * Listeners of this process are called after a commit that wrote events
 * (`SqliteLedger.runPlan`), and, while any listens, when another process
 * (the operator CLI's `force-release`) committed to the file: SQLite's
 * `data_version`, read every `OTHERS_MS`, says so.
 */
import type Database from "better-sqlite3";
import { EVENT_COLUMNS, type EventRow, EVENTS_PAGE, storedEventOf } from "../events/event-rows.js";
import type { StoredEvent } from "../events/event-types.js";
import type { EventWrite } from "../plan.js";
import type { EventLog } from "../events/event-roles.js";
import type { NewEffect } from "../outbox/outbox-types.js";
import type { SqliteOutbox } from "./outbox.js";

/** Positions a filtered read covers at once (eventsAfter). */
const WINDOW = 20_000;

/** How often a listened-to ledger looks whether another process committed. */
const OTHERS_MS = 250;

interface LastRow {
  pos: number;
  installation: number;
  seq: number;
}

export class SqliteEvents implements EventLog {
  private readonly st;
  private readonly listeners = new Set<() => void>();
  /** Events were written since listeners were last called. */
  private unheard = false;
  /** The last `seq` of each installation, while the table's last row is `wrote` (the header). */
  private readonly seqs = new Map<number, number>();
  private wrote: LastRow | null = null;
  /** While listeners listen: the timer reading `data_version`, and the version it last read. */
  private others: { timer: NodeJS.Timeout; version: number } | null = null;

  /** `enabled` false (`events: false`, for the benchmark): the `event` step writes nothing. */
  constructor(
    private readonly db: Database.Database,
    private readonly immediate: <T>(f: () => T) => T,
    private readonly outbox: SqliteOutbox,
    private readonly enabled: boolean,
  ) {
    this.st = {
      lastPos: db.prepare<[], { pos: number }>(`SELECT max(COALESCE((SELECT max(pos) FROM events), 0), (SELECT pos FROM event_counter)) AS pos`),
      lastRow: db.prepare<[], LastRow>("SELECT pos, installation, seq FROM events ORDER BY pos DESC LIMIT 1"),
      prunedPos: db.prepare<[], { pos: number }>("SELECT pos FROM event_counter"),
      // Along the positions from the newest: an installation that made an event lately is found at once.
      lastSeq: db.prepare<{ installation: number }, { seq: number }>(
        `SELECT max(COALESCE((SELECT seq FROM events WHERE installation = @installation ORDER BY pos DESC LIMIT 1), 0),
                    COALESCE((SELECT seq FROM event_seqs WHERE installation = @installation), 0)) AS seq`,
      ),
      installation: db.prepare<[number], { installation: number }>("SELECT installation FROM repos WHERE repo_id = ?"),
      insert: db.prepare(
        `INSERT INTO events (${EVENT_COLUMNS})
         VALUES (@pos, @installation, @seq, @repoId, @repo, @issue, @type, @at, @holderId, @holderLogin, @holderInstance, @token,
                 @expiresAt, @actorId, @actorLogin, @cause)`,
      ),
      after: db.prepare<{ after: number; limit: number }, EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE pos > @after ORDER BY pos LIMIT @limit`),
      // One window of positions at a time (eventsAfter): with no index by repository, a rare repository's events are
      // found by reading every event of the window.
      afterIn: db.prepare<{ after: number; upTo: number; limit: number; repoIds: string }, EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events
         WHERE pos > @after AND pos <= @upTo AND repo_id IN (SELECT value FROM json_each(@repoIds)) ORDER BY pos LIMIT @limit`,
      ),
      since: db.prepare<{ since: number; limit: number }, EventRow>(`SELECT ${EVENT_COLUMNS} FROM events WHERE at >= @since ORDER BY pos LIMIT @limit`),
      keepLast: db.prepare("UPDATE event_counter SET pos = max(pos, COALESCE((SELECT max(pos) FROM events), 0))"),
      // Before pruning: each installation's highest seq among the events about to go.
      keepSeqs: db.prepare<[number]>(
        `INSERT INTO event_seqs (installation, seq)
         SELECT installation, max(seq) FROM events WHERE pos < ? GROUP BY installation
         ON CONFLICT (installation) DO UPDATE SET seq = max(seq, excluded.seq)`,
      ),
      firstKept: db.prepare<[number], { pos: number }>(
        "SELECT COALESCE((SELECT pos FROM events WHERE at >= ? ORDER BY pos LIMIT 1), (SELECT max(pos) + 1 FROM events), 0) AS pos",
      ),
      // The events before the first one made at or after the time, found along the positions from the oldest (no index on
      // time written by every event, migration 20); one made out of order is kept until the next prune.
      prune: db.prepare<[number]>("DELETE FROM events WHERE pos < ?"),
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
    const last = this.st.lastRow.get();
    const mine = this.wrote;
    if (!(last && mine && last.pos === mine.pos && last.installation === mine.installation && last.seq === mine.seq)) this.seqs.clear();
    const pos = (last ? last.pos : this.st.prunedPos.get()!.pos) + 1;
    const seq = (this.seqs.get(installation) ?? this.st.lastSeq.get({ installation })!.seq) + 1;
    this.seqs.set(installation, seq);
    this.wrote = { pos, installation, seq };
    this.st.insert.run({
      pos,
      installation,
      seq,
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

  /**
   * With `repoIds`, read `WINDOW` positions at a time, letting the process
   * serve others between windows: a filtered replay from an old position (a
   * week of events, of a repository that has few) never holds the event
   * loop for the whole of it.
   */
  async eventsAfter(after: number, opts: { limit?: number; repoIds?: readonly number[] } = {}): Promise<StoredEvent[]> {
    const limit = opts.limit ?? EVENTS_PAGE;
    if (!opts.repoIds) return this.st.after.all({ after, limit }).map(storedEventOf);
    const repoIds = JSON.stringify(opts.repoIds);
    const last = this.st.lastPos.get()!.pos;
    const rows: EventRow[] = [];
    for (let from = after; from < last && rows.length < limit; from += WINDOW) {
      if (from > after) await new Promise((resolve) => setImmediate(resolve));
      rows.push(...this.st.afterIn.all({ after: from, upTo: from + WINDOW, limit: limit - rows.length, repoIds }));
    }
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
    this.watchOthers();
    return () => {
      this.listeners.delete(own);
      if (this.listeners.size === 0) this.stopWatchingOthers();
    };
  }

  /** Calls the listeners when another connection committed to the file (it may have written events). */
  private watchOthers(): void {
    if (this.others) return;
    // Through db.pragma() each time, never prepared: a prepared PRAGMA answers what it read when prepared (unsynced-commit.ts).
    const version = () => this.db.pragma("data_version", { simple: true }) as number;
    const timer = setInterval(() => {
      if (!this.db.open) return this.stopWatchingOthers();
      let now: number;
      try {
        now = version();
      } catch {
        // The file did not answer (an I/O error): looked at again next time; the hub's poll reads the events meanwhile.
        return;
      }
      if (now === this.others?.version) return;
      if (this.others) this.others.version = now;
      this.unheard = true;
      this.committed();
    }, OTHERS_MS);
    timer.unref();
    this.others = { timer, version: version() };
  }

  private stopWatchingOthers(): void {
    if (this.others) clearInterval(this.others.timer);
    this.others = null;
  }

  async pruneEvents(before: number): Promise<number> {
    return this.immediate(() => {
      const { pos } = this.st.firstKept.get(before)!;
      this.st.keepLast.run();
      this.st.keepSeqs.run(pos);
      return this.st.prune.run(pos).changes;
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
