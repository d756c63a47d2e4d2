/**
 * The outbox drainer: applies the effects that ledger operations wrote in
 * their own transaction, so that a lease decided in the ledger reaches
 * GitHub whatever GitHub or the process does in between.
 *
 * - In order per issue: the ledger hands out only the oldest pending effect
 *   of each issue, and locks it while it is applied.
 * - Idempotent: labels and the assignee are reconciled to what the ledger
 *   says *now* against what the drainer last applied (its "reflection"), so
 *   applying an effect twice changes nothing; a reply whose first attempt may
 *   have posted is looked for by its marker before it is posted again.
 * - Within GitHub's limits: with a budget (github/budget.ts), every request
 *   takes a slot of its installation's budget first, replies to commands
 *   before notices before label-only work, and an installation short of
 *   budget for a tier has no effect of that tier taken.
 * - Durable retry: 5xx, network errors and timeouts back off with jitter; a
 *   rate limit pauses that installation only, for as long as GitHub says
 *   (a secondary limit at least `minPauseMs`);
 *   after `maxAttempts` an effect is parked, logged, counted by /health, and
 *   retried when the app restarts.
 * - One drainer at a time per effect, whatever its duration: the lock taken
 *   with an effect is extended while it is applied, a drainer never takes an
 *   effect it is applying, and completing or failing an attempt succeeds only
 *   while it is the effect's current attempt. A drainer that loses the lock
 *   (it stalled past it) stops at its next GitHub call.
 * - Webhook effects (lease events to other tools' receivers) are POSTed by
 *   `sendEvent`, not through GitHub: they take no budget slot, no
 *   installation's limit holds them, and they do not count among the
 *   `batchSize` effects in flight, so a slow receiver holds up no issue.
 *   They are taken as the sender can send them: no more of an
 *   installation's than its share of the sender's slots, nor more than all
 *   its slots, so that none waits in this process holding its lock while
 *   another replica could send it, and one installation's backlog is not
 *   taken in the place of another's deliveries.
 * - No error ends the process: a ledger that does not answer is logged and
 *   retried with backoff; effects it could not record are taken again when
 *   their lock expires.
 *
 * This file is the loop; one attempt at an effect is apply-effect.ts, the
 * settings and their defaults drainer-options.ts.
 */
import type { Effect, Hold } from "../ledger/outbox/outbox-types.js";
import { EffectApplier } from "./apply-effect.js";
import { Attempts } from "./attempts.js";
import { type DrainerOptions, type DrainerSettings, drainerSettings } from "./drainer-options.js";
import { DEFAULT_DELIVERY_SHARES } from "../events/delivery-slots.js";
import { WEBHOOK } from "./effects.js";
import { SerialPasses } from "./serial-passes.js";

export class Drainer {
  private readonly o: DrainerSettings;
  private readonly pausedUntil = new Map<number, number>();
  /** What GitHub's 404s said is wrong with the app's address for it, since when and how many effects it parked (until a restart). */
  private readonly misconfigured = new Map<string, { since: number; parked: number }>();
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private kicked = false;
  private readonly passes = new SerialPasses(() => this.pass());
  /** Effects taken and not yet completed or failed, by id. */
  private readonly applying: Attempts;
  private readonly applier: EffectApplier;
  /** Webhook effects in hand (being sent, or waiting for a slot), by their outbox partition: one per installation. */
  private readonly delivering = new Map<number, number>();

  constructor(opts: DrainerOptions) {
    this.o = drainerSettings(opts);
    this.applying = new Attempts({ ledger: this.o.ledger, clock: this.o.clock, lockMs: this.o.lockMs, log: this.o.log });
    this.applier = new EffectApplier(this.o, this.applying, {
      stopping: () => this.stopping,
      pause: (installation, until) => this.pausedUntil.set(installation, Math.max(this.pausedUntil.get(installation) ?? 0, until)),
      kick: () => this.kick(),
      misconfigured: (problem, now) => {
        const seen = this.misconfigured.get(problem);
        if (seen) seen.parked++;
        else this.misconfigured.set(problem, { since: now, parked: 1 });
        return seen === undefined;
      },
    });
  }

  /** Starts the background loop. */
  start(): void {
    if (this.running) return;
    this.stopping = false;
    this.running = this.loop();
  }

