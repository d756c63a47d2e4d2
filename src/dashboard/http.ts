/**
 * Small HTTP helpers the board's routes share: answers with the board's
 * security headers, and where this server is as the browser sees it (for
 * the sign-in's callback URL and Secure cookies).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { CONTENT_SECURITY_POLICY } from "./render.js";
import type { DashboardSettings } from "./settings.js";

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  // Links to GitHub do not carry the board's URL (its filters) with them.
  "referrer-policy": "same-origin",
  // A signed-in viewer's page shows private repositories: no cache keeps it.
  "cache-control": "no-store",
} as const;

export function sendPage(res: ServerResponse, status: number, html: string, cookies: string[] = []): void {
  res.writeHead(status, { ...PAGE_HEADERS, ...(cookies.length ? { "set-cookie": cookies } : {}) }).end(html);
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff", "cache-control": "no-store", ...headers })
    .end(JSON.stringify(body));
}

export function redirect(res: ServerResponse, location: string, cookies: string[] = [], status = 302): void {
  res.writeHead(status, { location, "cache-control": "no-store", ...(cookies.length ? { "set-cookie": cookies } : {}) }).end();
}

/** Host names and ports as a browser sends them; anything else in Host is refused rather than echoed into a URL. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Where this server is, as the browser sees it: PUBLIC_URL when set;
 * otherwise the request's Host, over https when the connection is TLS or
 * the proxy in front says `X-Forwarded-Proto: https`. Null for a Host that
 * is not a host name.
 */
export function publicOrigin(req: IncomingMessage, settings: DashboardSettings): { origin: string; secure: boolean } | null {
  if (settings.baseUrl) return { origin: settings.baseUrl.origin, secure: settings.baseUrl.protocol === "https:" };
  const host = req.headers.host ?? "";
  if (!HOST.test(host)) return null;
  const forwarded = String(req.headers["x-forwarded-proto"] ?? "").split(",")[0]!.trim().toLowerCase();
  const secure = (req.socket as TLSSocket).encrypted === true || forwarded === "https";
  return { origin: `${secure ? "https" : "http"}://${host}`, secure };
}

/** Whether cookies set on this request should be Secure. */
export function secureRequest(req: IncomingMessage, settings: DashboardSettings): boolean {
  return publicOrigin(req, settings)?.secure ?? false;
}
