/**
 * The drainer takes webhook effects as the sender can send them, on a real
 * SQLite ledger against receivers on 127.0.0.1 that hold their answers: no
 * more of an installation's than its share while its share is in hand (the
 * rest stay in the outbox, unlocked, for any replica), and another
 * installation's are taken meanwhile; a receiver held back has its delivery
 * recorded for a retry when the hold ends, sent nowhere.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { NewEffect } from "../../src/ledger/outbox/outbox-types.js";
import type { StoredEvent } from "../../src/ledger/events/event-types.js";
import { eventSender, type SenderOptions } from "../../src/events/send-event.js";
import { Drainer } from "../../src/outbox/drainer.js";
import { webhookEffect, type WebhookPayload } from "../../src/outbox/effects.js";
import { leaseEvent } from "../support/lease-events.js";

const T0 = Date.parse("2026-12-01T12:00:00Z");

class QueueingLedger extends SqliteLedger {
  enqueueAt(items: Array<{ repoId: number; issue: number; effect: NewEffect }>, now: number): void {
    for (const i of items) this.outbox.enqueue(i.repoId, i.issue, [i.effect], now);
  }
}

let dir: string;
let ledger: QueueingLedger;
let server: Server;
let base: string;
/** Requests received (their paths) and those not answered yet. */
let got: string[];
let held: ServerResponse[];
let answerAtOnce: (path: string) => boolean;
const drainers: Drainer[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "issue-leases-shares-"));
  ledger = new QueueingLedger(join(dir, "leases.db"));
  got = [];
  held = [];
  answerAtOnce = () => false;
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      got.push(req.url ?? "");
      if (answerAtOnce(req.url ?? "")) res.writeHead(204).end();
      else held.push(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  for (const res of held.splice(0)) if (!res.headersSent) res.writeHead(204).end();
  for (const d of drainers.splice(0)) await d.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await ledger.close();
  rmSync(dir, { recursive: true, force: true });
});

let pos = 0;
/** A delivery of a new event of `installation`'s repository to `path` (each path a lane of its own). */
const item = (installation: number, path: string) => {
  pos += 1;
  const stored: StoredEvent = { pos, installation, repoId: 500 + installation, event: leaseEvent({ id: String(pos), seq: pos }) };
  return webhookEffect(stored, { url: `${base}${path}`, format: "json" });
};

function drainer(now: () => number, sender: Partial<SenderOptions> = {}, opts: Partial<ConstructorParameters<typeof Drainer>[0]> = {}): Drainer {
  const d = new Drainer({
    ledger,
    github: () => Promise.reject(new Error("a webhook effect asked for GitHub")),
    clock: now,
    log: pino({ level: process.env.LOG_LEVEL ?? "silent" }),
    random: () => 1,
    pollMs: 20,
    sendEvent: eventSender({ secret: "s3cret", policy: { allowPrivate: true }, clock: now, ...sender }),
    ...opts,
  });
  drainers.push(d);
  return d;
}

/** The outbox's webhook rows: which path, how many attempts, whether locked. */
const rows = () =>
  (ledger.db.prepare("SELECT payload, attempts, locked_until, next_at, state FROM outbox ORDER BY id").all() as Array<Record<string, unknown>>).map((r) => ({
    path: new URL((JSON.parse(String(r.payload)) as WebhookPayload).url).pathname,
    attempts: r.attempts as number,
    locked: (r.locked_until as number) > 0,
    nextAt: r.next_at as number,
    state: r.state as string,
  }));

async function waitUntil(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe("the drainer, with an installation's share of the sender in hand", () => {
  it("takes none of its other deliveries (they stay unlocked in the outbox) and takes another installation's", async () => {
    const now = T0;
    answerAtOnce = (path) => path === "/other";
    const d = drainer(() => now, { shares: { total: 16, perInstallation: 2, perReceiver: 2 } });
    ledger.enqueueAt([item(1, "/a"), item(1, "/b")], now);
    d.start();
    await waitUntil(() => got.length === 2);

    ledger.enqueueAt([item(1, "/c"), item(1, "/d"), item(1, "/e"), item(2, "/other")], now);
    d.kick();
    await waitUntil(() => got.includes("/other"));
    await waitUntil(() => rows().find((r) => r.path === "/other")?.state === "done");
    expect(rows()).toEqual([
      expect.objectContaining({ path: "/a", attempts: 1, locked: true, state: "pending" }),
      expect.objectContaining({ path: "/b", attempts: 1, locked: true, state: "pending" }),
      expect.objectContaining({ path: "/c", attempts: 0, locked: false, state: "pending" }),
      expect.objectContaining({ path: "/d", attempts: 0, locked: false, state: "pending" }),
      expect.objectContaining({ path: "/e", attempts: 0, locked: false, state: "pending" }),
      expect.objectContaining({ path: "/other", attempts: 1, state: "done" }),
    ]);

    // Its share free again, the rest are taken, still two at a time.
    for (const res of held.splice(0)) res.writeHead(204).end();
    await waitUntil(() => got.length === 5);
    expect(got.slice(3).sort()).toEqual(["/c", "/d"]);
    for (const res of held.splice(0)) res.writeHead(204).end();
    await waitUntil(() => got.length === 6);
    held.shift()!.writeHead(204).end();
    await waitUntil(() => rows().every((r) => r.state === "done"));
  });
});

describe("a delivery to a receiver held back", () => {
  it("is recorded for a retry when the hold ends, one try counted, sent nowhere", async () => {
    let now = T0;
    const d = drainer(() => now, { timeoutMs: 100 }, { backoffMs: 1000 });
    ledger.enqueueAt([item(1, "/1"), item(1, "/2"), item(1, "/3")], now);
    await d.drainAll();
    expect(got).toHaveLength(3);
    expect(rows().map((r) => [r.attempts, r.nextAt - now])).toEqual([
      [1, 1000],
      [1, 1000],
      [1, 1000],
    ]);

    ledger.enqueueAt([item(1, "/4")], now);
    await d.drainAll();
    expect(got).toHaveLength(3);
    expect(rows()[3]).toMatchObject({ path: "/4", attempts: 1, locked: false, state: "pending", nextAt: now + 10_000 });

    // The hold over, it is sent.
    now += 10_000;
    answerAtOnce = () => true;
    await d.drainAll();
    expect(got.slice(3).sort()).toEqual(["/1", "/2", "/3", "/4"]);
    expect(rows().every((r) => r.state === "done")).toBe(true);
  });
});
