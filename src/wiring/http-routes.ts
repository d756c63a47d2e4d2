/**
 * The app's HTTP routes besides the board's, added through Probot's
 * `addHandler`, each answering its own paths: GET /health, GET /metrics,
 * GitHub's deliveries (WEBHOOK_PATH and `/`), the lease event stream, the
 * API for bots, and MCP at /mcp. Without an HTTP server (tests through
 * `probot.receive`) none is added, and the event stream is not started.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import { eventsHandler } from "../api/events-route.js";
import { serveApi } from "../api/serve-api.js";
import type { ConfigCache } from "../config/cache.js";
import { EventHub } from "../events/hub.js";
import { PublicRepos } from "../events/public-repos.js";
import type { Ledger } from "../ledger/ledger.js";
import type { DashboardViewers } from "../dashboard/dashboard.js";
import { mcpRoute } from "../mcp/http-route.js";
import type { HttpHandler } from "../mcp/in-process-fetch.js";
import { packageVersion } from "../mcp/package-version.js";
import type { AppMetrics } from "../metrics/app-metrics.js";
import { healthReport } from "../metrics/health.js";
import { metricsHandler } from "../metrics/metrics-handler.js";
import type { AppSettings } from "../settings/app-settings.js";
import type { BackgroundLoops } from "./background-loops.js";

export interface RouteDeps {
  ledger: Ledger;
  clock: () => number;
  log: Probot["log"];
  settings: AppSettings;
  metrics: AppMetrics | null;
  configs: ConfigCache;
  loops: BackgroundLoops;
  /** GitHub's deliveries (webhooks/webhook-route.ts). */
  webhookRoute: HttpHandler;
  /** Who looks, as the board's listing decides it: the event stream shows what the listing would. */
  viewers: DashboardViewers;
  rememberRepo: (repoId: number, full: string, installation: number) => Promise<void>;
  track: <T>(work: () => Promise<T>) => Promise<T>;
}

export interface HttpRoutes {
  /** The event stream's one reader of the ledger; started when there is a server to stream from. */
  events: EventHub;
  /** Starts the event stream, when there is a server. */
  start(): void;
  /** Ends the streams and MCP sessions first, cleanly: their clients reconnect to another replica. */
  close(): Promise<void>;
}

/** `handlers`: every handler added so far (the board's), and those added here: what the MCP sessions' API requests go through. */
export function addHttpRoutes(app: Probot, addHandler: (handler: HttpHandler) => void, handlers: readonly HttpHandler[], d: RouteDeps): HttpRoutes {
  const { ledger, clock, log, settings, metrics, loops } = d;
  const { rateLimit, streams } = settings;
  const health = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") return false;
    const report = await healthReport({ ledger, drainer: loops.drainer, sweeper: loops.sweeper, clock });
    res.writeHead(report.ok ? 200 : 503, { "content-type": "application/json" }).end(JSON.stringify(report.body));
    return true;
  };
  const events = new EventHub({
    events: ledger,
    publicRepos: new PublicRepos(ledger, clock),
    pollMs: streams.pollMs,
    heartbeatMs: streams.heartbeatMs,
    onError: (error) => log.warn({ err: error }, "event stream: reading the ledger's events failed; trying again"),
  });
  if (metrics) {
    metrics.watchOutbox(ledger, clock);
    metrics.watchEvents(() => events.counters());
  }
  let streaming = false;
  let mcp: ReturnType<typeof mcpRoute> | null = null;
  try {
    addHandler(health);
    if (metrics && settings.metrics) addHandler(metricsHandler(metrics, settings.metrics));
    addHandler(d.webhookRoute);
    const fillInventory = loops.inventory.fillSoon.bind(loops.inventory);
    const kick = () => loops.drainer.kick();
    const api = serveApi(app, { ledger, clock, configs: d.configs, rateLimit, rememberRepo: d.rememberRepo, fillInventory, kick, track: d.track, log });
    addHandler(
      eventsHandler({
        hub: events,
        repos: ledger,
        settings: streams,
        ...d.viewers,
        // A `repo=` the app has not seen yet is asked of GitHub with the caller's token, as the API asks.
        lookup: api.lookup,
        remember: d.rememberRepo,
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
    mcp = mcpRoute({ api: api.deps, handlers: () => served, settings: settings.mcp, version: packageVersion(), clock, log });
    addHandler(mcp.handle);
  } catch {
    // No HTTP server (tests through probot.receive): no /health or /metrics route, no webhooks at /.
  }
  return {
    events,
    start: () => {
      if (streaming) void events.start();
    },
    async close() {
      // MCP sessions end without releasing: their agents carry on elsewhere, and claim again (same instance) or let them expire.
      await mcp?.close();
      await events.close();
    },
  };
}
