/**
 * The outbox on SQLite: effects written with the operations that decided
 * them, taken by the drainer under a lock, and completed, retried or parked
 * by the attempt that took them: the ledger's outbox methods are this
 * part's own (compose-ledger.ts). `enqueue`, `take` and `extend` run inside
 * the caller's IMMEDIATE transaction, the others are one statement each.
 */
import type Database from "better-sqlite3";
import type { LedgerHealth } from "../admin/admin-roles.js";
import type { OutboxStore } from "../outbox/outbox-roles.js";
import type { Effect, EffectFence, Hold, NewEffect, OutboxStats } from "../outbox/outbox-types.js";
import type { UnsyncedCommit } from "./unsynced-commit.js";

/** An effect as a row read before its lock counted an attempt: the attempt being taken is the next. */
function toEffect(r: Record<string, unknown>): Effect {
  return {
    id: r.id as number,
    repoId: r.repo_id as number,
    issue: r.issue as number,
    installation: r.installation as number,
    kind: r.kind as string,
    payload: JSON.parse(r.payload as string) as unknown,
    attempts: (r.attempts as number) + 1,
    createdAt: r.created_at as number,
    nonce: (r.nonce as string | null) ?? null,
    late: r.late === 1,
    priority: r.priority as number,
  };
}

export class SqliteOutbox implements OutboxStore, Pick<LedgerHealth, "outboxStats"> {
  private readonly st;

  /** `immediate`: runs a function as one BEGIN IMMEDIATE transaction on `db`; `unsynced`, a commit that does not wait for the disk. */
  constructor(
    db: Database.Database,
    private readonly immediate: <T>(f: () => T) => T,
    private readonly unsynced: UnsyncedCommit,
  ) {
    this.st = {
      // An issue's effects apply in order: those before a new effect go at its priority if it is ahead of theirs,
      // so that a reply to a command never waits behind label-only work of its issue held back by GitHub's budget.
      inherit: db.prepare("UPDATE outbox SET priority = @priority WHERE repo_id = @repoId AND issue = @issue AND state = 'pending' AND priority > @priority"),
      enqueue: db.prepare(
        `INSERT INTO outbox (repo_id, issue, installation, kind, payload, next_at, created_at, priority, nonce)
         VALUES (@repoId, @issue, @installation, @kind, @payload, @now, @now, @priority, lower(hex(randomblob(12))))`,
      ),
      // What is held back and what is skipped are left out here, not after: a held installation's backlog,
      // however long, does not fill the LIMIT and starve the others. `@hold`: [[installation, fromPriority], …].
      heads: db.prepare<{ now: number; limit: number; hold: string; skip: string }, Record<string, unknown>>(
        `SELECT o.* FROM outbox o
         WHERE o.state = 'pending' AND o.next_at <= @now AND o.locked_until <= @now
           AND NOT EXISTS (SELECT 1 FROM json_each(@hold) h
                           WHERE h.value ->> 0 = o.installation AND o.priority >= h.value ->> 1)
           AND o.id NOT IN (SELECT value FROM json_each(@skip))
           AND o.id = (SELECT MIN(p.id) FROM outbox p WHERE p.state = 'pending' AND p.repo_id = o.repo_id AND p.issue = o.issue)
         ORDER BY o.priority, o.next_at, o.id LIMIT @limit`,
      ),
      // The current attempt's head, then what waits behind it on its issue, oldest first.
      headHeld: db
        .prepare<{ id: number; attempt: number; now: number }, number>(
          "SELECT 1 FROM outbox WHERE id = @id AND attempts = @attempt AND state = 'pending' AND locked_until > @now",
        )
        .pluck(),
      behind: db.prepare<{ repoId: number; issue: number; id: number; limit: number }, Record<string, unknown>>(
        "SELECT * FROM outbox WHERE repo_id = @repoId AND issue = @issue AND state = 'pending' AND id > @id ORDER BY id LIMIT @limit",
      ),
      // Whether take could find anything: read without the write lock, so that a drainer finding nothing due takes no lock.
      anyDue: db
        .prepare<{ now: number }, number>(
          "SELECT 1 FROM outbox INDEXED BY outbox_due WHERE state = 'pending' AND next_at <= @now AND locked_until <= @now LIMIT 1",
        )
        .pluck(),
      lock: db.prepare("UPDATE outbox SET locked_until = @until, attempts = attempts + 1 WHERE id = @id"),
      // Each write of an attempt names it: a drainer whose lock was taken over changes nothing.
      extendEffect: db.prepare("UPDATE outbox SET locked_until = @until WHERE id = @id AND attempts = @attempt AND state = 'pending'"),
      complete: db.prepare(
        "UPDATE outbox SET state = 'done', done_at = @now, locked_until = 0 WHERE id = @id AND attempts = @attempt AND state = 'pending'",
      ),
      retry: db.prepare(
        `UPDATE outbox SET next_at = @retryAt, locked_until = 0, last_error = @error
         WHERE id = @id AND attempts = @attempt AND state = 'pending'`,
      ),
      park: db.prepare(
        `UPDATE outbox SET state = 'parked', locked_until = 0, last_error = @error
         WHERE id = @id AND attempts = @attempt AND state = 'pending'`,
      ),
      // Attempts are kept: the first attempt after this looks for a reply already posted.
      unpark: db.prepare(
        `UPDATE outbox SET state = 'pending', next_at = @now,
           late = EXISTS (SELECT 1 FROM outbox n WHERE n.repo_id = outbox.repo_id AND n.issue = outbox.issue
                            AND n.id > outbox.id AND n.state = 'done')
         WHERE state = 'parked'`,
      ),
      unlockEffects: db.prepare("UPDATE outbox SET locked_until = 0 WHERE state = 'pending' AND locked_until > 0"),
      stats: db.prepare<[], { pending: number; parked: number; oldest: number | null }>(
        `SELECT
           (SELECT COUNT(*) FROM outbox WHERE state = 'pending') AS pending,
           (SELECT COUNT(*) FROM outbox WHERE state = 'parked') AS parked,
           (SELECT MIN(created_at) FROM outbox WHERE state = 'pending') AS oldest`,
      ),
    };
  }

