/**
 * Every webhook handler of the app, added through the webhook router
 * (webhooks/webhook-router.ts) in the order Probot runs them: a delivery's
 * handlers start in the order they were added (those of its action, of its
 * event, then those of any event). Each route module reduces a payload to a
 * plain value for the handlers in leasing/.
 */
import type { Context } from "probot";
import { ConfigCache } from "../config/cache.js";
import type { ConfigResult } from "../config/config.js";
import { loadConfig } from "../config/repo-config.js";
import type { PortOptions } from "../github/octokit-port.js";
import type { NodeIds } from "../github/node-ids.js";
import { InventoryRelations } from "../leasing/inventory-relations.js";
import type { Ledger } from "../ledger/ledger.js";
import type { TargetPolicy } from "../events/target-guard.js";
import { routeCheckReruns } from "../webhooks/check-rerun-routes.js";
import { routeComments } from "../webhooks/comment-routes.js";
import { routeConfigChecks } from "../webhooks/config-check-routes.js";
import { routeInventory } from "../webhooks/inventory-routes.js";
import { type IssueEventDeps, routeIssueEvents } from "../webhooks/issue-event-routes.js";
import { routePullRequests } from "../webhooks/pull-request-routes.js";
import type { WebhookRouter } from "../webhooks/webhook-router.js";
import { routeWork } from "../webhooks/work-routes.js";
import type { BackgroundLoops } from "./background-loops.js";
import type { GitHubClients } from "./github-clients.js";

export interface HandlerDeps {
  ledger: Ledger;
  clock: () => number;
  log: { info(o: object, m: string): void; warn(o: object, m: string): void };
  /** Runs a delivery's work, so that shutdown waits for it. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  configs: ConfigCache;
  appId: number | undefined;
  github: GitHubClients;
  loops: BackgroundLoops;
  /** Node ids every webhook shows, for GraphQL writes; null on REST. */
  nodeIds: NodeIds | null;
  rememberRepo: IssueEventDeps["rememberRepo"];
  /** Where outgoing webhooks may go, as configs are checked. */
  targets: TargetPolicy;
  port: PortOptions;
}

/** The repository's config, with its organisation's limits (config/sources.ts); GitHub's errors are thrown and not cached. */
const configOf = (configs: ConfigCache) => (context: Context, repoId: number): Promise<ConfigResult> => loadConfig(configs, repoId, context);

export function addWebhookHandlers(router: WebhookRouter, d: HandlerDeps): void {
  const { ledger, clock, track, appId, log, loops } = d;
  const { drainer, logins } = loops;
  const kick = () => drainer.kick();
  // GraphQL names issues, labels and people by node id: those every webhook shows are kept, and asked of GitHub only when missing.
  const nodeIds = d.nodeIds;
  if (nodeIds) router.onAny(async (context) => nodeIds.learn(context.payload));

  // What the comment, pull request and issue-event routes share.
  const routed: IssueEventDeps = {
    ledger,
    clock,
    track,
    rememberRepo: d.rememberRepo,
    config: configOf(d.configs),
    seen: (repoId, account) => logins.seen(repoId, account),
    kick,
    port: d.port,
  };
  routeComments(router, { ...routed, ledger, appId, log, appSlug: d.github.appSlug });
  routePullRequests(router, routed);

  // The sender of any other event (an issue edited, a label added, a push)
  // shows their login too. Handlers above check their accounts first, as
  // they must before acting; for those this finds the pair remembered.
  router.onAny((context) =>
    track(async () => {
      const p = context.payload as { repository?: { id: number }; sender?: { id: number; login: string } };
      if (p.repository && p.sender) await logins.seen(p.repository.id, { id: p.sender.id, login: p.sender.login });
    }),
  );

  router.on("push", async (context) => {
    if (ConfigCache.pushTouchesConfig(context.payload)) d.configs.invalidate(context.payload.repository.id);
  });

  // The check run `issue-leases config` on a push or pull request that changes the file.
  routeConfigChecks(router, { ledger, clock, track, kick, targets: d.targets });
  // "Re-run" on either of the app's check runs.
  routeCheckReruns(router, { ledger, clock, appId, track, kick, targets: d.targets });

  routeIssueEvents(router, routed);

  // The inventory of open issues (issue 22): kept from `issues` events, filled on install; dependencies and sub-issues
  // from their own events, and what a closed issue blocked read again (issue 39).
  const relations = new InventoryRelations({ ledger, clock, github: d.github.port, budget: loops.budget });
  routeInventory(router, { ledger, clock, track, filler: loops.inventory, relations, rememberRepo: d.rememberRepo, log });

  routeWork(router, { ledger, clock, track, config: routed.config, appId, log });
}
