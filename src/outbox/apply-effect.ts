/**
 * One attempt at one effect, as the drainer hands it over: applied through
 * its installation's GitHub port (a slot of the installation's budget first,
 * by the effect's tier) or, for a webhook effect, POSTed to its receiver;
 * then completed in the ledger, or its failure recorded as what comes next
 * (after-failure.ts): a pause of the installation, a drop, a retry, parking.
 */
import type { Effect, EffectFence } from "../ledger/types.js";
import { fenced, type GitHubPort, httpStatus } from "../github/github-port.js";
import type { Demand } from "../github/budget.js";
import type { Tier } from "../github/budget-settings.js";
import { budgeted } from "../github/budgeted-port.js";
import { nextAfterFailure } from "./after-failure.js";
import type { Attempts } from "./attempts.js";
import { applyConfigCheck } from "./config-check.js";
import type { AttemptOutcome, DrainerSettings } from "./drainer-options.js";
import { CHECK, type CheckPayload, CONFIG_CHECK, type ConfigCheckPayload, REFLECT, type ReflectPayload, WEBHOOK } from "./effects.js";
import { applyWebhook } from "./webhook-delivery.js";
import { applyCheck } from "./pull-check.js";
import { Reflector } from "./reflector.js";

/** The budget's tier of an effect: its outbox priority (0 replies to commands, 1 notices, 2 label-only work). */
export const tierOf = (effect: Effect): Tier => Math.min(2, Math.max(0, effect.priority ?? 0)) as Tier;

/** What the attempts ask of the drainer that runs them. */
export interface ApplierHooks {
  /** Whether the drainer is stopping (an aborted attempt is then handed back, not lost). */
  stopping(): boolean;
  /** Takes no effect of `installation` before `until` (a rate limit). */
  pause(installation: number, until: number): void;
  /** Asks for a pass soon: an attempt wrote new effects. */
  kick(): void;
}

export class EffectApplier {
  private readonly reflector: Reflector;

  constructor(
    private readonly o: DrainerSettings,
    private readonly attempts: Attempts,
    private readonly hooks: ApplierHooks,
  ) {
    this.reflector = new Reflector({
      ledger: o.ledger,
      clock: o.clock,
      owner: o.owner,
      labelLockMs: o.labelLockMs,
      stopping: () => hooks.stopping(),
      onLeaseChanged: o.onLeaseChanged,
      writes: o.writes,
      ...(o.nodeIds ? { nodeIds: o.nodeIds } : {}),
    });
  }

  /** Applies one effect; never throws (what fails is recorded in the ledger, or left to the lock's expiry). */
  async apply(effect: Effect): Promise<void> {
    const { ledger, clock, log } = this.o;
    const attempt = this.attempts.begin(effect);
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
          this.o.onAttempt?.(effect, this.hooks.stopping() ? "handed_back" : "lost_lock", clock());
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
      this.attempts.end(attempt);
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
        this.hooks.pause(effect.installation, now + next.waitMs);
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
    if (await applyCheck(this.o, effect, p, github)) this.hooks.kick();
  }
}
