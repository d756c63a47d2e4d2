/**
 * Webhook effects in the outbox, on a real SQLite ledger and against a real
 * receiver on 127.0.0.1, with an injected clock: retried with backoff until
 * the receiver answers 2xx, then never sent again; given up on after a 4xx
 * (but 408 and 429 are retried); never through GitHub's port or budget, and
 * held back by no installation's rate limit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { NewEffect } from "../../src/ledger/outbox/outbox-types.js";
import type { StoredEvent } from "../../src/ledger/events/event-types.js";
import { eventSender } from "../../src/events/send-event.js";
import { installationKey, keyText } from "../../src/events/sign.js";
import { GitHubBudget } from "../../src/github/budget.js";
import { Drainer } from "../../src/outbox/drainer.js";
import { nextAfterDeliveryFailure } from "../../src/outbox/after-failure.js";
import { WEBHOOK, webhookEffect, webhookLane, webhookPartition } from "../../src/outbox/effects.js";
import { leaseEvent } from "../support/lease-events.js";

const SECRET = "s3cret";
const T0 = Date.parse("2026-12-01T12:00:00Z");

/** The ledger with a way to queue effects on any key, as the dispatcher's `advanceEventCursor` does. */
class QueueingLedger extends SqliteLedger {
  enqueueAt(items: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): void {
    for (const i of items) this.outbox.enqueue(i.repoId, i.issue, [i.effect], now);
  }
}

let dir: string;
let ledger: QueueingLedger;
let server: Server;
let url: string;
let now: number;
/** What the receiver got, in order: the delivery id, the try's time, the body, the status it answered. */
let got: Array<{ delivery: string; timestamp: number; body: string; signature: string; status: number }>;
let statusFor: (n: number) => number;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "issue-leases-hooks-"));
  ledger = new QueueingLedger(join(dir, "leases.db"));
  now = T0;
  got = [];
  statusFor = () => 204;
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const status = statusFor(got.length + 1);
      got.push({
        delivery: String(req.headers["webhook-id"]),
        timestamp: Number(req.headers["webhook-timestamp"]),
        body,
        signature: String(req.headers["webhook-signature"]),
        status,
      });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

const stored = (id: number, installation = 1): StoredEvent => ({ pos: id, installation, repoId: 500, event: leaseEvent({ id: String(id), seq: id }) });

function drainer(opts: Partial<ConstructorParameters<typeof Drainer>[0]> = {}) {
  return new Drainer({
    ledger,
    github: () => Promise.reject(new Error("a webhook effect asked for GitHub")),
    clock: () => now,
    log: pino({ level: process.env.LOG_LEVEL ?? "silent" }),
    random: () => 1,
    sendEvent: eventSender({ secret: SECRET, policy: { allowPrivate: true }, clock: () => now }),
    ...opts,
  });
}

const rows = () =>
  ledger.db.prepare("SELECT repo_id, issue, installation, kind, priority, state, attempts FROM outbox ORDER BY id").all() as Array<Record<string, unknown>>;

