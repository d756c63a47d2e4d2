/**
 * Claim next (issue 22): walks the ready list of the inventory in the
 * filter's order and claims the first issue it can, each attempt one claim
 * transaction (the caller's `attempt`, the same LeaseCommand.claim as any
 * claim). An issue lost to a concurrent claimer, or refused for a reason of
 * that issue (`author_first`, closed, a label's limit), is skipped; a
 * refusal of the caller (claimers, their limits, a broken config) is the
 * answer. Concurrent walks in one process never try the same issue at once:
 * the issues being tried are left out of each read of the ready list (its
 * `skip`); a walk that finds nothing else waits for those attempts and reads
 * again, so that an issue another call could not take is not missed, and
 * `nothing_ready` counts what those calls took. Nothing is asked of GitHub
 * here: the inventory answers.
 */
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { ReadyFilter, ReadyIssue } from "../ledger/inventory/inventory-types.js";
import type { LeaseResult, Rule } from "./lease-result.js";

/** What one attempt came to: the issue taken, an issue to pass over, or the answer to give as it is. */
export type Attempt<A> = { kind: "taken"; answer: A } | { kind: "skip" } | { kind: "answer"; answer: A };

export type NextOutcome<A> = { kind: "answer"; answer: A } | { kind: "nothing_ready"; matched: number; held: number };

/** Refusals of the issue rather than of the caller: another issue may do. */
const ISSUE_RULES: ReadonlySet<Rule> = new Set<Rule>(["author_first", "closed", "limits_by_label"]);

/** A claim's result as an attempt of `next`. */
export function attemptOf<A>(result: LeaseResult, answer: A): Attempt<A> {
  if (result.outcome === "acquired") return { kind: "taken", answer };
  if (result.outcome === "held") return { kind: "skip" };
  if ((result.outcome === "forbidden" || result.outcome === "invalid") && ISSUE_RULES.has(result.rule)) return { kind: "skip" };
  return { kind: "answer", answer };
}

/** How many issues one read of the ready list gives, and how many attempts one call makes at most before it answers nothing_ready. */
const READ_AHEAD = 4;
const MAX_ATTEMPTS = 50;
/** How many times one call waits for the attempts of others before it answers. */
const MAX_WAITS = 20;

export interface NextDeps {
  ledger: Pick<Inventory, "readyIssues">;
  now: number;
  /** "repoId#issue" of the issues concurrent calls of this process are trying, and each attempt: shared by every call. */
  trying: Map<string, Promise<unknown>>;
}

export async function claimNext<A>(
  deps: NextDeps,
  query: ReadyFilter & { repoIds: number[] },
  attempt: (issue: ReadyIssue) => Promise<Attempt<A>>,
): Promise<NextOutcome<A>> {
  const { ledger, now, trying } = deps;
  const passed = new Set<string>();
  let attempts = 0;
  let waits = 0;
  while (attempts < MAX_ATTEMPTS) {
    const others = new Map(trying);
    const skip = new Set([...others.keys(), ...passed]);
    const { ready } = await ledger.readyIssues({ ...query, limit: READ_AHEAD, skip, counts: false }, now);
    if (ready.length === 0) {
      // Nothing else is free: what others are trying may yet fail (or be taken, and then counted as held).
      if (others.size === 0 || waits++ >= MAX_WAITS) break;
      await Promise.allSettled(others.values());
      continue;
    }
    for (const issue of ready) {
      const id = `${issue.repoId}#${issue.issue}`;
      // Taken up by another call while this one read the list.
      if (trying.has(id)) continue;
      passed.add(id);
      attempts++;
      const tried = attempt(issue);
      trying.set(id, tried);
      let a: Attempt<A>;
      try {
        a = await tried;
      } finally {
        trying.delete(id);
      }
      if (a.kind !== "skip") return { kind: "answer", answer: a.answer };
      if (attempts >= MAX_ATTEMPTS) break;
    }
  }
  const { matched, held } = await ledger.readyIssues({ ...query, limit: 0, counts: true }, now);
  return { kind: "nothing_ready", matched, held };
}
