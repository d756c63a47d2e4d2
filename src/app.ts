/**
 * The Probot app: wires GitHub events to the handlers, and starts the
 * outbox drainer and the expiry sweeper. No domain logic lives here: each
 * event is reduced to a plain value and handed to a handler.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApplicationFunction, Context, Probot } from "probot";
import { ConfigCache } from "./config/cache.js";
import type { ConfigResult } from "./config/config.js";
import { wireDashboard } from "./dashboard/dashboard.js";
import { loadConfig as loadRepoConfig, sourceOf } from "./config/repo-config.js";
import { routeComments } from "./webhooks/comment-routes.js";
import { handlePullRequest, recheckPullRequests } from "./leasing/handle-pull-request.js";
import { type IssueEventDeps, routeIssueEvents } from "./webhooks/issue-event-routes.js";
import { routeWork } from "./webhooks/work-routes.js";
import { routeCheckReruns } from "./webhooks/check-rerun-routes.js";
import { routeConfigChecks } from "./webhooks/config-check-routes.js";
import { routeInventory } from "./webhooks/inventory-routes.js";
import { InventoryFiller, type InventorySettings, inventorySettings } from "./leasing/inventory-fill.js";
import { InventoryRelations } from "./leasing/inventory-relations.js";
import { DEFAULT_DATABASE_URL, describeDatabase, openLedger } from "./ledger/open-ledger.js";
import type { Ledger } from "./ledger/roles.js";
import { Drainer } from "./outbox/drainer.js";
import type { GitHubPort } from "./github/github-port.js";
import { octokitPort } from "./github/octokit-port.js";
import { appGitHub } from "./github/app-port.js";
import { GitHubBudget } from "./github/budget.js";
import { NodeIds } from "./github/node-ids.js";
import { type BudgetSettings, budgetSettings, type GithubWrites, githubWrites, labelLingerMs } from "./github/budget-settings.js";
import { healthReport } from "./metrics/health.js";
import { HolderLogins } from "./leasing/holder-logins.js";
import { rememberRepos } from "./leasing/remember-repos.js";
import { rootWebhookHandler } from "./webhooks/root-webhook.js";
import { stopOnSignals } from "./startup/stop-on-signals.js";
import { Sweeper } from "./leasing/sweeper.js";
import { EventDispatcher } from "./leasing/event-dispatcher.js";
import { eventSender, type SenderOptions } from "./events/send-event.js";
import { targetPolicy } from "./events/target-guard.js";
import { DELIVERY_DEADLINE_MS, trackDeliveries } from "./webhooks/track-deliveries.js";
import { guardDeliveries } from "./webhooks/delivery-errors.js";
import { stepsLedger } from "./webhooks/delivery-steps.js";
import { limitWebhookBodies } from "./webhooks/webhook-body-limit.js";
import { AppMetrics, metricsSettings } from "./metrics/app-metrics.js";
import { meterDeliveries } from "./metrics/metered-deliveries.js";
import { meteredLedger } from "./metrics/metered-ledger.js";
import { metricsHandler } from "./metrics/metrics-handler.js";
import { rateLimitSettings } from "./api/rate-limit.js";
import { EventPruner, eventsKeepMs } from "./events/retention.js";
import { serveApi } from "./api/serve-api.js";
import { eventsHandler } from "./api/events-route.js";
import { EventHub } from "./events/hub.js";
import { PublicRepos } from "./events/public-repos.js";
import { eventStreamSettings } from "./events/stream-settings.js";
import { type HttpHandler } from "./mcp/in-process-fetch.js";
import { mcpRoute } from "./mcp/http-route.js";
import { mcpSettings } from "./mcp/mcp-settings.js";
import { packageVersion } from "./mcp/package-version.js";


export interface AppOptions {
  /** How effects write to GitHub; default GITHUB_WRITES. */
  writes?: GithubWrites;
  /** The ledger; default: opened from DATABASE_URL. */
  ledger?: Ledger;
  clock?: () => number;
  /** Start the drainer and sweeper loops (tests drive them by hand). Default true. */
  background?: boolean;
  sweepIntervalMs?: number;
  /** This app's id, to recognise its own comments; default APP_ID. */
  appId?: number;
  /** Exit cleanly on SIGTERM/SIGINT; default true outside tests. */
  handleSignals?: boolean;
  drainer?: Partial<ConstructorParameters<typeof Drainer>[0]>;
  /** How long a delivery may take before it is answered 500; default DELIVERY_DEADLINE_MS. */
  deliveryDeadlineMs?: number;
  /** How long a GitHub request may take once sent; default REQUEST_TIMEOUT_MS (tests scale it with the throttle). */
  requestTimeoutMs?: number;
  onReady?: (runtime: Runtime) => void;
  /**
   * GitHub's budget per installation (github/budget.ts): settings over the
   * environment's (tests shrink its windows with the rest of GitHub's
   * pacing); null: none, for tests with GitHub's pacing off.
   */
  budget?: Partial<BudgetSettings> | null;
  /** Metrics to record into (tests); default: on with METRICS=1 or METRICS_TOKEN, else none. */
  metrics?: AppMetrics | null;
  /** The inventory's fills and reconciles, over the environment's (INVENTORY_RECONCILE, INVENTORY_FILL_MAX_PAGES). */
  inventory?: Partial<InventorySettings>;
  /** Outgoing webhooks' sender, over the environment's (EVENTS_WEBHOOK_SECRET, EVENTS_WEBHOOK_ALLOW_PRIVATE); `secret: null`: off. */
  webhooks?: Partial<Omit<SenderOptions, "secret">> & { secret?: string | null };
}

