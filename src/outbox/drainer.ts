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
 * - No error ends the process: a ledger that does not answer is logged and
 *   retried with backoff; effects it could not record are taken again when
 *   their lock expires.
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import type { Logger } from "pino";
import type { Effect, EffectFence, Hold, IssueKey, Lease } from "../ledger/types.js";
import type { FollowLinks, LeaseReads, NamedLocks, OutboxStore, Reflections } from "../ledger/roles.js";
import { fenced, type GitHubPort, httpStatus } from "../github/github-port.js";
import type { Demand, GitHubBudget } from "../github/budget.js";
import type { Tier } from "../github/budget-settings.js";
import { budgeted } from "../github/budgeted-port.js";
import { nextAfterFailure } from "./after-failure.js";
import { Attempts } from "./attempts.js";
import { applyConfigCheck } from "./config-check.js";
import { CHECK, type CheckPayload, CONFIG_CHECK, type ConfigCheckPayload, REFLECT, type ReflectPayload, WEBHOOK } from "./effects.js";
import type { SendEvent } from "../events/send-event.js";
import { applyWebhook } from "./webhook-delivery.js";
import { applyCheck } from "./pull-check.js";
import { Reflector } from "./reflector.js";

export interface DrainerOptions {
  ledger: OutboxStore & LeaseReads & Reflections & NamedLocks & FollowLinks;
  github: (installation: number) => Promise<GitHubPort>;
  clock: () => number;
  log: Pick<Logger, "info" | "warn" | "error" | "debug">;
  /** Effects taken per pass. */
  batchSize?: number;
  /**
   * How long an effect stays with the drainer that took it if that drainer
   * stops extending it (a replica killed mid-effect). Extended every third of
   * it while the effect is applied, so it bounds only how long a dead
   * replica's effects wait for another.
   */
  lockMs?: number;
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How often to look for due effects when nothing woke the drainer. */
  pollMs?: number;
  /** How long `stop` waits for the pass in flight before handing its effects back to the outbox. */
  stopGraceMs?: number;
  random?: () => number;
  /** Called after an issue's lease changed on GitHub (for pull request checks). */
  onLeaseChanged?: (installation: number, key: IssueKey, lease: Lease | null) => Promise<void>;
  /** Who this drainer is, in the ledger's locks: unique per process. */
  owner?: string;
  /** How long a repository's label lock lasts if its holder dies holding it (shared ledgers only). */
  labelLockMs?: number;
  /** The longest wait between tries while the ledger does not answer. */
  maxLedgerBackoffMs?: number;
  /** Told what became of each attempt the ledger recorded, or that lost its lock (for metrics). */
  onAttempt?: (effect: Effect, outcome: AttemptOutcome, now: number) => void;
  /** GitHub's budget per installation; null (the default): no budget but GitHub's own answers. */
  budget?: GitHubBudget | null;
  /** The least a secondary rate limit pauses an installation for; default a minute, as GitHub asks. */
  minPauseMs?: number;
  /** Told of each rate limit GitHub answered (for metrics). */
  onRateLimited?: (installation: number, waitMs: number) => void;
  /** Sends webhook effects (events/send-event.ts); null (the default): no `EVENTS_WEBHOOK_SECRET`, and they are parked. */
  sendEvent?: SendEvent | null;
}

/** The budget's tier of an effect: its outbox priority (0 replies to commands, 1 notices, 2 label-only work). */
export const tierOf = (effect: Effect): Tier => Math.min(2, Math.max(0, effect.priority ?? 0)) as Tier;

/** What became of an attempt at an effect; "lost_lock" when another drainer had taken it meanwhile. */
export type AttemptOutcome = "completed" | "dropped" | "retried" | "paused" | "parked" | "lost_lock" | "handed_back";

export const DEFAULT_LOCK_MS = 20_000;

