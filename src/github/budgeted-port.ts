/**
 * The GitHub port of one effect, taking a slot of its installation's budget
 * (budget.ts) before each request and giving it back when the answer came.
 * What each call costs is written here, once: a POST creates content.
 */
import type { Demand, GitHubBudget, Slot } from "./budget.js";
import { CONTENT, type Cost, READ, WRITE } from "./budget-settings.js";
import { aroundEachCall, type GitHubPort } from "./github-port.js";

/** Every call of the port and what it costs against GitHub's limits. */
export const PORT_COSTS: Record<keyof GitHubPort, Cost> = {
  addLabels: CONTENT,
  createLabel: CONTENT,
  addAssignee: CONTENT,
  createComment: CONTENT,
  createCheckRun: CONTENT,
  removeIssueLabel: WRITE,
  deleteRepoLabel: WRITE,
  removeAssignee: WRITE,
  hasOwnComment: READ,
  labelExists: READ,
  permission: READ,
  account: READ,
  openPullRequests: READ,
  closingIssues: READ,
  openIssues: READ,
  blockedIssues: READ,
  issue: READ,
  // One document, however many mutations it holds: GitHub counts a request with mutations as 5 points and one content request.
  mutate: CONTENT,
  lookupIds: READ,
};

/**
 * `port` taking a slot of the budget before each call, for the effect whose
 * `demand` (its installation, its tier, what it may still create) is given.
 */
export function budgeted(port: GitHubPort, budget: GitHubBudget, demand: Demand, signal?: AbortSignal): GitHubPort {
  const ahead: Slot[] = [];
  const wrapped = aroundEachCall(port, async (name, call) => {
    const cost = PORT_COSTS[name];
    const slot = (cost.content && ahead.shift()) || (await budget.acquire(demand.installation, demand.tier, cost, signal, demand));
    try {
      return await call();
    } finally {
      slot.release();
    }
  });
  reservations.set(wrapped, async () => {
    const slot = await budget.acquire(demand.installation, demand.tier, CONTENT, signal, demand);
    ahead.push(slot);
    return {
      cancel: () => {
        // Unless a content request used it meanwhile (it was then released as that request's).
        const k = ahead.indexOf(slot);
        if (k === -1) return;
        ahead.splice(k, 1);
        slot.cancel();
      },
    };
  });
  return wrapped;
}

const reservations = new WeakMap<GitHubPort, () => Promise<{ cancel(): void }>>();

/**
 * Takes a content slot of a budgeted port's budget now, for its next
 * content request (the GraphQL path takes it before its repository's turn,
 * so that an effect never waits for GitHub's budget while other effects of
 * the repository wait for the turn). `cancel` gives it back unused.
 * Nothing to take for a port without a budget.
 */
export async function takeContentAhead(port: GitHubPort): Promise<{ cancel(): void }> {
  return (await reservations.get(port)?.()) ?? { cancel: () => undefined };
}