  enqueue(repoId: number, issue: number, effects: NewEffect[], now: number): void {
    for (const effect of effects) {
      this.st.inherit.run({ repoId, issue, priority: effect.priority ?? 0 });
      this.st.enqueue.run({
        repoId,
        issue,
        installation: effect.installation,
        kind: effect.kind,
        payload: JSON.stringify(effect.payload),
        now,
        priority: effect.priority ?? 0,
      });
    }
  }

  /** Taken in one BEGIN IMMEDIATE: the heads read and locked together. */
  async takeEffects(now: number, limit: number, lockMs: number, hold: Hold[] = [], skipIds: number[] = []): Promise<Effect[]> {
    // Nothing due: no write transaction (a drained outbox is asked after every pass).
    if (limit <= 0 || this.st.anyDue.get({ now }) === undefined) return [];
    const held = JSON.stringify(hold.map((h) => [h.installation, h.fromPriority]));
    const skip = JSON.stringify(skipIds);
    return this.immediate(() => this.take(now, limit, lockMs, held, skip));
  }

  private take(now: number, limit: number, lockMs: number, hold: string, skip: string): Effect[] {
    return this.st.heads.all({ now, limit, hold, skip }).map((r) => {
      this.st.lock.run({ id: r.id, until: now + lockMs });
      return toEffect(r);
    });
  }

  async takeFollowers(head: Pick<Effect, "id" | "repoId" | "issue" | "attempts">, kind: string, now: number, limit: number, lockMs: number): Promise<Effect[]> {
    if (limit <= 0) return [];
    return this.immediate(() => {
      if (this.st.headHeld.get({ id: head.id, attempt: head.attempts, now }) === undefined) return [];
      const taken: Effect[] = [];
      for (const r of this.st.behind.all({ repoId: head.repoId, issue: head.issue, id: head.id, limit })) {
        if (r.kind !== kind || (r.next_at as number) > now || (r.locked_until as number) > now) break;
        this.st.lock.run({ id: r.id, until: now + lockMs });
        taken.push(toEffect(r));
      }
      return taken;
    });
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    if (fences.length === 0) return [];
    return this.immediate(() => this.extend(fences, now, lockMs));
  }

  private extend(fences: EffectFence[], now: number, lockMs: number): number[] {
    return fences.filter((f) => this.st.extendEffect.run({ id: f.id, attempt: f.attempt, until: now + lockMs }).changes > 0).map((f) => f.id);
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    // Unsynced: lost to a power cut, the effect is applied again (idempotent,
    // and its reply looked for first: the attempt's count was synced when it
    // was taken). A failure's retry time is synced, as before: it is rare.
    return this.unsynced.run(() => this.st.complete.run({ id: fence.id, attempt: fence.attempt, now }).changes > 0);
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    const at = { id: fence.id, attempt: fence.attempt, error };
    const r = retryAt === null ? this.st.park.run(at) : this.st.retry.run({ ...at, retryAt: Math.max(retryAt, now) });
    return r.changes > 0;
  }

  async unparkEffects(now: number): Promise<number> {
    return this.st.unpark.run({ now }).changes;
  }

  async outboxStats(): Promise<OutboxStats> {
    const s = this.st.stats.get()!;
    return { pending: s.pending, parked: s.parked, oldestPendingAt: s.oldest };
  }

  /** Lets go of every effect's lock: a dead process's, when the ledger starts serving its file. */
  unlockAll(): void {
    this.st.unlockEffects.run();
  }
}
