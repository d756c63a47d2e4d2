/**
 * Replies per person: no one can make the app post more than a bounded
 * number of comments an hour in a repository (a comment edited back and
 * forth runs its command at every edit). The ledger counts and decides the
 * budget in the command's transaction; this module says who is limited and
 * applies the budget to the command's effects. Past the limit commands still
 * run and are recorded, and labels still follow: only the reply is held back.
 */
import type { Config } from "../config/schema.js";
import type { NewEffect } from "../ledger/outbox/outbox-types.js";
import type { ReplyBudget } from "../ledger/leases/lease-roles.js";
import { REFLECT, type ReflectPayload } from "../outbox/effects.js";

/** Maintainers, as GitHub's `author_association` tells them: never limited. */
const TRUSTED = new Set(["OWNER", "MEMBER", "COLLABORATOR"]);

/** The replies per hour a comment's author may get (0: no limit). */
export function repliesPerHour(association: string, config: Config): number {
  return TRUSTED.has(association.toUpperCase()) ? 0 : config.maxRepliesPerHour;
}

/** The command's effects under `budget`: the reply kept, replaced by nothing, or with the notice that the limit was reached. */
export function withinBudget(effects: NewEffect[], budget: ReplyBudget, limit: number): NewEffect[] {
  if (budget === "reply") return effects;
  return effects.flatMap((effect) => {
    if (effect.kind !== REFLECT) return [effect];
    const p = effect.payload as ReflectPayload;
    // A handoff's reply is for the one the lease passed to, who waited for it: not the actor's reply to hold back.
    if (!p.reply || p.reply.op === "handoff") return [effect];
    if (budget === "silent") return p.reconcile || p.gone ? [{ ...effect, payload: { ...p, reply: null } }] : [];
    const notice =
      `You have reached ${limit} ${limit === 1 ? "reply" : "replies"} an hour in this repository: your further commands this hour still run, ` +
      "but get no reply (the labels show the lease).";
    const reason = p.reply.reason ? `${p.reply.reason}\n\n${notice}` : notice;
    return [{ ...effect, payload: { ...p, reply: { ...p.reply, reason } } }];
  });
}
