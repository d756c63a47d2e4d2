/**
 * The GitHub port of one effect, taking a slot of its installation's budget
 * (budget.ts) before each request and giving it back when the answer came.
 * What each call costs is written here, once: a POST creates content.
 */
import type { Demand, GitHubBudget } from "./budget.js";
import { CONTENT, type Cost, READ, type Tier, WRITE } from "./budget-settings.js";
import type { GitHubPort } from "./github-port.js";

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
};

/** `demand`: what the effect may still create (budget.ts), counted down as its content requests get slots. */
export function budgeted(
  port: GitHubPort,
  budget: GitHubBudget,
  installation: number,
  tier: Tier,
  signal?: AbortSignal,
  demand?: Demand,
): GitHubPort {
  return new Proxy(port, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      const cost = PORT_COSTS[prop as keyof GitHubPort];
      if (typeof value !== "function" || !cost) return value;
      return async (...args: unknown[]) => {
        const slot = await budget.acquire(installation, tier, cost, signal, demand);
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          slot.release();
        }
      };
    },
  });
}
