/**
 * The port an effect writes through: the installation's port
 * (octokit-port.ts) in one wrapper that holds every layer the outbox asks
 * for, where each was a wrapper of its own (fenced, budgeted, a repository
 * turn's fence, a batch's port):
 *
 * - `budget`: a slot of the installation's budget (budget.ts) before each
 *   call, given back when its answer came. What each call costs is written
 *   here, once: a POST creates content.
 * - `fence`: the effect's lock; a call fails once it is lost, checked as the
 *   call is sent (after its slot).
 * - `turn`: a repository turn's lock (outbox/repo-turns.ts), checked before a
 *   call waits for its slot.
 * - `batch`: an effect's writes recorded instead of sent (outbox/write-batch.ts):
 *   the batch's calls are its own, the reads go on to GitHub, and the port
 *   has no GraphQL calls of its own (the batch sends the document).
 *
 * A port made from a port made here is the same one wrapper over the same
 * installation's port, with the layers added; it shares the budget's
 * content slots taken ahead (`takeContentAhead`).
 */
import type { Demand, GitHubBudget, Slot } from "./budget.js";
import { CONTENT, type Cost, READ, WRITE } from "./budget-settings.js";
import type { GitHubPort } from "./github-port.js";
import type { GraphqlPort } from "./graphql-port.js";

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

/** The calls a batch records in place of GitHub (outbox/write-batch.ts). */
export type BatchedWrites = Pick<
  GitHubPort,
  "addLabels" | "removeIssueLabel" | "deleteRepoLabel" | "createLabel" | "addAssignee" | "removeAssignee" | "createComment" | "labelExists"
>;

const BATCHED: ReadonlySet<PropertyKey> = new Set<keyof BatchedWrites>([
  "addLabels",
  "removeIssueLabel",
  "deleteRepoLabel",
  "createLabel",
  "addAssignee",
  "removeAssignee",
  "createComment",
  "labelExists",
]);
const GRAPHQL: ReadonlySet<PropertyKey> = new Set<keyof GraphqlPort>(["mutate", "lookupIds"]);

export interface EffectLayers {
  /** The effect's lock: every call fails once it is aborted, checked as the call is sent. */
  fence?: AbortSignal;
  /** The installation's budget, for the effect whose `demand` is given; `signal` gives up a wait for a slot. */
  budget?: { budget: GitHubBudget; demand: Demand; signal?: AbortSignal };
  /** A repository turn's lock: every call fails once it is aborted, checked before the call waits for its slot. */
  turn?: AbortSignal;
  /** Writes recorded rather than sent. */
  batch?: BatchedWrites;
}

interface Wrapped {
  /** The installation's port, under every layer. */
  base: GitHubPort;
  layers: EffectLayers;
  /** Content slots taken ahead for the next content requests (shared by every port made from this one). */
  ahead: Slot[];
}

const wrapped = new WeakMap<GitHubPort, Wrapped>();

const both = (a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined => (a && b ? AbortSignal.any([a, b]) : (a ?? b));

function joined(a: EffectLayers, b: EffectLayers): EffectLayers {
  if (a.budget && b.budget) throw new Error("effect port: a port takes one budget");
  if (a.batch && b.batch) throw new Error("effect port: a port takes one batch");
  const fence = both(a.fence, b.fence);
  const turn = both(a.turn, b.turn);
  const budget = a.budget ?? b.budget;
  const batch = a.batch ?? b.batch;
  return { ...(fence ? { fence } : {}), ...(turn ? { turn } : {}), ...(budget ? { budget } : {}), ...(batch ? { batch } : {}) };
}

/** `github` with `layers` (see the module's comment): one wrapper, however many times layers are added. */
export function effectPort(github: GitHubPort, layers: EffectLayers): GitHubPort {
  const from = wrapped.get(github);
  const state: Wrapped = from ? { base: from.base, layers: joined(from.layers, layers), ahead: from.ahead } : { base: github, layers, ahead: [] };
  const { fence, budget, turn, batch } = state.layers;
  const { ahead } = state;
  const around = (name: keyof GitHubPort, call: () => unknown): unknown => {
    turn?.throwIfAborted();
    if (!budget) {
      fence?.throwIfAborted();
      return call();
    }
    return (async () => {
      const cost = PORT_COSTS[name];
      const { demand } = budget;
      const slot = (cost.content && ahead.shift()) || (await budget.budget.acquire(demand.installation, demand.tier, cost, budget.signal, demand));
      try {
        fence?.throwIfAborted();
        return await call();
      } finally {
        slot.release();
      }
    })();
  };
  const port = new Proxy(state.base, {
    get(target, prop, receiver) {
      if (batch && BATCHED.has(prop)) return batch[prop as keyof BatchedWrites];
      if (batch && GRAPHQL.has(prop)) return undefined;
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => around(prop as keyof GitHubPort, () => (value as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  wrapped.set(port, state);
  return port;
}

/**
 * Takes a content slot of a budgeted port's budget now, for its next
 * content request (the GraphQL path takes it before its repository's turn,
 * so that an effect never waits for GitHub's budget while other effects of
 * the repository wait for the turn). `cancel` gives it back unused.
 * Nothing to take for a port without a budget.
 */
export async function takeContentAhead(port: GitHubPort): Promise<{ cancel(): void }> {
  const state = wrapped.get(port);
  const budget = state?.layers.budget;
  if (!state || !budget) return { cancel: () => undefined };
  const { demand } = budget;
  const slot = await budget.budget.acquire(demand.installation, demand.tier, CONTENT, budget.signal, demand);
  state.ahead.push(slot);
  return {
    cancel: () => {
      // Unless a content request used it meanwhile (it was then released as that request's).
      const k = state.ahead.indexOf(slot);
      if (k === -1) return;
      state.ahead.splice(k, 1);
      slot.cancel();
    },
  };
}
