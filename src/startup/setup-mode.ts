/**
 * Setup mode: `npm start` before the GitHub App is registered (no APP_ID).
 * Probot's `run` then serves only its registration pages (/probot) and 404
 * everywhere else, `/health` included, so a newcomer following the Quick
 * start, or a load balancer, met a dead app. Here the same server is built
 * as `run` builds it in that mode (Probot's own setup app, a Probot that is
 * never used, the same host, port and webhook proxy; no webhook is handled
 * in this mode, so its path does not matter), with `/health` added:
 * 503, since no webhook can be handled yet, and a body that says why and
 * what to do.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type Logger, Probot, Server } from "probot";
import type { ServerSettings } from "../settings/server-settings.js";

/** What `/health` answers until the app is registered. */
export const SETUP_HEALTH = Object.freeze({
  status: "setup",
  registered: false,
  message: "The GitHub App is not registered yet (no APP_ID): open / to register it, or set APP_ID, PRIVATE_KEY and WEBHOOK_SECRET, then restart.",
});

/** `GET /health` in setup mode. */
export function setupHealth(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/health") return false;
  res.writeHead(503, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(SETUP_HEALTH));
  return true;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;
type SetupAppFactory = (o: { host: string; port: number; log: Logger }) => () => Promise<Handler>;

/** Serves Probot's registration pages, and `/health`, as `run` would without APP_ID. */
export async function runSetupMode(settings: ServerSettings, log: Logger): Promise<Server> {
  // Probot's setup app is not among its package's exports: it is loaded from its file beside the package's entry.
  const setupFile = new URL("./apps/setup.js", import.meta.resolve("probot")).href;
  const { setupAppFactory } = (await import(setupFile)) as { setupAppFactory: SetupAppFactory };
  const server = new Server({
    host: settings.host ?? "localhost",
    port: settings.port,
    ...(settings.webhookProxy ? { webhookProxy: settings.webhookProxy } : {}),
    log,
    // As Probot's `run` does (its #1512): a Probot is built, but nothing in setup mode uses it.
    Probot: Probot.defaults({ appId: 1, privateKey: "dummy value for setup, see probot#1512", log }),
  });
  await server.loadHandlerFactory(setupAppFactory({ host: server.host, port: server.port, log: log.child({ name: "setup" }) }));
  server.addHandler(setupHealth);
  await server.start();
  return server;
}
