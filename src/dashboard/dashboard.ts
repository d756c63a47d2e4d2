/**
 * The board, wired into the app in one call: it remembers what pages show
 * from every webhook (remember.ts) and serves, through Probot's
 * `addHandler`:
 *
 *   GET  /                         redirects to /leases (with its query)
 *   GET  /leases                   the board (filters: repo, holder, label, page)
 *   GET  /leases/{owner}/{repo}    one repository's
 *   GET  /leases/{owner}/{repo}/ready   its open issues that are free, in the order claim-next takes them
 *   GET  /login                    "Sign in with GitHub" (sign-in.ts)
 *   GET  /oauth/callback           where GitHub sends the browser back
 *   POST /logout (or GET)          sign out
 *   GET  /api/v1/leases            the JSON twin (served with DASHBOARD=off too: it is the API's)
 *
 * `npm start` loads no Probot default app, so `GET /` is the board's (a raw
 * `probot run`, which would load it first, is refused: src/index.ts).
 * Webhooks POSTed to `/` are the webhook route's (webhooks/webhook-route.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApplicationFunctionOptions, Logger } from "probot";
import { clientAddress } from "../api/client-address.js";
import { LookupGate } from "../api/lookup-gate.js";
import { type ApiRateLimits, RateLimiter } from "../api/rate-limit.js";
import type { WebhookRouter } from "../webhooks/webhook-router.js";
import type { BoardMemory, BoardReads } from "../ledger/board/board-roles.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import { bearerViewer } from "./bearer-viewer.js";
import { boardPage } from "./board-page.js";
import { type Fetch, userGitHub } from "../github/github-user.js";
import { LEASES_JSON_PATH, leasesJson } from "./leases-json.js";
import { readyPage } from "./ready-page.js";
import { rememberer } from "./remember.js";
import type { DashboardSettings } from "./settings.js";
import { CALLBACK_PATH, finishSignIn, signOut, startSignIn } from "./sign-in.js";
import { type BearerViewer, sessionViewerOf } from "./viewer.js";
import type { Viewer } from "./queries.js";

export interface DashboardOptions {
  ledger: BoardReads & BoardMemory & Pick<Inventory, "readyIssues">;
  clock: () => number;
  log: Logger;
  /** DASHBOARD, sign-in and where GitHub is (settings/board-settings.ts). */
  settings: DashboardSettings;
  /** Who a bearer token on the JSON listing is; default: asked of GitHub (bearer-viewer.ts). */
  bearer?: BearerViewer;
  /** The fetch the sign-in uses to talk to GitHub; default Node's. */
  fetch?: Fetch;
  /** Runs a delivery's work so that shutdown waits for it (the app's `track`). */
  track?: <T>(work: () => Promise<T>) => Promise<T>;
  /** The limits per client address (the listing's and the pages', unknown bearer tokens'); none without (tests of the pages). */
  limits?: ApiRateLimits;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;

export function dashboardHandler(o: Required<Pick<DashboardOptions, "ledger" | "clock" | "log" | "settings" | "fetch">> & DashboardOptions): Handler {
  const deps = { ...o, settings: o.settings, trustProxyHops: o.limits?.trustProxyHops ?? 0, github: userGitHub(o.fetch, o.settings.github) };
  const perAddress = new RateLimiter<string>(o.limits?.perAddress ?? { perMinute: 0, burst: 1 }, o.clock);
  /** Answers 429 when the client's address is over its limit: each request here reads the ledger, and some ask GitHub. */
  const limited = (req: IncomingMessage, res: ServerResponse, json: boolean): boolean => {
    const wait = perAddress.take(clientAddress(req, deps.trustProxyHops));
    if (wait === 0) return false;
    const message = `Too many requests from this address; try again in ${wait} s.`;
    const body = json ? JSON.stringify({ error: { code: "rate_limited", message } }) : message;
    res
      .writeHead(429, { "content-type": json ? "application/json; charset=utf-8" : "text/plain; charset=utf-8", "cache-control": "no-store", "retry-after": String(wait) })
      .end(body);
    return true;
  };
  return async (req, res) => {
    const method = req.method ?? "GET";
    let url: URL;
    try {
      url = new URL(req.url ?? "/", "http://board.invalid");
    } catch {
      return false;
    }
    const path = url.pathname;
    if (path === LEASES_JSON_PATH) {
      if (method !== "GET") return false;
      if (limited(req, res, true)) return true;
      await leasesJson(req, res, url, deps);
      return true;
    }
    if (!deps.settings.page) return false;
    const page = method === "GET" && (path === "/leases" || path.startsWith("/leases/") || path === "/login" || path === CALLBACK_PATH);
    if (page && limited(req, res, false)) return true;
    if (method === "GET" && path === "/") {
      res.writeHead(302, { location: `/leases${url.search}`, "content-type": "text/plain" }).end("Found. Redirecting to /leases");
      return true;
    }
    if (method === "GET" && (path === "/leases" || path === "/leases/")) {
      await boardPage(req, res, url, undefined, deps);
      return true;
    }
    const one = /^\/leases\/([^/]+)\/([^/]+?)(\/ready)?\/?$/.exec(path);
    if (method === "GET" && one) {
      let repo: string;
      try {
        repo = `${decodeURIComponent(one[1]!)}/${decodeURIComponent(one[2]!)}`;
      } catch {
        repo = "\u0000";
      }
      if (one[3]) await readyPage(req, res, url, repo, deps);
      else await boardPage(req, res, url, repo, deps);
      return true;
    }
    if (method === "GET" && path === "/login") {
      startSignIn(req, res, url, deps);
      return true;
    }
    if (method === "GET" && path === CALLBACK_PATH) {
      await finishSignIn(req, res, url, deps);
      return true;
    }
    if ((method === "POST" || method === "GET") && path === "/logout") {
      signOut(req, res, deps);
      return true;
    }
    return false;
  };
}

/**
 * Wires the board: remembering from every delivery, and its routes (when
 * the app has an HTTP server; tests through `probot.receive` have none).
 */
/** Who looks, as the listing decides it: for the event stream (GET /api/v1/events), which shows what the listing would. */
export interface DashboardViewers {
  bearer: BearerViewer;
  session: (req: IncomingMessage) => Viewer | null;
}

export function wireDashboard(webhooks: Pick<WebhookRouter, "onAny">, addHandler: ApplicationFunctionOptions["addHandler"], o: DashboardOptions & { limits: ApiRateLimits }): DashboardViewers {
  const { settings, limits } = o;
  const remember = rememberer({ ledger: o.ledger, clock: o.clock, log: o.log });
  const track = o.track ?? ((work) => work());
  webhooks.onAny((context) => track(() => remember(context.name, context.payload)));
  const f = o.fetch ?? fetch;
  const lookups = new LookupGate({ refused: limits.unknownTokens }, o.clock);
  // One viewer (and its cache of what each token may see) for the listing and the stream.
  const bearer = o.bearer ?? bearerViewer({ api: settings.github.api, clock: o.clock, github: userGitHub(f, settings.github), lookups });
  try {
    addHandler(dashboardHandler({ ...o, settings, limits, fetch: f, bearer }));
  } catch {
    // No HTTP server: nothing to serve.
  }
  return { bearer, session: (req) => sessionViewerOf(req, settings, o.clock()) };
}
