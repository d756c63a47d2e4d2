/**
 * The effects a decision writes, as data: for each case a lease operation's
 * result can come to, the effects to queue with it. The caller decides them
 * all before the transaction (leasing/lease-decision.ts); the transaction
 * names the case (`resultCase`) and writes that case's effects, each with
 * the result attached when it asks (the outbox completes its reply from it:
 * github/reply-fill.ts) and with the reply budget the transaction decided.
 * Nothing here calls back into the caller, and nothing knows what a reply says.
 */
import type { NewEffect } from "../outbox/outbox-types.js";
import type { ReplyBudget } from "./reply-budget.js";
import type { LedgerResult } from "./lease-types.js";
import type { RepoInfo } from "../repos/repo-memory.js";

/**
 * What a result comes to, finer than its outcome where the effects differ:
 * a claim that begins a tenure or carries one on (`acquired.again`), a lease
 * handed to the first in line as it ended (`.handoff`) or as a claim found
 * it expired (`.handedOver`), a release of nothing (`released.nothing`).
 */
export type ResultCase =
  | "acquired"
  | "acquired.again"
  | "held"
  | "held.handedOver"
  | "queued"
  | "queued.handedOver"
  | "limit"
  | "renewed"
  | "not_holder"
  | "released"
  | "released.nothing"
  | "released.handoff"
  | "left_queue"
  | "stale"
  | "noted"
  | "expired"
  | "expired.handoff"
  | "reminded";

export function resultCase(r: LedgerResult): ResultCase {
  switch (r.outcome) {
    case "acquired":
      return r.newTenure ? "acquired" : "acquired.again";
    case "held":
    case "queued":
      return r.handedOver ? `${r.outcome}.handedOver` : r.outcome;
    case "released":
      return r.handoff ? "released.handoff" : r.lease ? "released" : "released.nothing";
    case "expired":
      return r.handoff ? "expired.handoff" : "expired";
    default:
      return r.outcome;
  }
}

/** One effect of a case, and how the transaction writes it. */
export interface CaseEffect {
  effect: NewEffect;
  /** The result goes with it, as `payload.decided`: what the outbox completes its reply from. */
  withResult?: boolean;
  /**
   * The actor's reply budget bears on it: over the limit, its payload says so
   * (`payload.budget`: the outbox posts no reply, or the notice with it); and
   * once silent, an effect that shows nothing but its reply is not written
   * (`drop`) while one that also shows the lease is (`keep`).
   */
  budgeted?: "keep" | "drop";
}

/** Effects by case; `any`: those of every case not named. */
export type EffectCases = { readonly [C in ResultCase | "any"]?: readonly CaseEffect[] };

/** The effects of `cases` for this result, as they will be queued. `budget` and `limit`: the actor's reply budget and replies per hour. */
export function effectsFor(cases: EffectCases | undefined, result: LedgerResult, budget: ReplyBudget, limit: number): NewEffect[] {
  const chosen = cases?.[resultCase(result)] ?? cases?.any ?? [];
  const out: NewEffect[] = [];
  for (const { effect, withResult, budgeted } of chosen) {
    if (budgeted === "drop" && budget === "silent") continue;
    if (!withResult && (!budgeted || budget === "reply")) {
      out.push(effect);
      continue;
    }
    const payload = effect.payload as Record<string, unknown>;
    out.push({
      ...effect,
      payload: {
        ...payload,
        ...(withResult ? { decided: result } : {}),
        ...(budgeted && budget !== "reply" ? { budget: { left: budget, perHour: limit } } : {}),
      },
    });
  }
  return out;
}

/** Whether `cases` writes anything for this result, before the budget: what counts toward the budget when only posts count. */
export function writesFor(cases: EffectCases | undefined, result: LedgerResult): boolean {
  return (cases?.[resultCase(result)] ?? cases?.any ?? []).length > 0;
}

/**
 * `effect` written for a lease of `repo`, as a rename writes one per lease
 * renamed: with the installation serving the repository and its owner and
 * name in the payload (as every kind's payload names them); none where the
 * repository was never remembered (no installation to write with).
 */
export function effectIn(effect: NewEffect | undefined, repo: RepoInfo | null | undefined): NewEffect[] {
  if (!effect || !repo) return [];
  const [owner = "", name = ""] = repo.repo.split("/");
  return [{ ...effect, installation: repo.installation, payload: { ...(effect.payload as Record<string, unknown>), owner, repo: name } }];
}

/** The same effects whatever the result comes to. */
export function always(...effects: NewEffect[]): EffectCases {
  return { any: effects.map((effect) => ({ effect })) };
}
