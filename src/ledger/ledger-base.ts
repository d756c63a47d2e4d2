/**
 * What both stores share, written once: the operations that are plans
 * (lease-plans.ts, work-plans.ts), and the roles each store keeps in a part of
 * its own (its outbox, its memory of repositories), handed to that part. A
 * store extends this and says how it runs a plan as one transaction
 * (`runPlan`), and how it checks cheaply, outside any transaction, whether an
 * actor's activity could renew anything (`mayRenew`).
 */
import { leasePlans } from "./leases/lease-plans.js";
import type { Plan } from "./plan.js";
import type { BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "./board/board-types.js";
import type { StoredEvent } from "./events/event-types.js";
import type { InventoryFill, IssueSnapshot, ReadyPage, ReadyQuery } from "./inventory/inventory-types.js";
import type { BoardMemory, BoardReads } from "./board/board-roles.js";
import type { EventLog } from "./events/event-roles.js";
import type { Inventory } from "./inventory/inventory-roles.js";
import type { LedgerHealth } from "./admin/admin-roles.js";
import type { OutboxStore, Reflections } from "./outbox/outbox-roles.js";
import type { RepoMemory, RepoInfo } from "./repos/repo-memory.js";
import type { AcquireOptions, ForceReleaseOptions, NoteOptions, OpOptions, RenewOptions } from "./leases/lease-options.js";
import type {
  AcquireResult,
  Applied,
  ExpireResult,
  ForceReleaseResult,
  Holder,
  IssueKey,
  NoteResult,
  ReleaseResult,
  RemindResult,
  RenewResult,
  Term,
  Ttl,
} from "./leases/lease-types.js";
import type { Effect, EffectFence, Hold, NewEffect, OutboxStats } from "./outbox/outbox-types.js";
import { workPlans } from "./work/work-plans.js";
import type { ActivityOptions, ActivityResult, ExemptOptions, ExemptResult, LinkPullOptions, LinkPullResult } from "./work/work-types.js";

export abstract class LedgerBase implements OutboxStore, Reflections, RepoMemory, BoardMemory, BoardReads, Inventory, EventLog {
  /** The store's outbox: effects taken, extended, completed or failed. */
  protected abstract readonly outbox: OutboxStore & Pick<LedgerHealth, "outboxStats">;
  /** The store's repositories and reflections. */
  protected abstract readonly repos: RepoMemory & Reflections;
  /** The store's board: what it remembers from webhooks. */
  protected abstract readonly boardMemory: BoardMemory;
  /** The store's board: its page of leases and side panels. */
  protected abstract readonly boardReads: BoardReads;
  /** The store's inventory of open issues. */
  protected abstract readonly inventory: Inventory;
  /** The store's lease events: their reads, cursors and watch. */
  protected abstract readonly events: EventLog;

  /**
   * Runs the plan `make(now)` makes as one transaction, whose promise settles
   * once it has committed. `now` is the caller's, or the database's clock
   * where the store reads it; a store that retries a transaction makes the
   * plan again.
   */
  protected abstract runPlan<T>(now: number, make: (now: number) => Plan<T>): Promise<T>;

  /** Whether `actor` holds a lease their activity on `key` could renew: one indexed read, no transaction. */
  protected abstract mayRenew(key: IssueKey, actor: Holder, now: number): Promise<boolean>;

  async acquire(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: AcquireOptions): Promise<Applied<AcquireResult>> {
    return this.runPlan(now, (now) => leasePlans.acquire(key, holder, ttl, now, opts));
  }

  async renew(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: RenewOptions): Promise<Applied<RenewResult>> {
    return this.runPlan(now, (now) => leasePlans.renew(key, holder, ttl, now, opts));
  }

  async release(key: IssueKey, holder: Holder, now: number, opts?: OpOptions<ReleaseResult>): Promise<Applied<ReleaseResult>> {
    return this.runPlan(now, (now) => leasePlans.release(key, holder, now, opts));
  }

  async forceRelease(key: IssueKey, actor: Holder, now: number, opts?: ForceReleaseOptions): Promise<Applied<ForceReleaseResult>> {
    return this.runPlan(now, (now) => leasePlans.forceRelease(key, actor, now, opts));
  }

  async note(key: IssueKey, actor: Holder | null, now: number, opts?: NoteOptions): Promise<Applied<NoteResult>> {
    return this.runPlan(now, (now) => leasePlans.note(key, actor, now, opts));
  }

  async markExpired(key: IssueKey, token: number, now: number, opts?: OpOptions<ExpireResult>): Promise<Applied<ExpireResult>> {
    return this.runPlan(now, (now) => leasePlans.markExpired(key, token, now, opts));
  }

  async markReminded(key: IssueKey, term: Term, now: number, opts?: OpOptions<RemindResult>): Promise<Applied<RemindResult>> {
    return this.runPlan(now, (now) => leasePlans.markReminded(key, term, now, opts));
  }

  async linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult> {
    return this.runPlan(now, (now) => workPlans.linkPull(pull, author, issues, now, opts));
  }

  /** Asks `opts.policy` only when there is something to renew; `duplicate` is present only when a transaction ran. */
  async renewOnActivity(key: IssueKey, actor: Holder, now: number, opts: ActivityOptions): Promise<ActivityResult & { duplicate?: boolean }> {
    if (!(await this.mayRenew(key, actor, now))) return { outcome: "none", renewed: [] };
    const policy = await opts.policy();
    if (!policy) return { outcome: "none", renewed: [] };
    return this.runPlan(now, (now) => workPlans.renewOnActivity(key, actor, now, policy, opts.delivery));
  }

  async setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Promise<Applied<ExemptResult>> {
    return this.runPlan(now, (now) => workPlans.setExempt(key, actor, exempt, now, opts));
  }

  async takeEffects(now: number, limit: number, lockMs: number, hold?: Hold[], skipIds?: number[]): Promise<Effect[]> {
    return this.outbox.takeEffects(now, limit, lockMs, hold, skipIds);
  }

  async takeFollowers(head: Pick<Effect, "id" | "repoId" | "issue" | "attempts">, kind: string, now: number, limit: number, lockMs: number): Promise<Effect[]> {
    return this.outbox.takeFollowers(head, kind, now, limit, lockMs);
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    return this.outbox.extendEffects(fences, now, lockMs);
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    return this.outbox.completeEffect(fence, now);
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    return this.outbox.failEffect(fence, now, error, retryAt);
  }

  async unparkEffects(now: number): Promise<number> {
    return this.outbox.unparkEffects(now);
  }

  async outboxStats(): Promise<OutboxStats> {
    return this.outbox.outboxStats();
  }

  async getReflection(repoId: number, issue: number): Promise<unknown> {
    return this.repos.getReflection(repoId, issue);
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    return this.repos.putReflection(repoId, issue, state, now);
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    return this.repos.rememberRepo(repo, now);
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    return this.repos.repoInfo(repoId);
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    return this.repos.findRepo(name);
  }

  async rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean> {
    return this.boardMemory.rememberCard(card, now, create);
  }

  async dropCard(key: { repoId: number; issue: number }, now: number): Promise<void> {
    return this.boardMemory.dropCard(key, now);
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    return this.boardMemory.rememberVisibility(repo, now);
  }

  async forgetRepos(forget: RepoForget, now: number): Promise<number> {
    return this.boardMemory.forgetRepos(forget, now);
  }

  async rememberIssues(issues: readonly IssueSnapshot[], now: number): Promise<number> {
    return this.inventory.rememberIssues(issues, now);
  }

  async closeUnseen(repoId: number, seen: readonly number[], before: number, now: number): Promise<number> {
    return this.inventory.closeUnseen(repoId, seen, before, now);
  }

  async markFilled(fill: InventoryFill, now: number): Promise<void> {
    return this.inventory.markFilled(fill, now);
  }

  async lastFill(repoId: number): Promise<InventoryFill | null> {
    return this.inventory.lastFill(repoId);
  }

  async staleFills(before: number, limit: number): Promise<RepoInfo[]> {
    return this.inventory.staleFills(before, limit);
  }

  async inventoryRepos(owner: string): Promise<RepoInfo[]> {
    return this.inventory.inventoryRepos(owner);
  }

  async forgetInventory(repoIds: readonly number[], now: number): Promise<number> {
    return this.inventory.forgetInventory(repoIds, now);
  }

  async readyIssues(query: ReadyQuery, now: number): Promise<ReadyPage> {
    return this.inventory.readyIssues(query, now);
  }

  // The lease events (each store's events.ts).
  async eventsAfter(after: number, opts?: { limit?: number; repoIds?: readonly number[] }): Promise<StoredEvent[]> {
    return this.events.eventsAfter(after, opts);
  }

  async eventsSince(since: number, limit?: number): Promise<StoredEvent[]> {
    return this.events.eventsSince(since, limit);
  }

  async lastEventPos(): Promise<number> {
    return this.events.lastEventPos();
  }

  watchEvents(listener: () => void): () => void {
    return this.events.watchEvents(listener);
  }

  async pruneEvents(before: number): Promise<number> {
    return this.events.pruneEvents(before);
  }

  async eventCursor(name: string): Promise<number> {
    return this.events.eventCursor(name);
  }

  async advanceEventCursor(name: string, from: number, to: number, effects: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): Promise<boolean> {
    return this.events.advanceEventCursor(name, from, to, effects, now);
  }

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    return this.boardReads.boardRepo(name);
  }

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    return this.boardReads.boardLeases(query, now);
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    return this.boardReads.boardPanels(query, now);
  }
}
