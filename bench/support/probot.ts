/**
 * Probot instances for the benchmarks, authenticated as a real GitHub App
 * (JWT, installation tokens) against a fake GitHub, with the Octokit pacing
 * chosen by the benchmark, and a webhook endpoint served over real HTTP by
 * Probot's own middleware.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sign } from "@octokit/webhooks-methods";
import { Probot, ProbotOctokit } from "probot";
import { pacedOctokit } from "../../test/support/probot-on-fake.js";
import { privateKey } from "../../test/support/server-process.js";
import { PacerGroup } from "./pacer.js";

export const APP_ID = 777;
export const WEBHOOK_SECRET = "bench-secret";
const WEBHOOK_PATH = "/api/github/webhooks";

/**
 * How the app's Octokit spaces its requests.
 * - `off`: no throttling and no retries, as create-probot-app's tests do, so
 *   that a benchmark measures our code rather than the deliberate spacing.
 * - `scaled`: Probot's production pacing (writes 1 s apart and
 *   notification-triggering POSTs 3 s apart, per installation; retries on)
 *   run `scale` times faster, through the throttling plugin's own logic with
 *   drift-free groups (see `pacer.ts`) in place of its Bottleneck groups.
 */
export type Pacing = { kind: "off" } | { kind: "scaled"; scale: number } | { kind: "plugin"; scale: number };

type OctokitOptions = Record<string, unknown> & { throttle?: Record<string, unknown> };

/**
 * Probot hands its own `throttle` options to the Octokit class it is given,
 * and they replace an object passed to `ProbotOctokit.defaults({...})`
 * wholesale (`{ throttle: { enabled: false } }` is silently lost). A function
 * sees Probot's options and can amend them.
 */
export function octokitClass(pacing: Pacing): typeof ProbotOctokit {
  if (pacing.kind === "off") return pacedOctokit("off");
  if (pacing.kind === "plugin") return pacedOctokit({ scale: pacing.scale });
  // @octokit/plugin-throttling's `write` and `notifications` groups, keyed by installation id as Probot does.
  const write = new PacerGroup(1000 / pacing.scale);
  const notifications = new PacerGroup(3000 / pacing.scale);
  return ProbotOctokit.defaults((o: OctokitOptions) => ({ ...o, throttle: { ...o.throttle, write, notifications } }));
}

export function newProbot(baseUrl: string, pacing: Pacing): Probot {
  return new Probot({
    appId: APP_ID,
    privateKey: privateKey(),
    secret: WEBHOOK_SECRET,
    baseUrl,
    Octokit: octokitClass(pacing),
    // Both apps log nothing: pino writing JSON lines would be measured too.
    logLevel: "fatal",
  });
}

export interface WebhookEndpoint {
  url: string;
  close(): Promise<void>;
}

/** A server's handler: true when it answered the request. */
type Handler = (req: IncomingMessage, res: ServerResponse) => unknown;

/** Serves `route` (the app's webhook route, runtime.webhookRoute), or a bare app's `probot.getNodeMiddleware()`, on a free local port. */
export async function serveWebhooks(probot: Probot, route?: Handler): Promise<WebhookEndpoint> {
  const middleware = route ?? (await probot.getNodeMiddleware());
  const server: Server = createServer((req, res) => {
    void Promise.resolve(middleware(req, res)).then((answered) => answered || res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${WEBHOOK_PATH}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** A delivery as GitHub sends it: the raw JSON body and its signature. */
export interface Delivery {
  name: string;
  raw: string;
  signature: string;
}

export async function signedDelivery(name: string, payload: unknown): Promise<Delivery> {
  const raw = JSON.stringify(payload);
  return { name, raw, signature: await sign(WEBHOOK_SECRET, raw) };
}

/** POSTs a delivery with a fresh delivery id and waits for the app's answer (Probot answers once its handlers ran). */
export async function deliver(url: string, d: Delivery): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": d.name,
      "x-github-delivery": randomUUID(),
      "x-hub-signature-256": d.signature,
      "user-agent": "GitHub-Hookshot/bench",
    },
    body: d.raw,
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${text.slice(0, 200)}`);
}
