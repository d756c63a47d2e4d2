/**
 * The sender against a real HTTP server on 127.0.0.1: the POST signed as
 * Standard Webhooks (verified by the `standardwebhooks` package, with the
 * installation's key and no other's), no redirect followed, what a failure
 * says (status, Retry-After, no answer), a refused target never connected
 * to, and a hostname connected to at the address its check resolved.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryError, eventSender, retryAfter, type SenderOptions, type WebhookDelivery } from "../../src/events/send-event.js";
import { installationKey, keyText } from "../../src/events/sign.js";
import { deliveryId } from "../../src/events/webhook-body.js";
import { leaseEvent } from "../support/lease-events.js";

const SECRET = "It's a Secret to Everybody";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

let server: Server;
let port: number;
let received: Received[];
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  received = [];
  answer = (_req, res) => res.writeHead(204).end();
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const delivery = (url: string, format: "json" | "slack" = "json", installation = 1): WebhookDelivery => {
  const event = leaseEvent();
  return { url, format, delivery: deliveryId(event.id, url, format), event, installation };
};
/** What a receiver of `installation` verifies with: the key the operator gave it, as `whsec_…`. */
const receiverOf = (installation: number) => new Webhook(keyText(installationKey(SECRET, installation)));
const verifies = (installation: number, r: Received): boolean => {
  try {
    receiverOf(installation).verify(r.body, r.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
};
const sender = (o: Partial<SenderOptions> = {}) => eventSender({ secret: SECRET, policy: { allowPrivate: true }, clock: () => Date.parse("2026-12-01T12:00:05Z"), ...o });
const signal = () => new AbortController().signal;
const failure = (p: Promise<unknown>) => p.then(() => null, (e: unknown) => e as DeliveryError);

describe("a delivery", () => {
  it("is one POST of the event's JSON with the Standard Webhooks headers, its id and the time of the try signed with it", async () => {
    const d = delivery(`http://127.0.0.1:${port}/hooks/leases?x=1`);
    await sender()(d, signal());
    expect(received).toHaveLength(1);
    const [r] = received as [Received];
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/hooks/leases?x=1");
    expect(r.body).toBe(JSON.stringify(d.event));
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["webhook-id"]).toBe(d.delivery);
    const timestamp = Date.parse("2026-12-01T12:00:05Z") / 1000;
    expect(r.headers["webhook-timestamp"]).toBe(String(timestamp));
    expect(r.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    // The library's own signature of the same id, time and body, with the installation's key.
    expect(r.headers["webhook-signature"]).toBe(receiverOf(1).sign(d.delivery, new Date(timestamp * 1000), r.body));
    expect(Object.keys(r.headers).filter((h) => h.startsWith("x-issue-leases"))).toEqual([]);
  });

  it("verifies with the standardwebhooks package under its installation's key, and under no other installation's", async () => {
    // The library checks the timestamp against its own clock: the sender's is the real one here.
    const send = sender({ clock: Date.now });
    await send(delivery(`http://127.0.0.1:${port}/a`, "json", 1), signal());
    await send(delivery(`http://127.0.0.1:${port}/b`, "json", 2), signal());
    const [forA, forB] = received as [Received, Received];
    expect(verifies(1, forA)).toBe(true);
    expect(verifies(2, forB)).toBe(true);
    expect(verifies(2, forA)).toBe(false);
    expect(verifies(1, forB)).toBe(false);
    expect(receiverOf(1).verify(forA.body, forA.headers as Record<string, string>)).toEqual(JSON.parse(forA.body));
    // Each installation's key is its own, and none is the operator's secret.
    expect(keyText(installationKey(SECRET, 1))).not.toBe(keyText(installationKey(SECRET, 2)));
    expect(keyText(installationKey(SECRET, 1))).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(keyText(installationKey("another secret", 1))).not.toBe(keyText(installationKey(SECRET, 1)));
  });

  it("does not verify once its id, time or body is changed", async () => {
    await sender({ clock: Date.now })(delivery(`http://127.0.0.1:${port}/`), signal());
    const [r] = received as [Received];
    const headers = r.headers as Record<string, string>;
    expect(verifies(1, { ...r, headers: { ...headers, "webhook-id": "another-id" } })).toBe(false);
    expect(verifies(1, { ...r, headers: { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) } })).toBe(false);
    expect(verifies(1, { ...r, body: `${r.body} ` })).toBe(false);
  });

  it("sends Slack's {text} for `slack`, signed the same way", async () => {
    await sender({ clock: Date.now })(delivery(`http://127.0.0.1:${port}/slack`, "slack"), signal());
    const [r] = received as [Received];
    expect(JSON.parse(r.body)).toEqual({ text: "alice claimed octo/app#12 (lease #3, until 14:00 UTC)" });
    expect(verifies(1, r)).toBe(true);
  });

  it("follows no redirect: a 3xx is a failure with its status", async () => {
    answer = (req, res) => (req.url === "/a" ? res.writeHead(307, { location: "/b" }).end() : res.writeHead(200).end());
    const error = await failure(sender()(delivery(`http://127.0.0.1:${port}/a`), signal()));
    expect(error).toBeInstanceOf(DeliveryError);
    expect(error).toMatchObject({ status: 307, refused: false });
    expect(received.map((r) => r.url)).toEqual(["/a"]);
  });

  it("fails with the receiver's status, and its Retry-After", async () => {
    answer = (_req, res) => res.writeHead(429, { "retry-after": "7" }).end("slow down");
    expect(await failure(sender()(delivery(`http://127.0.0.1:${port}/`), signal()))).toMatchObject({ status: 429, retryAfterMs: 7000 });
    answer = (_req, res) => res.writeHead(500).end();
    expect(await failure(sender()(delivery(`http://127.0.0.1:${port}/`), signal()))).toMatchObject({ status: 500, retryAfterMs: null });
  });

  it("fails with no status when the receiver does not answer in time", async () => {
    answer = () => {};
    const results: string[] = [];
    const error = await failure(sender({ timeoutMs: 300, onResult: (o) => results.push(o) })(delivery(`http://127.0.0.1:${port}/`), signal()));
    expect(error).toMatchObject({ status: null, refused: false });
    expect(error?.message).toMatch(/did not answer|went silent/);
    expect(results).toEqual(["no_answer"]);
  });

  it("is refused, never connected, to a private address unless the operator allows it", async () => {
    const results: string[] = [];
    const error = await failure(sender({ policy: { allowPrivate: false }, onResult: (o) => results.push(o) })(delivery(`http://127.0.0.1:${port}/`), signal()));
    expect(error).toMatchObject({ status: null, refused: true });
    expect(error?.message).toContain("loopback");
    expect(received).toEqual([]);
    expect(results).toEqual(["refused"]);
  });

  it("resolves a hostname when sent, and connects to the address it checked (or to none)", async () => {
    const names: string[] = [];
    let address = "127.0.0.1";
    const send = sender({
      resolve: async (name) => {
        names.push(name);
        return [{ address, family: 4 }];
      },
    });
    await send(delivery(`http://hooks.example.test:${port}/x`), signal());
    expect(received.map((r) => r.headers.host)).toEqual([`hooks.example.test:${port}`]);
    // Rebound to the metadata address: refused at connect time, whatever the policy.
    address = "169.254.169.254";
    expect(await failure(send(delivery(`http://hooks.example.test:${port}/x`), signal()))).toMatchObject({ refused: true });
    expect(names).toEqual(["hooks.example.test", "hooks.example.test"]);
    expect(received).toHaveLength(1);
  });

  it("keeps at most its total of deliveries in flight; one waiting leaves when aborted", async () => {
    const open: Array<() => void> = [];
    answer = (_req, res) => open.push(() => res.writeHead(200).end());
    const send = sender({ shares: { total: 1 } });
    const first = send(delivery(`http://127.0.0.1:${port}/1`), signal());
    const abort = new AbortController();
    const second = failure(send(delivery(`http://127.0.0.1:${port}/2`, "json", 2), abort.signal));
    const third = send(delivery(`http://127.0.0.1:${port}/3`, "json", 3), signal());
    await waitUntil(() => received.length === 1);
    abort.abort(new Error("stop"));
    expect(await second).toBeInstanceOf(Error);
    open.shift()!();
    await first;
    await waitUntil(() => received.length === 2);
    open.shift()!();
    await third;
    expect(received.map((r) => r.url)).toEqual(["/1", "/3"]);
  });

  it("refuses, unsent, a delivery that names no installation to sign for", async () => {
    const error = await failure(sender()({ ...delivery(`http://127.0.0.1:${port}/`), installation: 0 }, signal()));
    expect(error).toMatchObject({ status: null, refused: true });
    expect(received).toEqual([]);
  });
});

describe("retryAfter", () => {
  it("reads seconds or a date", () => {
    const now = Date.parse("2026-12-01T12:00:00Z");
    expect(retryAfter("30", now)).toBe(30_000);
    expect(retryAfter("Tue, 01 Dec 2026 12:01:00 GMT", now)).toBe(60_000);
    expect(retryAfter(undefined, now)).toBeNull();
    expect(retryAfter("soon", now)).toBeNull();
  });
});

async function waitUntil(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}
