/**
 * A small in-memory event log for the hub's own tests: the EventLog role's
 * reads (in position order, limits, repositories), its notices, and what the
 * public-repository lookup reads (`boardRepo`). Tests can hold reads at a
 * gate, make them fail, prune, and turn the notices off (a missed notice).
 */
import type { EventCause, LeaseEvent, LeaseEventType, StoredEvent } from "../../src/ledger/events/event-types.js";
import type { BoardReads } from "../../src/ledger/board/board-roles.js";
import type { HubLog } from "../../src/events/hub.js";

export interface RepoSpec {
  repoId: number;
  repo: string;
  private: boolean | null;
}

export class MemoryEventLog implements HubLog, Pick<BoardReads, "boardRepo"> {
  readonly stored: StoredEvent[] = [];
  readonly repos = new Map<number, RepoSpec>();
  private last = 0;
  private readonly listeners = new Set<() => void>();
  /** Notices sent on append; false: the ledger's notice is lost. */
  notify = true;
  /** Reads that throw before answering. */
  failReads = 0;
  /** While set, every read of events waits for it. */
  gate: Promise<void> | null = null;
  reads = 0;
  boardRepoReads = 0;

  addRepo(spec: RepoSpec): void {
    this.repos.set(spec.repoId, spec);
  }

  /** Writes one event of `repoId` (its current name), as a ledger operation would. */
  append(repoId: number, issue: number, o: { type?: LeaseEventType; holder?: { login: string; id: number }; cause?: EventCause; at?: number } = {}): StoredEvent {
    const repo = this.repos.get(repoId);
    if (!repo) throw new Error(`no repository ${repoId}`);
    const pos = ++this.last;
    const holder = o.holder ?? { login: "alice", id: 1001 };
    const event: LeaseEvent = {
      id: String(pos),
      seq: pos,
      type: o.type ?? "lease.acquired",
      at: new Date(o.at ?? Date.UTC(2026, 0, 1) + pos * 1000).toISOString(),
      repo: repo.repo,
      issue,
      holder: { ...holder, instance: null },
      token: pos,
      expires_at: null,
      actor: holder,
      cause: o.cause ?? "api",
    };
    const stored: StoredEvent = { pos, installation: 1, repoId, event };
    this.stored.push(stored);
    if (this.notify) for (const l of [...this.listeners]) l();
    return stored;
  }

  /** Deletes the events up to `pos`, as pruning by age would. */
  prune(upTo: number): void {
    while (this.stored.length > 0 && this.stored[0]!.pos <= upTo) this.stored.shift();
  }

  async eventsAfter(after: number, opts: { limit?: number; repoIds?: readonly number[] } = {}): Promise<StoredEvent[]> {
    this.reads++;
    await this.gate;
    if (this.failReads > 0) {
      this.failReads--;
      throw new Error("the database is down");
    }
    const limit = opts.limit ?? 500;
    return this.stored.filter((e) => e.pos > after && (!opts.repoIds || opts.repoIds.includes(e.repoId))).slice(0, limit);
  }

  async lastEventPos(): Promise<number> {
    await this.gate;
    if (this.failReads > 0) {
      this.failReads--;
      throw new Error("the database is down");
    }
    return this.last;
  }

  watchEvents(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get watchers(): number {
    return this.listeners.size;
  }

  async boardRepo(name: string): Promise<(RepoSpec & { installation: number }) | null> {
    this.boardRepoReads++;
    const found = [...this.repos.values()].find((r) => r.repo.toLowerCase() === name.toLowerCase());
    return found ? { ...found, installation: 1 } : null;
  }
}
