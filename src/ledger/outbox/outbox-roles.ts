/**
 * The outbox as its callers see it: the drainer's effects, attempt by
 * attempt, and what it last applied on GitHub (reflections).
 */
import type { Effect, EffectFence, Hold } from "./outbox-types.js";

/** The outbox as the drainer sees it: effects taken, extended, completed or failed, attempt by attempt. */
export interface OutboxStore {
  /**
   * Takes up to `limit` due effects, the oldest pending one of each issue,
   * locking each until `now + lockMs` and counting an attempt. Effects in
   * `skipIds` (those the caller is applying) are not taken, nor those an
   * entry of `hold` holds back (of its installation, of its priority or
   * above: a rate limit, a budget short for a tier).
   */
  takeEffects(now: number, limit: number, lockMs: number, hold?: Hold[], skipIds?: number[]): Promise<Effect[]>;
  /**
   * Takes the effects of `kind` that wait behind `head` on its issue, oldest
   * first, up to `limit`: due and unlocked ones, stopping at the first that
   * is not (or is of another kind), so the issue's order holds. Each is
   * locked until `now + lockMs` and counted an attempt, as `takeEffects`
   * does; none when `head` is no longer the caller's current attempt.
   */
  takeFollowers(head: Pick<Effect, "id" | "repoId" | "issue" | "attempts">, kind: string, now: number, limit: number, lockMs: number): Promise<Effect[]>;
  /** Extends the locks of the attempts still current until `now + lockMs`; returns the ids extended (the others were lost). */
  extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]>;
  /** Marks the attempt's effect done; false (and nothing changed) when the attempt is no longer the current one. */
  completeEffect(fence: EffectFence, now: number): Promise<boolean>;
  /**
   * Schedules another attempt at `retryAt`, or parks the effect as failed when
   * `retryAt` is null; false (and nothing changed) when the attempt is no
   * longer the current one.
   */
  failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean>;
  /**
   * Makes parked effects pending again (on start-up). Their attempts are kept,
   * so that a reply that may have been posted is looked for before it is
   * posted again; one that a newer effect of its issue overtook is marked late.
   */
  unparkEffects(now: number): Promise<number>;
}

/** What the outbox last applied on GitHub, so that applying an effect needs no read of GitHub. */
export interface Reflections {
  /**
   * What the outbox last applied to an issue elsewhere (labels, assignee), as
   * opaque JSON, so that reconciling needs no read of GitHub. Issue 0 holds
   * repository-wide state.
   */
  getReflection(repoId: number, issue: number): Promise<unknown>;
  putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void>;
}
