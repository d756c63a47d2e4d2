/**
 * `GET /metrics` in Prometheus' text format. Served only when metrics are
 * on; with a token, only to a bearer of it (compared in constant time, so
 * that timing does not reveal how much of a guess was right).
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppMetrics, MetricsSettings } from "./app-metrics.js";

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether the request carries `Authorization: Bearer <token>`. Hashed first: timingSafeEqual needs equal lengths. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return timingSafeEqual(digest(m?.[1] ?? ""), digest(token)) && m !== null;
}

/** A Probot `addHandler` handler: true when it answered the request. */
export function metricsHandler(metrics: AppMetrics, settings: MetricsSettings) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" || (req.url ?? "").split("?")[0] !== "/metrics") return false;
    if (settings.token !== null && !bearerMatches(req.headers.authorization, settings.token)) {
      res
        .writeHead(401, { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' })
        .end("Send Authorization: Bearer <METRICS_TOKEN>.\n");
      return true;
    }
    try {
      const body = await metrics.registry.metrics();
      res.writeHead(200, { "content-type": metrics.registry.contentType }).end(body);
    } catch (error) {
      res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end(`metrics failed: ${(error as Error).message}\n`);
    }
    return true;
  };
}
