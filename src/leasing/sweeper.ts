/**
 * The expiry sweeper: ends leases whose time has passed and reminds holders
 * whose lease is about to end. Each lease is handled by its own ledger
 * transaction, which writes the comment and label effects to the outbox, so
 * a sweep that dies half-way loses nothing and repeats nothing: an expired
 * lease is freed exactly once (the token check makes a second `markExpired`
 * stale), and a reminder is marked sent in the same transaction that queues it.
 *
 * Passes are bounded (`batchSize`), so ten thousand leases expiring at once
 * drain steadily through the outbox within GitHub's limits.
 */
import { randomUUID } from "node:crypto";
import type { HeldLock, NamedLocks } from "../ledger/admin/admin-roles.js";
import type { Lease } from "../ledger/leases/lease-types.js";
import type { CaseEffect, EffectCases } from "../ledger/leases/effect-cases.js";
import type { ReplyFill } from "../github/reply-fill.js";
import type { RepoMemory } from "../ledger/repos/repo-memory.js";
import type { Sweeps } from "../ledger/leases/lease-roles.js";
import { reflectCase } from "../outbox/effects.js";
import { leaseView, type Reply } from "../commands/reply.js";
import { handoffTemplate } from "./handoff.js";

export interface SweepDeps {
  ledger: Sweeps & RepoMemory & NamedLocks;
  clock: () => number;
  batchSize?: number;
  /** Aborted when the sweep lock is lost: the sweep stops before its next lease. */
  signal?: AbortSignal;
}

/**
 * How long SQLite's sweep lock row outlives a holder that stops extending it
 * (the live holder extends it while it sweeps). PostgreSQL's sweep lock ends
 * with its holder's connection instead, so a replica that dies stops no one.
 */
export const SWEEP_LOCK_MS = 20_000;

export interface SweepResult {
  expired: number;
  reminded: number;
  at: number;
}

/**
 * The effects that show a sweep's outcome on the issue, by case: the reply,
 * and for expiry the labels. An expiry that handed the lease to the first in
 * line gets the handoff's reply instead (completed from the ledger's answer:
 * github/reply-fill.ts), and the labels show the new holder.
 */
async function effectsFor(ledger: RepoMemory, lease: Lease, op: "expire" | "remind", at: number): Promise<EffectCases> {
  const info = await ledger.repoInfo(lease.repoId);
  // A repository the app never saw a command in has no installation to post to.
  if (!info) return {};
  const base = { issue: lease.issue, at, command: null, actor: null, ignored: 0, mentionHolder: true };
  // Behind replies to commands: a claim is answered during an expiry wave.
  const effect = (reply: Reply, fill?: ReplyFill): CaseEffect => reflectCase(info.installation, info.repo, { reconcile: op === "expire", reply }, fill, { priority: 1 });
  if (op === "remind") return { reminded: [effect({ ...base, op, outcome: "reminded", lease: leaseView(lease) })] };
  return {
    expired: [effect({ ...base, op, outcome: "expired", lease: leaseView(lease) })],
    "expired.handoff": [effect(handoffTemplate(base, "expired"), { lease: "handoff", previous: { from: "lease", ended: "expired" } })],
  };
}

export async function sweepOnce(deps: SweepDeps): Promise<SweepResult> {
  const { ledger, clock } = deps;
  const batch = deps.batchSize ?? 100;
  const at = clock();
  let expired = 0;
  let reminded = 0;
  // Each lease is its own transaction; one whose tenure changed meanwhile comes back `stale` and queues nothing.
  for (const lease of await ledger.expiredSince(at, batch)) {
    deps.signal?.throwIfAborted();
    const effects = await effectsFor(ledger, lease, "expire", at);
    const res = await ledger.markExpired(lease, lease.token, at, { effects });
    if (res.outcome === "expired") expired++;
  }
  for (const lease of await ledger.dueReminders(at, batch)) {
    deps.signal?.throwIfAborted();
    const effects = await effectsFor(ledger, lease, "remind", at);
    // For the term read: a `/renew` since makes this one stale, and the new term gets its own reminder.
    const term = { token: lease.token, expiresAt: lease.expiresAt };
    const res = await ledger.markReminded(lease, term, at, { effects });
    if (res.outcome === "reminded") reminded++;
  }
  return { expired, reminded, at };
}

/**
 * Runs `sweepOnce` every `intervalMs` until stopped. Replicas sharing a ledger
 * take turns through a named lock: the one that takes it sweeps, and keeps it
 * for as long as it lives. On PostgreSQL the lock is a session advisory lock,
 * so if the holder dies (or its lock connection does) another takes over at
 * its next tick; the holder that lost it stops sweeping until it takes it again.
 */
export class Sweeper {
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<unknown> | null = null;
  private readonly owner = `${process.pid}-${randomUUID()}`;
  /** The sweep lock while this process holds it; its signal aborts when it is lost. */
  private held: HeldLock | null = null;
  lastSweep: SweepResult | null = null;

  constructor(
    private readonly deps: SweepDeps & {
      intervalMs: number;
      /** Default SWEEP_LOCK_MS. */
      lockMs?: number;
      onSwept?: (r: SweepResult) => void;
      onError?: (e: unknown) => void;
    },
  ) {}

  start(): void {
    if (this.timer) return;
    const tick = () => {
      if (this.inFlight) return;
      this.inFlight = this.sweep()
        .catch((e) => this.deps.onError?.(e))
        .finally(() => {
          this.inFlight = null;
        });
    };
    this.timer = setInterval(tick, this.deps.intervalMs);
    this.timer.unref();
    tick();
  }

  /** One sweep, unless another replica holds the sweep lock (then null). */
  async sweep(): Promise<SweepResult | null> {
    const { ledger, clock } = this.deps;
    const ttlMs = this.deps.lockMs ?? SWEEP_LOCK_MS;
    if (!this.held || this.held.signal.aborted) {
      this.held = await ledger.holdLock("sweep", this.owner, clock, ttlMs);
      if (!this.held) return null;
    }
    const r = await sweepOnce({ ...this.deps, signal: this.held.signal });
    this.lastSweep = r;
    this.deps.onSwept?.(r);
    return r;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.inFlight;
    const held = this.held;
    this.held = null;
    // Let go at once, so that another replica need not wait for the lock to expire.
    await held?.release().catch(() => undefined);
  }
}
