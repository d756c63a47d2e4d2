/**
 * A reply decided before the ledger answered: the handler writes what it
 * knows (who asked, the command, the outcome its case means) and names what
 * the ledger's answer fills in (`ReplyFill`); the transaction writes the
 * answer with it (`decided`) and the reply budget it met (`budget`), and the
 * outbox completes the reply from them when it applies the effect. Pure: the
 * same payload completes to the same reply. A payload written complete (no
 * `fill`) is posted as written.
 */
import type { Lease, LimitScope } from "../ledger/leases/lease-types.js";
import type { ReplyBudget } from "../ledger/leases/reply-budget.js";
import { limitReason } from "./limit-reason.js";
import { leaseView, type Reply } from "../commands/reply.js";

/** What of a reply the ledger's answer gives. */
export interface ReplyFill {
  /** The lease the reply shows: the answer's `lease`, or the tenure it handed to the first in line (`handoff`). */
  lease?: "lease" | "handoff";
  /** The tenure that ended before a handoff: the answer's `lease` (released) or `handedOver` (expired before a claim found it). */
  previous?: { from: "lease" | "handedOver"; ended: "released" | "expired" };
  /** The place in line of a `queued` answer: `position` and `queuedUntil`. */
  place?: true;
  /** The reason of a claim refused at a limit, for the repository of this id. */
  limitIn?: number;
}

/** The reply budget a transaction found used up (effect-cases.ts): no reply, or the notice that further ones are held back. */
export interface BudgetMet {
  left: Exclude<ReplyBudget, "reply">;
  perHour: number;
}

/** A reflect payload's reply as written, and what completes it. */
export interface ReplyParts {
  reply: Reply | null;
  fill?: ReplyFill;
  decided?: unknown;
  budget?: BudgetMet;
}

/** The reply to post: the one written, completed from the ledger's answer, within the budget it met. */
export function replyOf(p: ReplyParts): Reply | null {
  if (p.reply === null) return null;
  const reply = p.fill ? filled(p.reply, p.fill, (p.decided ?? {}) as Answer) : p.reply;
  return p.budget ? withinBudget(reply, p.budget) : reply;
}

type Answer = {
  lease?: Lease | null;
  handoff?: Lease;
  handedOver?: Lease;
  position?: number;
  until?: number;
  limit?: number;
  held?: Lease[];
  scope?: LimitScope;
};

function filled(reply: Reply, fill: ReplyFill, answer: Answer): Reply {
  const out: Reply = { ...reply };
  if (fill.lease) out.lease = leaseView((fill.lease === "handoff" ? answer.handoff : answer.lease) ?? null);
  if (fill.previous) {
    const previous = leaseView((fill.previous.from === "handedOver" ? answer.handedOver : answer.lease) ?? null);
    if (previous) out.previous = { lease: previous, ended: fill.previous.ended };
    else delete out.previous;
  }
  if (fill.place) Object.assign(out, { position: answer.position, queuedUntil: answer.until });
  if (fill.limitIn !== undefined) {
    out.reason = limitReason({ repoId: fill.limitIn, repo: "", issue: 0 }, { limit: answer.limit ?? 0, held: answer.held ?? [], ...(answer.scope ? { scope: answer.scope } : {}) });
  }
  return out;
}

/**
 * A reply past the actor's budget: none when silent, else with the notice
 * that the limit was reached. A handoff's reply is for the one the lease
 * passed to, who waited for it: not the actor's to hold back.
 */
function withinBudget(reply: Reply, budget: BudgetMet): Reply | null {
  if (reply.op === "handoff") return reply;
  if (budget.left === "silent") return null;
  const n = budget.perHour;
  const notice =
    `You have reached ${n} ${n === 1 ? "reply" : "replies"} an hour in this repository: your further commands this hour still run, ` +
    "but get no reply (the labels show the lease).";
  return { ...reply, reason: reply.reason ? `${reply.reason}\n\n${notice}` : notice };
}
