/**
 * The GitHub port of one effect, taking a slot of its installation's budget
 * (budget.ts) before each request and giving it back when the answer came.
 * What each call costs is written here, once: a POST creates content.
 */
import type { Demand, GitHubBudget } from "./budget.js";
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
  // One document, however many mutations it holds: GitHub counts a request with mutations as 5 points and one content request.
  mutate: CONTENT,
  lookupIds: READ,
};

/**
 * `port` taking a slot of the budget before each call, for the effect whose
 * `demand` (its installation, its tier, what it may still create) is given.
 */
export function budgeted(port: GitHubPort, budget: GitHubBudget, demand: Demand, signal?: AbortSignal): GitHubPort {
  return aroundEachCall(port, async (name, call) => {
    const slot = await budget.acquire(demand.installation, demand.tier, PORT_COSTS[name], signal, demand);
    try {
      return await call();
    } finally {
      slot.release();
    }
  });
}
