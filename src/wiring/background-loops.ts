/**
 * What the app does besides answering: the outbox's drainer (GitHub's budget
 * and outgoing webhooks' sender with it), the sweeper, the inventory's fills,
 * the outgoing webhooks' dispatcher and the lease events' pruning, built from
 * the settings, and started and stopped together.
 */
import type { Probot } from "probot";
import type { ConfigCache } from "../config/cache.js";
import { loadConfig as loadRepoConfig, sourceOf } from "../config/repo-config.js";
import { EventPruner } from "../events/retention.js";
import { eventSender } from "../events/send-event.js";
import { GitHubBudget } from "../github/budget.js";
import type { GithubWrites } from "../github/budget-settings.js";
import type { GitHubPort } from "../github/github-port.js";
import type { NodeIds } from "../github/node-ids.js";
import { EventDispatcher } from "../leasing/event-dispatcher.js";
import { recheckPullRequests } from "../leasing/handle-pull-request.js";
import { HolderLogins } from "../leasing/holder-logins.js";
import { InventoryFiller } from "../leasing/inventory-fill.js";
import { Sweeper } from "../leasing/sweeper.js";
import type { Ledger } from "../ledger/ledger.js";
import type { AppMetrics } from "../metrics/app-metrics.js";
import { Drainer } from "../outbox/drainer.js";
import type { AppSettings } from "../settings/app-settings.js";
import type { AppOptions } from "./app-options.js";

export interface LoopDeps {
  app: Pick<Probot, "auth">;
  ledger: Ledger;
  clock: () => number;
  log: Probot["log"];
  settings: AppSettings;
  opts: AppOptions;
  github: (installation: number) => Promise<GitHubPort>;
  configs: ConfigCache;
  writes: GithubWrites;
  nodeIds: NodeIds | null;
  metrics: AppMetrics | null;
}

export interface BackgroundLoops {
  drainer: Drainer;
  sweeper: Sweeper;
  inventory: InventoryFiller;
  /** Queues lease events for outgoing webhooks; null without EVENTS_WEBHOOK_SECRET. */
  webhooks: EventDispatcher | null;
  /** GitHub's budget per installation; null: none (tests with GitHub's pacing off). */
  budget: GitHubBudget | null;
  /** Who holds leases, by account, with their logins kept current. */
  logins: HolderLogins;
  /** Effects parked by a past process are retried, then every loop starts. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function backgroundLoops(d: LoopDeps): BackgroundLoops {
  const { ledger, clock, log, settings, opts, github, metrics } = d;
  const { minPauseMs, ...limits } = settings.budget;
  const budget = opts.budget === null ? null : new GitHubBudget({ ...limits, ...opts.budget });
  // Outgoing webhooks (issue 23): sent only with the operator's secret to sign them.
  const { secret: webhookSecret = settings.webhooks.secret, ...webhookOptions } = opts.webhooks ?? {};
  const sendEvent = webhookSecret ? eventSender({ secret: webhookSecret, policy: settings.webhooks.policy, clock, onResult: metrics?.webhookDelivery, ...webhookOptions }) : null;
  if (!sendEvent) log.info("outgoing webhooks are off: EVENTS_WEBHOOK_SECRET is not set, so no lease event is sent to a config's `webhooks`");
  // Every installation's key follows from it: a short one could be guessed from the deliveries a receiver gets.
  else if (webhookSecret!.length < 32) log.warn("EVENTS_WEBHOOK_SECRET is shorter than 32 characters; every installation's webhook key is derived from it: set a long random one (`openssl rand -hex 32`)");
  const drainer: Drainer = new Drainer({
    ledger,
    github,
    clock,
    log,
    // How long an effect stays with a replica that stopped extending it (killed mid-effect): another takes it over after this long.
    lockMs: settings.outboxLockMs,
    onAttempt: metrics?.effectAttempt,
    budget,
    minPauseMs,
    onRateLimited: metrics?.rateLimited,
    sendEvent,
    writes: d.writes,
    nodeIds: d.nodeIds,
    labelLingerMs: settings.labelLingerMs,
    // A lease changed on GitHub: re-check the open pull requests that close the issue.
    onLeaseChanged: async (installation, key) => {
      if ((await recheckPullRequests(ledger, installation, key, clock())) > 0) drainer.kick();
    },
    ...opts.drainer,
  });
  const sweeper = new Sweeper({
    ledger,
    clock,
    intervalMs: opts.sweepIntervalMs ?? settings.sweepIntervalMs,
    onSwept: (r) => {
      metrics?.sweep(r);
      if (r.expired + r.reminded > 0) drainer.kick();
    },
    onError: (error) => log.error({ err: error }, "sweep failed; the next one will try again"),
  });
  const inventory = new InventoryFiller({ ledger, clock, github, budget, log, settings: { ...settings.inventory, ...opts.inventory } });
  // Each repository's targets from its config, read as for a command (the cache first).
  const webhooks = sendEvent
    ? new EventDispatcher({
        ledger,
        clock,
        log,
        config: ({ installation, repoId, event }) => {
          const [owner = "", name = ""] = event.repo.split("/");
          return loadRepoConfig(d.configs, repoId, async () => sourceOf(await d.app.auth(installation), owner, name));
        },
        onQueued: () => drainer.kick(),
      })
    : null;
  const pruner = new EventPruner({
    ledger,
    clock,
    keepMs: settings.eventsKeepMs,
    onError: (error) => log.error({ err: error }, "pruning old lease events failed; the next hour's prune will try again"),
  });
  const logins = new HolderLogins({ ledger, clock, onRenamed: () => drainer.kick() });
  return {
    drainer,
    sweeper,
    inventory,
    webhooks,
    budget,
    logins,
    async start() {
      await ledger.unparkEffects(clock());
      drainer.start();
      sweeper.start();
      inventory.start();
      webhooks?.start();
      pruner.start();
    },
    async stop() {
      await inventory.stop();
      await webhooks?.stop();
      await pruner.stop();
      await sweeper.stop();
      await drainer.stop();
    },
  };
}