export interface Runtime {
  ledger: Ledger;
  drainer: Drainer;
  sweeper: Sweeper;
  /** Fills and reconciles the inventory of open issues. */
  inventory: InventoryFiller;
  /** Queues lease events for outgoing webhooks; null without EVENTS_WEBHOOK_SECRET. */
  webhooks: EventDispatcher | null;
  configs: ConfigCache;
  /** The event stream's reader (GET /api/v1/events): its counters are for /metrics. */
  events: EventHub;
  /** Stops taking deliveries, finishes what is in flight, and closes the ledger. */
  shutdown(): Promise<void>;
}

/** The repository's config, with its organisation's limits (config/sources.ts); GitHub's errors are thrown and not cached. */
function loadConfig(context: Context, cache: ConfigCache, repoId: number): Promise<ConfigResult> {
  return loadRepoConfig(cache, repoId, context);
}

/**
 * The app's slug (`GET /app`, as the app itself), asked once and only when a
 * repository reads the mention form; null while GitHub cannot say, asked
 * again next time.
 */
function appSlug(app: Probot): () => Promise<string | null> {
  let slug: Promise<string | null> | null = null;
  return () =>
    (slug ??= app
      .auth()
      .then((octokit) => appGitHub(octokit).slug())
      .catch(() => {
        slug = null;
        return null;
      }));
}

