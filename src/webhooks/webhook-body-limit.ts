/**
 * A cap on webhook bodies, at `/api/github/webhooks` and at `/` alike
 * (webhook-route.ts). @octokit/webhooks' node middleware reads a POST's
 * whole body into memory before it checks the signature: any
 * unauthenticated caller could make the process hold as much as it sent.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot } from "probot";
import { readCappedBody, TOO_LARGE } from "./read-capped-body.js";

/**
 * GitHub caps its payloads at 25 MB and does not send bigger ones; a body
 * over 26 MiB cannot be a delivery of GitHub's, and is answered 413.
 */
export const WEBHOOK_BODY_LIMIT = 26 * 1024 * 1024;

/** @octokit/webhooks' node middleware: true when it answered the request, false when it is not its path. */
export type Middleware = (req: IncomingMessage, res: ServerResponse, next?: Function) => Promise<boolean>;
type Logger = Probot["log"];

/** The middleware's own rule for which requests are its (@octokit/webhooks: trailing slashes dropped, then the pathname). */
const trimmed = (url: string) => url.replace(/\/+$/, "") || "/";
function pathnameOf(url: string): string | null {
  try {
    return new URL(trimmed(url), "http://localhost").pathname;
  } catch {
    return null;
  }
}

function tooLarge(res: ServerResponse, limit: number): void {
  const body = JSON.stringify({ error: `The body is over ${limit} bytes (GitHub sends at most 25 MB).` });
  res.writeHead(413, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
}

/**
 * The middleware for `path`, behind the cap. A request without a signature is
 * left to the middleware unread: it refuses one (400) before reading its body.
 * Any other POST to `path` is read here, up to `limit`, and handed over as
 * `req.body`, which the middleware takes instead of reading the stream.
 */
export function limitBodies(middleware: Middleware, path: string, limit = WEBHOOK_BODY_LIMIT): Middleware {
  return async (req: IncomingMessage, res: ServerResponse, next?: Function) => {
    if (req.method !== "POST" || req.headers["x-hub-signature-256"] === undefined || pathnameOf(req.url ?? "/") !== trimmed(path)) {
      return middleware(req, res, next);
    }
    let body: Buffer | typeof TOO_LARGE;
    try {
      body = await readCappedBody(req, limit);
    } catch {
      // The caller went away mid-body: nobody to answer.
      req.destroy();
      return true;
    }
    if (body === TOO_LARGE) {
      tooLarge(res, limit);
      return true;
    }
    (req as IncomingMessage & { body?: string }).body = body.toString("utf8");
    return middleware(req, res, next);
  };
}

/**
 * The middleware logs a failed delivery whole (its payload with it); what
 * failed is logged without it by delivery-errors.ts, so the middleware's own
 * lines only say which delivery got which answer, at debug level.
 */
export function middlewareLog(log: Logger): Logger {
  return {
    debug: (message: unknown) => log.debug(String(message)),
    info: () => undefined,
    warn: () => undefined,
    error: (error: unknown) => {
      const e = error as { event?: { id?: unknown; name?: unknown }; errors?: Array<{ status?: unknown }> } | null;
      log.debug({ delivery: e?.event?.id, event: e?.event?.name, status: e?.errors?.[0]?.status ?? 500 }, "delivery answered with an error");
    },
    // The middleware calls nothing else of a logger.
  } as unknown as Logger;
}