  /**
   * Stops taking effects and waits for the pass in flight to finish, for at
   * most `stopGraceMs`. A pass takes up to a batch of effects whose writes
   * queue behind GitHub's throttle (a second each), so it can outlast any
   * shutdown deadline; and a lock left by a process that exits holds its
   * effects back for `lockMs` after the restart. So what is still being
   * applied then is handed back, due at once. Applying it again is harmless:
   * labels are reconciled, and a reply that may have posted (the effect's
   * attempt was counted) is looked for before it is posted again.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    let timer: NodeJS.Timeout | undefined;
    const finished = await Promise.race([
      (this.running ?? Promise.resolve()).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.o.stopGraceMs))),
    ]);
    clearTimeout(timer);
    if (!finished) {
      const now = this.o.clock();
      // Aborted first: the attempts make no further call, and cannot complete over the hand-back.
      const handBack = this.applying.abortAll("handed back at shutdown");
      for (const a of handBack) await this.o.ledger.failEffect(a.fence, now, "handed back at shutdown", now).catch(() => false);
      this.o.log.warn({ effects: handBack.map((a) => a.effect.id) }, "outbox: shutting down; effects still being applied were handed back");
    }
    this.running = null;
  }

  /** Asks for a pass soon (after a ledger operation wrote effects). */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Installations currently waiting out a rate limit. */
  /** What is wrong with the app's address for GitHub, as GitHub's 404s said, each with when it was first seen and the effects it parked. */
  problems(): Array<{ problem: string; since: number; parked: number }> {
    return [...this.misconfigured].map(([problem, seen]) => ({ problem, ...seen }));
  }

  paused(now = this.o.clock()): number[] {
    return [...this.pausedUntil].filter(([, until]) => until > now).map(([id]) => id);
  }

  /** One pass: takes up to a batch of due effects and applies them. Returns how many were taken. */
  drainOnce(): Promise<number> {
    // Passes never overlap within one process; other processes are kept apart by the ledger's locks.
    return this.passes.once();
  }

  /** Drains until no effect is due now (for tests and shutdown). */
  drainAll(maxPasses = 10_000): Promise<void> {
    return this.passes.all(maxPasses);
  }

  private async pass(): Promise<number> {
    const effects = await this.take(this.o.batchSize);
    await Promise.all(effects.map((effect) => this.apply(effect)));
    return effects.length;
  }

  /** Takes due effects, never one this drainer is applying. */
  private take(room: number): Promise<Effect[]> {
    const now = this.o.clock();
    const hold: Hold[] = this.paused(now).map((installation) => ({ installation, fromPriority: 0 }));
    for (const h of this.o.budget?.held() ?? []) if (!hold.some((p) => p.installation === h.installation)) hold.push(h);
    hold.push(...this.deliveriesHeld());
    return this.o.ledger.takeEffects(now, room, this.o.lockMs, hold, this.applying.ids());
  }

  /**
   * The webhook partitions not to take from now: an installation's with its
   * share of the sender in hand, and, with every slot in hand, all those in
   * hand. A take may still bring up to a batch more (the ledger counts no
   * kind); those wait for a slot, bounded by the batch.
   */
  private deliveriesHeld(): Hold[] {
    if (!this.o.sendEvent) return [];
    const shares = this.o.sendEvent.shares ?? DEFAULT_DELIVERY_SHARES;
    let total = 0;
    for (const n of this.delivering.values()) total += n;
    return [...this.delivering]
      .filter(([, n]) => total >= shares.total || n >= shares.perInstallation)
      .map(([installation]) => ({ installation, fromPriority: 0 }));
  }

  /** Applies a taken effect, counting the webhook effects in hand. */
  private apply(effect: Effect): Promise<void> {
    if (effect.kind !== WEBHOOK) return this.applier.apply(effect);
    const partition = effect.installation;
    this.delivering.set(partition, (this.delivering.get(partition) ?? 0) + 1);
    return this.applier.apply(effect).finally(() => {
      const n = (this.delivering.get(partition) ?? 1) - 1;
      if (n > 0) this.delivering.set(partition, n);
      else this.delivering.delete(partition);
    });
  }

  /**
   * The background loop: keeps up to `batchSize` effects in flight, taking
   * more as soon as one finishes, so that one slow effect (a long retry, a
   * throttled write) holds back only its own issue. Webhook deliveries are
   * not counted: a receiver that does not answer holds only its own target's
   * (and its installation's share of the sender's slots: `take`).
   */
  private async loop(): Promise<void> {
    const { log } = this.o;
    const running = new Set<Promise<void>>();
    const delivering = new Set<Promise<void>>();
    let ledgerFailures = 0;
    while (!this.stopping) {
      const room = this.o.batchSize - running.size;
      let taken = 0;
      if (room > 0) {
        try {
          const effects = await this.take(room);
          ledgerFailures = 0;
          taken = effects.length;
          for (const effect of effects) {
            const set = effect.kind === WEBHOOK ? delivering : running;
            const p: Promise<void> = this.apply(effect).finally(() => {
              set.delete(p);
              this.wake?.();
            });
            set.add(p);
          }
        } catch (error) {
          ledgerFailures += 1;
          log.error({ err: error }, "outbox: taking effects failed; will try again");
        }
      }
      if (this.stopping) break;
      // A ledger that does not answer is asked again less and less often.
      const idle = ledgerFailures > 0 ? Math.min(this.o.maxLedgerBackoffMs, this.o.pollMs * 2 ** (ledgerFailures - 1)) : this.o.pollMs;
      // A full take may have left more due; a kick says new effects were written.
      if (ledgerFailures === 0 && ((taken > 0 && taken === room) || (this.kicked && room > 0))) {
        this.kicked = false;
        continue;
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, idle);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
    }
    await Promise.all([...running, ...delivering]);
  }
}
