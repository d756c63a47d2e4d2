/**
 * The outbox's values: an effect to apply on GitHub, written with the
 * operation that decided it, and an effect as the drainer takes it, attempt
 * by attempt (the roles are outbox-roles.ts's).
 */

/** An effect to apply elsewhere (on GitHub), written to the outbox in the operation's transaction. */
export interface NewEffect {
  /** Partition for rate limits (the GitHub installation id); effects of one partition may be held back together. */
  installation: number;
  kind: string;
  payload: unknown;
  /**
   * Lower goes first across issues (0, the default, for replies to commands;
   * 1 for sweeps), so a command is answered during an expiry wave. Within one
   * issue effects always apply in order.
   */
  priority?: number;
}

export interface Effect extends NewEffect {
  id: number;
  repoId: number;
  issue: number;
  /**
   * Attempts so far, this one included. Taking an effect counts an attempt,
   * so the number also fences the attempt: completing, failing or extending
   * the effect succeeds only with the attempt number it was taken with.
   */
  attempts: number;
  createdAt: number;
  /** A random value written with the effect: what the app's reply carries so that it can be found again, and guessed by nobody. */
  nonce: string | null;
  /** Un-parked after a newer effect of the same issue was applied: a reply says it is late. */
  late: boolean;
}

/** Effects the outbox does not hand out now: those of `installation` with priority `fromPriority` or above. */
export interface Hold {
  installation: number;
  fromPriority: number;
}

/** One attempt at an effect: its id and the attempt number it was taken with. */
export interface EffectFence {
  id: number;
  attempt: number;
}

export interface OutboxStats {
  pending: number;
  parked: number;
  oldestPendingAt: number | null;
}

/** The fence of an effect's attempt as it was taken. */
export function fenceOf(effect: Effect): EffectFence {
  return { id: effect.id, attempt: effect.attempts };
}