describe("a webhook effect", () => {
  it("is queued on its target's lane, not on the issue's key, in its installation's partition of webhooks, not the installation's own", () => {
    const item = webhookEffect(stored(1), { url, format: "json" });
    expect(item.repoId).toBe(500);
    expect(item.issue).toBe(webhookLane(url));
    expect(item.issue).toBeLessThan(0);
    expect(webhookLane(url)).toBe(webhookLane(url));
    expect(webhookLane(`${url}2`)).not.toBe(webhookLane(url));
    expect(item.effect).toMatchObject({ installation: -1, kind: WEBHOOK, payload: { url, format: "json", installation: 1, event: { id: "1" } } });
    expect(webhookEffect(stored(1, 7), { url, format: "json" }).effect.installation).toBe(webhookPartition(7));
    expect(webhookPartition(7)).toBe(-7);
  });

  it("from a receiver failing 5 times then answering 204: delivered once, every try with the same id and body, signed at its own time", async () => {
    statusFor = (n) => (n <= 5 ? 503 : 204);
    ledger.enqueueAt([webhookEffect(stored(1), { url, format: "json" })], now);
    const outcomes: string[] = [];
    const d = drainer({ backoffMs: 1000, maxBackoffMs: 60_000, onAttempt: (e, outcome) => outcomes.push(`${e.kind} ${outcome}`) });
    for (let i = 0; i < 12; i++) {
      await d.drainAll();
      now += 60_000;
    }
    expect(got.map((g) => g.status)).toEqual([503, 503, 503, 503, 503, 204]);
    expect(new Set(got.map((g) => g.delivery)).size).toBe(1);
    expect(new Set(got.map((g) => g.body)).size).toBe(1);
    // Each try signed anew, as the standardwebhooks package signs the same id, time and body with the installation's key.
    const receiver = new Webhook(keyText(installationKey(SECRET, 1)));
    for (const g of got) expect(g.signature).toBe(receiver.sign(g.delivery, new Date(g.timestamp * 1000), g.body));
    expect(new Set(got.map((g) => g.timestamp)).size).toBe(6);
    // Counted by delivery id: one body answered 2xx.
    const delivered = new Map<string, number>();
    for (const g of got) if (g.status < 300) delivered.set(g.delivery, (delivered.get(g.delivery) ?? 0) + 1);
    expect([...delivered.values()]).toEqual([1]);
    expect(rows()).toEqual([expect.objectContaining({ state: "done", attempts: 6 })]);
    // What /metrics counts: issue_leases_effect_attempts_total{kind="webhook",outcome}.
    expect(outcomes).toEqual([...Array<string>(5).fill("webhook retried"), "webhook completed"]);
  });

  it("waits its backoff between tries: not sent again before it", async () => {
    statusFor = (n) => (n === 1 ? 500 : 204);
    ledger.enqueueAt([webhookEffect(stored(1), { url, format: "json" })], now);
    const d = drainer({ backoffMs: 10_000 });
    await d.drainAll();
    now += 9_000;
    await d.drainAll();
    expect(got).toHaveLength(1);
    now += 1_000;
    await d.drainAll();
    expect(got.map((g) => g.status)).toEqual([500, 204]);
  });

  it.each([
    [400, "parked", 1],
    [404, "parked", 1],
    [410, "parked", 1],
    [302, "parked", 1],
    [408, "done", 2],
    [429, "done", 2],
  ])("answered %i: %s after %i tries", async (status, state, tries) => {
    statusFor = (n) => (n === 1 ? status : 200);
    ledger.enqueueAt([webhookEffect(stored(1), { url, format: "json" })], now);
    const d = drainer();
    for (let i = 0; i < 4; i++) {
      await d.drainAll();
      now += 60_000;
    }
    expect(got).toHaveLength(tries);
    expect(rows()).toEqual([expect.objectContaining({ state })]);
  });

  it("is parked after maxAttempts tries of a receiver that never answers 2xx", async () => {
    statusFor = () => 500;
    ledger.enqueueAt([webhookEffect(stored(1), { url, format: "json" })], now);
    const d = drainer({ maxAttempts: 3 });
    for (let i = 0; i < 6; i++) {
      await d.drainAll();
      now += 10 * 60_000;
    }
    expect(got).toHaveLength(3);
    expect(rows()).toEqual([expect.objectContaining({ state: "parked", attempts: 3 })]);
  });

  it("without a sender (no EVENTS_WEBHOOK_SECRET) is parked, sending nothing", async () => {
    ledger.enqueueAt([webhookEffect(stored(1), { url, format: "json" })], now);
    await drainer({ sendEvent: null }).drainAll();
    expect(got).toEqual([]);
    expect(rows()).toEqual([expect.objectContaining({ state: "parked" })]);
  });

  it("takes no slot of GitHub's budget, and is not held by its installation's pause", async () => {
    const budget = new GitHubBudget({ clock: () => now });
    budget.pause(1, 60 * 60_000);
    const demand = vi.spyOn(budget, "demand");
    ledger.enqueueAt([webhookEffect(stored(1, 1), { url, format: "json" }), webhookEffect(stored(2, 1), { url, format: "slack" })], now);
    const github = vi.fn(() => Promise.reject(new Error("no GitHub here")));
    await drainer({ budget, github }).drainAll();
    expect(got.map((g) => g.status)).toEqual([204, 204]);
    expect(JSON.parse(got[1]!.body)).toEqual({ text: "alice claimed octo/app#12 (lease #3, until 14:00 UTC)" });
    expect(demand).not.toHaveBeenCalled();
    expect(github).not.toHaveBeenCalled();
    expect(budget.held()).toEqual([{ installation: 1, fromPriority: 0 }]);
    expect(rows().map((r) => r.state)).toEqual(["done", "done"]);
  });

  it("of one target go in order: the second waits while the first is retried", async () => {
    statusFor = (n) => (n === 1 ? 500 : 204);
    ledger.enqueueAt([webhookEffect(stored(1), { url, format: "json" }), webhookEffect(stored(2), { url, format: "json" })], now);
    const d = drainer({ backoffMs: 5_000 });
    await d.drainAll();
    expect(got.map((g) => JSON.parse(g.body).id)).toEqual(["1"]);
    now += 5_000;
    await d.drainAll();
    await d.drainAll();
    expect(got.map((g) => [JSON.parse(g.body).id, g.status])).toEqual([
      ["1", 500],
      ["1", 204],
      ["2", 204],
    ]);
  });
});

describe("nextAfterDeliveryFailure", () => {
  const policy = { maxAttempts: 8, backoffMs: 1000, maxBackoffMs: 300_000, random: () => 1 };
  const f = (status: number | null, retryAfterMs: number | null = null, refused = false) => ({ status, retryAfterMs, refused });

  it("retries no answer, 5xx, 408 and 429 with doubling backoff; parks the rest", () => {
    expect(nextAfterDeliveryFailure(f(null), 1, 0, policy)).toEqual({ action: "retry", at: 1000 });
    expect(nextAfterDeliveryFailure(f(502), 3, 0, policy)).toEqual({ action: "retry", at: 4000 });
    expect(nextAfterDeliveryFailure(f(408), 1, 0, policy)).toEqual({ action: "retry", at: 1000 });
    expect(nextAfterDeliveryFailure(f(429), 1, 0, policy)).toEqual({ action: "retry", at: 1000 });
    for (const status of [301, 400, 401, 403, 404, 410, 422]) expect(nextAfterDeliveryFailure(f(status), 1, 0, policy)).toEqual({ action: "park" });
    expect(nextAfterDeliveryFailure(f(null, null, true), 1, 0, policy)).toEqual({ action: "park" });
    expect(nextAfterDeliveryFailure(f(500), 8, 0, policy)).toEqual({ action: "park" });
  });

  it("waits out a Retry-After longer than its backoff, up to maxBackoffMs", () => {
    expect(nextAfterDeliveryFailure(f(429, 30_000), 1, 0, policy)).toEqual({ action: "retry", at: 30_000 });
    expect(nextAfterDeliveryFailure(f(503, 10 * 3600_000), 1, 0, policy)).toEqual({ action: "retry", at: 300_000 });
    expect(nextAfterDeliveryFailure(f(429, 100), 4, 0, policy)).toEqual({ action: "retry", at: 8000 });
  });
});