export function issueLeases(opts: AppOptions = {}): ApplicationFunction {
  return async (app: Probot, { addHandler: addToServer }) => {
    const clock = opts.clock ?? Date.now;
    // Every handler added is also what the MCP sessions' API requests go through, in this process (mcp/in-process-fetch.ts).
    const handlers: HttpHandler[] = [];
    const addHandler = (handler: HttpHandler) => {
      addToServer(handler);
      handlers.push(handler);
    };
    // GET /metrics: off unless METRICS=1 or METRICS_TOKEN. Nothing is metered when off.
    const metricsServed = metricsSettings(process.env);
    const metrics = opts.metrics !== undefined ? opts.metrics : metricsServed && new AppMetrics();
    const metered = (l: Ledger) => (metrics ? meteredLedger(l, metrics) : l);
    const log = app.log.child({ name: "issue-leases" });
    // Before any handler or webhook route exists: bodies are capped, and what fails is logged without its payload.
    limitWebhookBodies(app);
    guardDeliveries(app, log);
    // Serving a SQLite file: refused while another process serves it (one app process per file).
    // Each operation is noted in the delivery that asked for it, for the deadline's message.
    const ledger = stepsLedger(metered(opts.ledger ?? (await openLedger(process.env.DATABASE_URL || DEFAULT_DATABASE_URL, { serve: true, onConflict: metrics?.ledgerConflict }))));
    const appId = opts.appId ?? (process.env.APP_ID ? Number(process.env.APP_ID) : undefined);
    const configs = new ConfigCache();

    // One Octokit per installation, so that the throttling plugin spaces all
    // of an installation's writes together.
    const ports = new Map<number, Promise<GitHubPort>>();
    const github = (installation: number) => {
      let port = ports.get(installation);
      if (!port) {
        port = app.auth(installation).then((octokit) => octokitPort(octokit, { appId, timeoutMs: opts.requestTimeoutMs, onResponse: metrics?.githubResponse }));
        port.catch(() => ports.delete(installation));
        ports.set(installation, port);
      }
      return port;
    };
    // Read before anything starts: a wrong GITHUB_CONTENT_PER_* ends the start, naming it.
    const { minPauseMs, ...limits } = budgetSettings(process.env);
    const writes = opts.writes ?? githubWrites(process.env, "graphql");
    const labelLinger = labelLingerMs(process.env);
    // GraphQL names issues, labels and people by node id: those every webhook shows are kept, and asked of GitHub only when missing.
    const nodeIds = writes === "graphql" ? new NodeIds() : null;
    if (nodeIds) app.onAny(async (context) => nodeIds.learn(context.payload));
    const budget = opts.budget === null ? null : new GitHubBudget({ ...limits, ...opts.budget });
    // How long an effect stays with a replica that stopped extending it (killed
    // mid-effect): another takes it over after this long. Default the Drainer's.
    const lockMs = Number(process.env.OUTBOX_LOCK_MS);
    // Outgoing webhooks (issue 23): sent only with the operator's secret to sign them.
    const { secret: webhookSecret = process.env.EVENTS_WEBHOOK_SECRET || null, ...webhookOptions } = opts.webhooks ?? {};
    const sendEvent = webhookSecret ? eventSender({ secret: webhookSecret, policy: targetPolicy(process.env), clock, onResult: metrics?.webhookDelivery, ...webhookOptions }) : null;
    if (!sendEvent) log.info("outgoing webhooks are off: EVENTS_WEBHOOK_SECRET is not set, so no lease event is sent to a config's `webhooks`");
    // Every installation's key follows from it: a short one could be guessed from the deliveries a receiver gets.
    else if (webhookSecret!.length < 32) log.warn("EVENTS_WEBHOOK_SECRET is shorter than 32 characters; every installation's webhook key is derived from it: set a long random one (`openssl rand -hex 32`)");
    const drainer: Drainer = new Drainer({
      ledger,
      github,
      clock,
      log,
      ...(lockMs > 0 ? { lockMs } : {}),
      onAttempt: metrics?.effectAttempt,
      budget,
      minPauseMs,
      onRateLimited: metrics?.rateLimited,
      sendEvent,
      writes,
      nodeIds,
      labelLingerMs: labelLinger,
      // A lease changed on GitHub: re-check the open pull requests that close the issue.
      onLeaseChanged: async (installation, key) => {
        if ((await recheckPullRequests(ledger, installation, key, clock())) > 0) drainer.kick();
      },
      ...opts.drainer,
    });
    const sweeper = new Sweeper({
      ledger,
      clock,
      intervalMs: opts.sweepIntervalMs ?? Number(process.env.SWEEP_INTERVAL_MS || 60_000),
      onSwept: (r) => {
        metrics?.sweep(r);
        if (r.expired + r.reminded > 0) drainer.kick();
      },
      onError: (error) => log.error({ err: error }, "sweep failed; the next one will try again"),
    });

    // Read before anything starts, as the budget's: a wrong INVENTORY_* ends the start, naming it.
    const inventory = new InventoryFiller({ ledger, clock, github, budget, log, settings: { ...inventorySettings(process.env), ...opts.inventory } });

    // Each repository's targets from its config, read as for a command (the cache first).
    const webhooks = sendEvent
      ? new EventDispatcher({
          ledger,
          clock,
          log,
          config: ({ installation, repoId, event }) => {
            const [owner = "", name = ""] = event.repo.split("/");
            return loadRepoConfig(configs, repoId, async () => sourceOf(await app.auth(installation), owner, name));
          },
          onQueued: () => drainer.kick(),
        })
      : null;

    // Read before anything starts, as the budget's: a wrong EVENTS_KEEP ends the start, naming it.
    const pruner = new EventPruner({
      ledger,
      clock,
      keepMs: eventsKeepMs(process.env),
      onError: (error) => log.error({ err: error }, "pruning old lease events failed; the next hour's prune will try again"),
    });

    const logins = new HolderLogins({ ledger, clock, onRenamed: () => drainer.kick() });

    const rememberRepo = rememberRepos(ledger, clock);

    // Deliveries being handled, so that shutdown can wait for their transactions.
    const deliveries = trackDeliveries(opts.deliveryDeadlineMs ?? DELIVERY_DEADLINE_MS);
    const track = deliveries.track;

    // What the comment and issue-event routes share.
    const routed: IssueEventDeps = {
      ledger,
      clock,
      track,
      rememberRepo,
      config: (context, repoId) => loadConfig(context, configs, repoId),
      seen: (repoId, account) => logins.seen(repoId, account),
      kick: () => drainer.kick(),
      port: { onResponse: metrics?.githubResponse },
    };

    routeComments(app, { ...routed, ledger, appId, log, appSlug: appSlug(app) });

    app.on(
      ["pull_request.opened", "pull_request.edited", "pull_request.synchronize", "pull_request.reopened", "pull_request.closed"],
      (context) =>
        track(async () => {
          const { pull_request: pr, repository, installation, sender } = context.payload;
          if (!installation || !pr.user) return;
          await logins.seen(repository.id, { id: pr.user.id, login: pr.user.login });
          if (sender && sender.id !== pr.user.id) await logins.seen(repository.id, { id: sender.id, login: sender.login });
          const queued = await handlePullRequest(
            {
              delivery: context.id,
              installation: installation.id,
              repo: { id: repository.id, owner: repository.owner.login, name: repository.name },
              number: pr.number,
              body: pr.body ?? "",
              author: { id: pr.user.id, login: pr.user.login },
              headSha: pr.head.sha,
              open: pr.state === "open",
            },
            { ledger, now: clock(), config: () => loadConfig(context, configs, repository.id) },
          );
          if (queued) drainer.kick();
        }),
    );

    // The sender of any other event (an issue edited, a label added, a push)
    // shows their login too. Handlers above check their accounts first, as
    // they must before acting; for those this finds the pair remembered.
    app.onAny((context) =>
      track(async () => {
        const p = context.payload as { repository?: { id: number }; sender?: { id: number; login: string } };
        if (p.repository && p.sender) await logins.seen(p.repository.id, { id: p.sender.id, login: p.sender.login });
      }),
    );

    app.on("push", async (context) => {
      if (ConfigCache.pushTouchesConfig(context.payload)) configs.invalidate(context.payload.repository.id);
    });

    // The check run `issue-leases config` on a push or pull request that changes the file.
    routeConfigChecks(app, { ledger, clock, track, kick: () => drainer.kick() });
    // "Re-run" on either of the app's check runs.
    routeCheckReruns(app, { ledger, clock, appId, track, kick: () => drainer.kick() });

    routeIssueEvents(app, routed);

    // The inventory of open issues (issue 22): kept from `issues` events, filled on install; dependencies and sub-issues
    // from their own events, and what a closed issue blocked read again (issue 39).
    routeInventory(app, { ledger, clock, track, filler: inventory, relations: new InventoryRelations({ ledger, clock, github, budget }), rememberRepo, log });

    routeWork(app, {
      ledger,
      clock,
      track,
      config: (context, repoId) => loadConfig(context, configs, repoId),
      appId,
      log,
    });

    // The board (issue 12): remembers from every delivery; serves /leases, sign-in and GET /api/v1/leases.
    const viewers = wireDashboard(app, addHandler, { ledger, clock, log, track });

    const health = async (req: IncomingMessage, res: ServerResponse) => {
      if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") return false;
      const report = await healthReport({ ledger, drainer, sweeper, clock });
      res.writeHead(report.ok ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify(report.body));
      return true;
    };
    // Read before the routes are added: a wrong API_RATE_LIMIT or EVENTS_* ends the start, naming it.
    const rateLimit = rateLimitSettings(process.env);
    const streams = eventStreamSettings(process.env);
    const mcpConfig = mcpSettings(process.env);
    // The event stream's one reader of the ledger; started when there is a server to stream from.
    const events = new EventHub({
      events: ledger,
      publicRepos: new PublicRepos(ledger, clock),
      pollMs: streams.pollMs,
      heartbeatMs: streams.heartbeatMs,
      onError: (error) => log.warn({ err: error }, "event stream: reading the ledger's events failed; trying again"),
    });
    let streaming = false;
    let mcp: ReturnType<typeof mcpRoute> | null = null;
    if (metrics) {
      metrics.watchOutbox(ledger, clock);
      metrics.watchEvents(() => events.counters());
      meterDeliveries(app.webhooks, metrics);
    }
    try {
      addHandler(health);
      if (metrics && metricsServed) addHandler(metricsHandler(metrics, metricsServed));
      addHandler(await rootWebhookHandler(app));
      const fillInventory = inventory.fillSoon.bind(inventory);
      const api = serveApi(app, { ledger, clock, configs, rateLimit, rememberRepo, fillInventory, kick: () => drainer.kick(), track, log });
      addHandler(
        eventsHandler({
          hub: events,
          repos: ledger,
          settings: streams,
          ...viewers,
          // A `repo=` the app has not seen yet is asked of GitHub with the caller's token, as the API asks.
          lookup: api.lookup,
          remember: rememberRepo,
          perAddress: rateLimit.perAddress,
          trustProxyHops: rateLimit.trustProxyHops,
          clock,
          log,
        }),
      );
      streaming = true;
      addHandler(api.handler);
      // The lease tools over MCP's Streamable HTTP at /mcp: each tool call is a request to the handlers above.
      const served = [...handlers];
      mcp = mcpRoute({ api: api.deps, handlers: () => served, settings: mcpConfig, version: packageVersion(), clock, log });
      addHandler(mcp.handle);
    } catch {
      // No HTTP server (tests through probot.receive): no /health or /metrics route, no webhooks at /.
    }
    const database = opts.ledger ? "the ledger given to issueLeases()" : describeDatabase(process.env.DATABASE_URL || DEFAULT_DATABASE_URL);
    const schema = (await ledger.schemaVersion()).current;
    log.info({ database, schema_version: schema, app_id: appId }, `issue-leases ready: app ${appId}, ${database}, schema version ${schema}`);

    const runtime: Runtime = {
      ledger,
      drainer,
      sweeper,
      inventory,
      webhooks,
      configs,
      events,
      async shutdown() {
        // Streams end first and cleanly: their clients reconnect (to another replica) while this one finishes.
        // MCP sessions end without releasing: their agents carry on elsewhere, and claim again (same instance) or let them expire.
        await mcp?.close();
        await events.close();
        await deliveries.settle();
        await inventory.stop();
        await webhooks?.stop();
        await pruner.stop();
        await sweeper.stop();
        await drainer.stop();
        await ledger.close();
      },
    };

    if (streaming) void events.start();
    if (opts.background !== false) {
      await ledger.unparkEffects(clock());
      drainer.start();
      sweeper.start();
      inventory.start();
      webhooks?.start();
      pruner.start();
    }
    if (opts.handleSignals ?? !process.env.VITEST) {
      stopOnSignals(runtime, log);
    }
    opts.onReady?.(runtime);
  };
}