export class Drainer {
  private readonly o: Required<Omit<DrainerOptions, "onLeaseChanged" | "onAttempt" | "onRateLimited">> &
    Pick<DrainerOptions, "onLeaseChanged" | "onAttempt" | "onRateLimited">;
  private readonly pausedUntil = new Map<number, number>();
  private running: Promise<void> | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private kicked = false;
  private inFlight: Promise<number> | null = null;
  /** Effects taken and not yet completed or failed, by id. */
  private readonly applying: Attempts;
  private readonly reflector: Reflector;

  constructor(opts: DrainerOptions) {
    this.o = {
      batchSize: 20,
      lockMs: DEFAULT_LOCK_MS,
      maxAttempts: 8,
      backoffMs: 1000,
      maxBackoffMs: 5 * 60_000,
      pollMs: 1000,
      stopGraceMs: 5000,
      random: Math.random,
      owner: `${hostname()}/${process.pid}/${randomUUID()}`,
      labelLockMs: DEFAULT_LOCK_MS,
      maxLedgerBackoffMs: 10_000,
      budget: null,
      minPauseMs: 60_000,
      sendEvent: null,
      ...opts,
    };
    this.applying = new Attempts({ ledger: this.o.ledger, clock: this.o.clock, lockMs: this.o.lockMs, log: this.o.log });
    this.reflector = new Reflector({
      ledger: this.o.ledger,
      clock: this.o.clock,
      owner: this.o.owner,
      labelLockMs: this.o.labelLockMs,
      stopping: () => this.stopping,
      onLeaseChanged: this.o.onLeaseChanged,
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
  paused(now = this.o.clock()): number[] {
    return [...this.pausedUntil].filter(([, until]) => until > now).map(([id]) => id);
  }

  /** One pass: takes up to a batch of due effects and applies them. Returns how many were taken. */
  async drainOnce(): Promise<number> {
    // Passes never overlap within one process; other processes are kept apart by the ledger's locks.
    while (this.inFlight) await this.inFlight;
    this.inFlight = this.pass();
    try {
      return await this.inFlight;
    } finally {
      this.inFlight = null;
    }
  }

  /** Drains until no effect is due now (for tests and shutdown). */
  async drainAll(maxPasses = 10_000): Promise<void> {
    for (let i = 0; i < maxPasses; i++) if ((await this.drainOnce()) === 0) return;
  }

  private async pass(): Promise<number> {
    const effects = await this.take(this.o.batchSize);
    await Promise.all(effects.map((effect) => this.applyOne(effect)));
    return effects.length;
  }

  /** Takes due effects, never one this drainer is applying. */
  private take(room: number): Promise<Effect[]> {
    const now = this.o.clock();
    const hold: Hold[] = this.paused(now).map((installation) => ({ installation, fromPriority: 0 }));
    for (const h of this.o.budget?.held() ?? []) if (!hold.some((p) => p.installation === h.installation)) hold.push(h);
    return this.o.ledger.takeEffects(now, room, this.o.lockMs, hold, this.applying.ids());
  }

  /**
   * The background loop: keeps up to `batchSize` effects in flight, taking
   * more as soon as one finishes, so that one slow effect (a long retry, a
   * throttled write) holds back only its own issue. Webhook deliveries are
   * not counted: a receiver that does not answer holds only its own target's.
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
            const p: Promise<void> = this.applyOne(effect).finally(() => {
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

  /** Applies one effect; never throws (what fails is recorded in the ledger, or left to the lock's expiry). */
  private async applyOne(effect: Effect): Promise<void> {
    const { ledger, clock, log } = this.o;
    const attempt = this.applying.begin(effect);
    let demand: Demand | undefined;
    const where = { effect: effect.id, attempt: effect.attempts, installation: effect.installation, repoId: effect.repoId, issue: effect.issue };
    try {
      try {
        const signal = attempt.abort.signal;
        const { budget } = this.o;
        if (effect.kind === WEBHOOK) {
          const outcome = await applyWebhook(effect, attempt.fence, signal, this.o);
          this.o.onAttempt?.(effect, outcome, clock());
          return;
        }
        const port = fenced(await this.o.github(effect.installation), signal);
        demand = budget?.demand(effect.installation, tierOf(effect));
        const github = budget && demand ? budgeted(port, budget, demand, signal) : port;
        const fold = budget?.folding(effect.installation) ?? false;
        if (effect.kind === REFLECT) await this.reflector.apply(effect, effect.payload as ReflectPayload, github, signal, { fold });
        else if (effect.kind === CHECK) await this.check(effect, effect.payload as CheckPayload, github);
        else if (effect.kind === CONFIG_CHECK) await applyConfigCheck(effect.payload as ConfigCheckPayload, github);
        else throw new Error(`unknown effect kind ${effect.kind}`);
        const now = clock();
        const completed = await ledger.completeEffect(attempt.fence, now);
        if (!completed) log.warn(where, "outbox: an effect's lock was lost before it was completed");
        this.o.onAttempt?.(effect, completed ? "completed" : "lost_lock", now);
      } catch (error) {
        if (attempt.abort.signal.aborted) {
          this.o.onAttempt?.(effect, this.stopping ? "handed_back" : "lost_lock", clock());
          log.warn({ ...where, reason: String(attempt.abort.signal.reason) }, "outbox: stopped applying an effect whose lock was lost");
        } else if (effect.kind === WEBHOOK) {
          // Only the ledger throws out of a delivery (its failures are recorded there): the lock's expiry hands it on.
          throw error;
        } else {
          await this.failed(effect, attempt.fence, error);
        }
      }
    } catch (error) {
      // The ledger did not answer: the effect stays locked, and is taken again when the lock expires.
      log.error({ ...where, err: error }, "outbox: could not record an effect's outcome; it will be taken again");
    } finally {
      demand?.end();
      this.applying.end(attempt);
    }
  }

  private async failed(effect: Effect, fence: EffectFence, error: unknown): Promise<void> {
    const { ledger, clock, log } = this.o;
    const now = clock();
    const status = httpStatus(error);
    const message = `${status ?? "error"}: ${(error as Error)?.message ?? String(error)}`.slice(0, 500);
    const where = { effect: effect.id, installation: effect.installation, repoId: effect.repoId, issue: effect.issue, attempts: effect.attempts };
    const next = nextAfterFailure(error, effect.attempts, now, this.o);
    // The ledger refuses an attempt that is no longer the current one: another drainer took the effect.
    const recorded = (outcome: AttemptOutcome, current: boolean) => this.o.onAttempt?.(effect, current ? outcome : "lost_lock", now);
    switch (next.action) {
      case "pause":
        // Wait as GitHub says, for this installation only; others carry on.
        this.pausedUntil.set(effect.installation, Math.max(this.pausedUntil.get(effect.installation) ?? 0, now + next.waitMs));
        this.o.budget?.pause(effect.installation, next.waitMs);
        this.o.onRateLimited?.(effect.installation, next.waitMs);
        log.warn({ ...where, waitMs: next.waitMs }, "outbox: GitHub rate limit; pausing this installation");
        return recorded("paused", await ledger.failEffect(fence, now, message, now + next.waitMs));
      case "drop":
        log.warn({ ...where, status }, "outbox: the issue is gone; dropping the effect");
        return recorded("dropped", await ledger.completeEffect(fence, now));
      case "park":
        log.error({ ...where, error: message }, "outbox: effect parked as failed; it is retried on restart");
        return recorded("parked", await ledger.failEffect(fence, now, message, null));
      case "retry":
        log.warn({ ...where, retryAt: next.at, error: message }, "outbox: effect failed; will retry");
        return recorded("retried", await ledger.failEffect(fence, now, message, next.at));
    }
  }

  private async check(effect: Effect, p: CheckPayload, github: GitHubPort): Promise<void> {
    // Leases the pull request took or let go have effects of their own now.
    if (await applyCheck(this.o, effect, p, github)) this.kick();
  }
}
