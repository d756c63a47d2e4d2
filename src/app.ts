/**
 * The Probot app: its parts assembled, and nothing of Probot's replaced.
 * Webhook handlers are added through the webhook router (each one's errors
 * made DeliveryFailed, each delivery's outcome counted), HTTP routes through
 * Probot's `addHandler`; GitHub's deliveries come in by the app's own
 * webhook route, which calls Probot's Webhooks' `verify` and `receive`. The
 * parts are plain modules (wiring/): GitHub's clients, the background loops,
 * the webhook handlers, the HTTP routes. No domain logic lives here.
 */
import type { ApplicationFunction } from "probot";
import { ConfigCache } from "./config/cache.js";
import { wireDashboard } from "./dashboard/dashboard.js";
import { NodeIds } from "./github/node-ids.js";
import { rememberRepos } from "./leasing/remember-repos.js";
import { describeDatabase, openLedger } from "./ledger/open-ledger.js";
import type { HttpHandler } from "./mcp/in-process-fetch.js";
import { AppMetrics } from "./metrics/app-metrics.js";
import { meteredLedger } from "./metrics/metered-ledger.js";
import { appSettings } from "./settings/app-settings.js";
import { stopOnSignals } from "./startup/stop-on-signals.js";
import { stepsLedger } from "./webhooks/delivery-steps.js";
import { DELIVERY_DEADLINE_MS, trackDeliveries } from "./webhooks/track-deliveries.js";
import { webhookRoute } from "./webhooks/webhook-route.js";
import { webhookRouter } from "./webhooks/webhook-router.js";
import type { AppOptions, Runtime } from "./wiring/app-options.js";
import { backgroundLoops } from "./wiring/background-loops.js";
import { githubClients } from "./wiring/github-clients.js";
import { addHttpRoutes } from "./wiring/http-routes.js";
import { addWebhookHandlers } from "./wiring/webhook-handlers.js";

export type { AppOptions, Runtime } from "./wiring/app-options.js";

export function issueLeases(opts: AppOptions = {}): ApplicationFunction {
  return async (app, { addHandler: addToServer }) => {
    const clock = opts.clock ?? Date.now;
    const settings = opts.settings ?? appSettings({});
    const log = app.log.child({ name: "issue-leases" });
    // GET /metrics: off unless METRICS=1 or METRICS_TOKEN. Nothing is metered when off.
    const metrics = opts.metrics !== undefined ? opts.metrics : settings.metrics && new AppMetrics();
    // Before any handler is added: every one goes through the router.
    const router = webhookRouter(app, { log, watch: metrics?.delivery });
    // Serving a SQLite file: refused while another process serves it (one app process per file).
    // Each operation is noted in the delivery that asked for it, for the deadline's message.
    const { url, schema, poolSize } = settings.database;
    const opened = opts.ledger ?? (await openLedger(url, { schema, poolSize, serve: true, onConflict: metrics?.ledgerConflict }));
    const ledger = stepsLedger(metrics ? meteredLedger(opened, metrics) : opened);
    const appId = opts.appId ?? settings.appId ?? undefined;
    const configs = new ConfigCache({ targets: settings.webhooks.policy });
    const port = { onResponse: metrics?.githubResponse };
    const github = githubClients(app, { appId, timeoutMs: opts.requestTimeoutMs, ...port });
    const writes = opts.writes ?? settings.writes;
    const nodeIds = writes === "graphql" ? new NodeIds() : null;
    const loops = backgroundLoops({ app, ledger, clock, log, settings, opts, github: github.port, configs, writes, nodeIds, metrics });
    const rememberRepo = rememberRepos(ledger, clock);
    // Deliveries being handled, so that shutdown can wait for their transactions.
    const deliveries = trackDeliveries(opts.deliveryDeadlineMs ?? DELIVERY_DEADLINE_MS);
    const track = deliveries.track;

    addWebhookHandlers(router, { ledger, clock, log, track, configs, appId, github, loops, nodeIds, rememberRepo, targets: settings.webhooks.policy, port });
    // Every HTTP handler added is also what the MCP sessions' API requests go through, in this process (mcp/in-process-fetch.ts).
    const handlers: HttpHandler[] = [];
    const addHandler = (handler: HttpHandler) => {
      addToServer(handler);
      handlers.push(handler);
    };
    // The board (issue 12): remembers from every delivery; serves /leases, sign-in and GET /api/v1/leases.
    const viewers = wireDashboard(router, addHandler, { ledger, clock, log, track, settings: settings.dashboard, limits: settings.rateLimit });
    const deliveryRoute = webhookRoute(app, { path: settings.webhookPath, log, watch: metrics?.delivery });
    const routes = addHttpRoutes(app, addHandler, handlers, { ledger, clock, log, settings, metrics, configs, loops, webhookRoute: deliveryRoute, viewers, rememberRepo, track });

    const database = opts.ledger ? "the ledger given to issueLeases()" : describeDatabase(url, schema);
    const version = (await ledger.schemaVersion()).current;
    log.info({ database, schema_version: version, app_id: appId }, `issue-leases ready: app ${appId}, ${database}, schema version ${version}`);

    const { drainer, sweeper, inventory, webhooks } = loops;
    const runtime: Runtime = {
      ledger,
      drainer,
      sweeper,
      inventory,
      webhooks,
      configs,
      events: routes.events,
      webhookRoute: deliveryRoute,
      async shutdown() {
        // Streams and MCP sessions end first and cleanly: their clients reconnect (to another replica) while this one finishes.
        await routes.close();
        await deliveries.settle();
        await loops.stop();
        await ledger.close();
      },
    };
    routes.start();
    if (opts.background !== false) await loops.start();
    if (opts.handleSignals) stopOnSignals(runtime, log);
    opts.onReady?.(runtime);
  };
}
