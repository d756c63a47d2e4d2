/**
 * One attempt at one effect, as the drainer hands it over: applied through
 * its installation's GitHub port (a slot of the installation's budget first,
 * by the effect's tier) or, for a webhook effect, POSTed to its receiver;
 * then completed in the ledger, or its failure recorded as what comes next
 * (after-failure.ts): a pause of the installation, a drop, a retry, parking.
 */
import { type GitHubPort, httpStatus } from "../github/github-port.js";
import { type Effect, type EffectFence, fenceOf } from "../ledger/outbox/outbox-types.js";
import type { Demand } from "../github/budget.js";
import type { Tier } from "../github/budget-settings.js";
import { effectPort } from "../github/effect-port.js";
import { nextAfterFailure } from "./after-failure.js";
import type { Attempt, Attempts } from "./attempts.js";
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
  /** An effect was parked because GitHub's address is wrong (`problem` says what to fix); true the first time it is told. */
  misconfigured(problem: string, now: number): boolean;
}

/**
 * At most this many effects ride behind one (GITHUB_WRITES=graphql): a
 * document with a few replies is one request of GitHub's budget, and a
 * handful keeps it far from GraphQL's limits on a document's size and time.
 */
export const MAX_FOLLOWERS = 4;

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
      labelLingerMs: o.labelLingerMs,
      ...(o.nodeIds ? { nodeIds: o.nodeIds } : {}),
    });
  }

  /**
   * Applies one effect; never throws (what fails is recorded in the ledger,
   * or left to the lock's expiry). With GraphQL writes, a `reflect` effect
   * takes the effects waiting behind it on its issue along (at most
   * MAX_FOLLOWERS): one document for them all, each then completed or
   * failed as the document went.
   */
  async apply(effect: Effect): Promise<void> {
    const { ledger, clock, log } = this.o;
    const attempt = this.attempts.begin(effect);
    let group: Attempt[] = [attempt];
    let demand: Demand | undefined;
    const where = { effect: effect.id, attempt: effect.attempts, installation: effect.installation, repoId: effect.repoId, issue: effect.issue };
    let signal = attempt.abort.signal;
    try {
      try {
        const { budget } = this.o;
        if (effect.kind === WEBHOOK) {
          const outcome = await applyWebhook(effect, attempt.fence, signal, this.o);
          this.o.onAttempt?.(effect, outcome, clock());
          return;
        }
        const raw = await this.o.github(effect.installation);
        if (effect.kind === REFLECT && this.o.writes === "graphql" && raw.mutate) group = [attempt, ...(await this.followers(effect))];
        if (group.length > 1) signal = AbortSignal.any(group.map((a) => a.abort.signal));
        demand = budget?.demand(effect.installation, tierOf(effect));
        // One wrapper: the effect's lock fences each call, after its slot of the installation's budget.
        const github = effectPort(raw, { fence: signal, ...(budget && demand ? { budget: { budget, demand, signal } } : {}) });
        const fold = budget?.folding(effect.installation) ?? false;
        const followers = group.slice(1).map((a) => a.effect);
        if (effect.kind === REFLECT) await this.reflector.apply(effect, effect.payload as ReflectPayload, github, signal, { fold, followers });
        else if (effect.kind === CHECK) await this.check(effect, effect.payload as CheckPayload, github);
        else if (effect.kind === CONFIG_CHECK) await applyConfigCheck(effect.payload as ConfigCheckPayload, github);
        else throw new Error(`unknown effect kind ${effect.kind}`);
        for (const a of group) {
          const now = clock();
          const completed = await ledger.completeEffect(a.fence, now);
          if (!completed) log.warn({ ...where, effect: a.effect.id, attempt: a.fence.attempt }, "outbox: an effect's lock was lost before it was completed");
          this.o.onAttempt?.(a.effect, completed ? "completed" : "lost_lock", now);
        }
      } catch (error) {
        if (signal.aborted) {
          for (const a of group) this.o.onAttempt?.(a.effect, this.hooks.stopping() ? "handed_back" : "lost_lock", clock());
          log.warn({ ...where, reason: String(signal.reason) }, "outbox: stopped applying an effect whose lock was lost");
        } else if (effect.kind === WEBHOOK) {
          // Only the ledger throws out of a delivery (its failures are recorded there): the lock's expiry hands it on.
          throw error;
        } else {
          for (const [i, a] of group.entries()) await this.failed(a.effect, a.fence, error, i === 0);
        }
      }
    } catch (error) {
      // The ledger did not answer: the effects stay locked, and are taken again when their locks expire.
      log.error({ ...where, err: error }, "outbox: could not record an effect's outcome; it will be taken again");
    } finally {
      demand?.end();
      for (const a of group) this.attempts.end(a);
    }
  }

  /**
   * The `reflect` effects waiting behind `head` on its issue, taken and begun
   * as attempts. One for an issue that is gone is handed back, with what
   * follows it: it deletes labels from the repository, alone.
   */
  private async followers(head: Effect): Promise<Attempt[]> {
    const { ledger, clock, lockMs } = this.o;
    if ((head.payload as ReflectPayload).gone) return [];
    const taken = await ledger.takeFollowers(head, REFLECT, clock(), MAX_FOLLOWERS, lockMs);
    const cut = taken.findIndex((e) => (e.payload as ReflectPayload).gone);
    const kept = cut < 0 ? taken : taken.slice(0, cut);
    for (const e of cut < 0 ? [] : taken.slice(cut)) await ledger.failEffect(fenceOf(e), clock(), "handed back: applied alone", clock());
    return kept.map((e) => this.attempts.begin(e));
  }

  /** `lead`: the effect whose attempt met the failure (its followers' share it: one pause, one log line of a rate limit). */
  private async failed(effect: Effect, fence: EffectFence, error: unknown, lead = true): Promise<void> {
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
        if (!lead) return recorded("paused", await ledger.failEffect(fence, now, message, now + next.waitMs));
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
        if (next.misconfigured !== undefined) {
          // Nothing is gone: the app asks GitHub at a wrong address. Said once as an ERROR, with what to fix; /health says it too.
          if (this.hooks.misconfigured(next.misconfigured, now)) log.error({ ...where, status }, `outbox: ${next.misconfigured}`);
          else log.warn({ ...where, error: message }, "outbox: effect parked: GitHub's address is wrong (see the ERROR above and /health)");
          return recorded("misconfigured", await ledger.failEffect(fence, now, `${next.misconfigured} (${message})`.slice(0, 1000), null));
        }
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
