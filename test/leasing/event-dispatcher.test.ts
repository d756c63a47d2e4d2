/**
 * The outgoing webhooks' dispatcher on every backend: one delivery per event
 * and target (the types it asks for), queued with the cursor's move; a broken
 * config sending nothing; a config that cannot be read holding the events
 * behind it in order, then passed over; a first start beginning at the
 * newest event, and waking on new ones; and two dispatchers on one store
 * (two PostgreSQL replicas) queueing each event once.
 */
import pino from "pino";
import { beforeEach, describe, expect, it } from "vitest";
import { type ConfigResult, parseConfig } from "../../src/config/config.js";
import type { StoredEvent } from "../../src/ledger/events/event-types.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import { EventDispatcher, WEBHOOKS_CURSOR } from "../../src/leasing/event-dispatcher.js";
import { WEBHOOK, type WebhookPayload, webhookLane } from "../../src/outbox/effects.js";
import { deliveryId } from "../../src/events/webhook-body.js";
import { backends, useBackend } from "../ledger/backends.js";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-12-01T12:00:00Z");
const alpha = { repoId: 100, repo: "octo/alpha" };
const beta = { repoId: 200, repo: "octo/beta" };
const key = (r: { repoId: number; repo: string }, issue: number): IssueKey => ({ ...r, issue });
const alice: Holder = { id: 1, login: "alice" };
const A = "https://a.example.com/hook";
const B = "https://b.example.com/hook";

const configs: Record<number, ConfigResult> = {
  [alpha.repoId]: parseConfig({ webhooks: [{ url: A }, { url: B, events: ["lease.released"], format: "slack" }] }),
  [beta.repoId]: parseConfig({}),
};

function dispatcher(ledger: Ledger, o: Partial<ConstructorParameters<typeof EventDispatcher>[0]> = {}) {
  return new EventDispatcher({
    ledger,
    clock: () => T0 + HOUR,
    log: pino({ level: "silent" }),
    config: async (stored) => configs[stored.repoId] ?? parseConfig({}),
    ...o,
  });
}

/** Every webhook delivery queued, taken and completed through the outbox's own role: [url, type, issue, delivery]. */
async function queued(ledger: Ledger): Promise<Array<[string, string, number, string]>> {
  const out: Array<[string, string, number, string]> = [];
  for (;;) {
    const effects = await ledger.takeEffects(T0 + 2 * HOUR, 100, 60_000);
    if (effects.length === 0) return out.sort((a, b) => a[3].localeCompare(b[3]));
    for (const e of effects) {
      expect(e.kind).toBe(WEBHOOK);
      const p = e.payload as WebhookPayload;
      expect(e.issue).toBe(webhookLane(p.url));
      out.push([p.url, p.event.type, p.event.issue, p.delivery]);
      await ledger.completeEffect({ id: e.id, attempt: e.attempts }, T0 + 2 * HOUR);
    }
  }
}

const sorted = (rows: Array<[string, string, number, string]>) => rows.map(([url, type, issue]) => [url, type, issue]).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe.each(backends)("the webhooks' dispatcher: $name", (backend) => {
  const { ledger, store } = useBackend(backend);
  // The installation of each repository, as the app remembers it from webhooks: an event of an unknown one has no config to read.
  beforeEach(async () => {
    await ledger.rememberRepo({ ...alpha, installation: 7 }, T0);
    await ledger.rememberRepo({ ...beta, installation: 7 }, T0);
  });

  it("queues one delivery per event and target that asks for its type, and moves the cursor with them", async () => {
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await ledger.release(key(alpha, 1), alice, T0 + 1);
    await ledger.acquire(key(beta, 1), alice, HOUR, T0 + 2);
    const d = dispatcher(ledger);
    await d.dispatchAll();
    expect(await ledger.eventCursor(WEBHOOKS_CURSOR)).toBe(await ledger.lastEventPos());
    const rows = await queued(ledger);
    expect(sorted(rows)).toEqual(
      sorted([
        [A, "lease.acquired", 1, ""],
        [A, "lease.released", 1, ""],
        [B, "lease.released", 1, ""],
      ]),
    );
    const events = await ledger.eventsAfter(0);
    for (const [url, type, , delivery] of rows) {
      const e = events.find((s) => s.event.type === type)!.event;
      expect(delivery).toBe(deliveryId(e.id, url, url === B ? "slack" : "json"));
    }
    // Nothing new: nothing queued again.
    expect(await d.dispatchOnce()).toBe(0);
    expect(await queued(ledger)).toEqual([]);
  });

  it("sends nothing for a broken config, and carries on with the others", async () => {
    const broken: ConfigResult = { ok: false, error: "`.github/issue-leases.yml`: bad" };
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await ledger.acquire(key(beta, 1), alice, HOUR, T0 + 1);
    const d = dispatcher(ledger, {
      config: async (s) => (s.repoId === alpha.repoId ? broken : parseConfig({ webhooks: [{ url: B }] })),
    });
    await d.dispatchAll();
    expect(sorted(await queued(ledger))).toEqual([[B, "lease.acquired", 1]]);
    expect(await ledger.eventCursor(WEBHOOKS_CURSOR)).toBe(await ledger.lastEventPos());
  });

  it("stops at an event whose config cannot be read, keeping order, and passes it over once it has waited too long", async () => {
    await ledger.acquire(key(beta, 1), alice, HOUR, T0);
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0 + 1);
    await ledger.acquire(key(beta, 2), alice, HOUR, T0 + 2);
    let readable = false;
    let now = T0 + 60_000;
    const d = dispatcher(ledger, {
      clock: () => now,
      configPatienceMs: 10 * 60_000,
      config: async (s) => {
        if (s.repoId === alpha.repoId && !readable) throw new Error("GitHub did not answer");
        return parseConfig({ webhooks: [{ url: s.repoId === alpha.repoId ? A : B }] });
      },
    });
    await expect(d.dispatchOnce()).rejects.toThrow("GitHub did not answer");
    const [first] = await ledger.eventsAfter(0);
    expect(await ledger.eventCursor(WEBHOOKS_CURSOR)).toBe(first!.pos);
    await expect(d.dispatchOnce()).rejects.toThrow("GitHub did not answer");
    expect(sorted(await queued(ledger))).toEqual([[B, "lease.acquired", 1]]);

    readable = true;
    await d.dispatchAll();
    expect(sorted(await queued(ledger))).toEqual([
      [A, "lease.acquired", 1],
      [B, "lease.acquired", 2],
    ]);

    // Later, alpha's config stays unreadable past the patience (from its first failure): its event is passed over, beta's is sent.
    readable = false;
    await ledger.acquire(key(alpha, 2), alice, HOUR, T0 + 3);
    await ledger.acquire(key(beta, 3), alice, HOUR, T0 + 4);
    await expect(d.dispatchOnce()).rejects.toThrow();
    now += 9 * 60_000;
    await expect(d.dispatchOnce()).rejects.toThrow();
    expect(await queued(ledger)).toEqual([]);
    now += 2 * 60_000;
    await d.dispatchAll();
    expect(sorted(await queued(ledger))).toEqual([[B, "lease.acquired", 3]]);
    expect(await ledger.eventCursor(WEBHOOKS_CURSOR)).toBe(await ledger.lastEventPos());
  });

  it("passes over at once the events of a repository GitHub says the app may not read, and of one whose installation is unknown", async () => {
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await ledger.acquire(key({ repoId: 999, repo: "gone/unknown" }, 1), alice, HOUR, T0 + 1);
    await ledger.acquire(key(beta, 1), alice, HOUR, T0 + 2);
    const asked: number[] = [];
    const d = dispatcher(ledger, {
      config: async (s) => {
        asked.push(s.repoId);
        if (s.repoId === alpha.repoId) throw Object.assign(new Error("Not Found"), { status: 404 });
        return parseConfig({ webhooks: [{ url: B }] });
      },
    });
    await d.dispatchAll();
    expect(asked).toEqual([alpha.repoId, beta.repoId]);
    expect(sorted(await queued(ledger))).toEqual([[B, "lease.acquired", 1]]);
    expect(await ledger.eventCursor(WEBHOOKS_CURSOR)).toBe(await ledger.lastEventPos());
  });

  it("begins, on a first start, at the newest event, and wakes when an event is committed", async () => {
    await ledger.acquire(key(alpha, 1), alice, HOUR, T0);
    await ledger.acquire(key(alpha, 2), alice, HOUR, T0 + 1);
    // A poll far longer than the test: only the watch can wake it.
    const d = dispatcher(ledger, { pollMs: 10 * 60_000 });
    d.start();
    try {
      await until(async () => (await ledger.eventCursor(WEBHOOKS_CURSOR)) === (await ledger.lastEventPos()));
      await ledger.acquire(key(alpha, 3), alice, HOUR, T0 + 2);
      await until(async () => (await ledger.eventCursor(WEBHOOKS_CURSOR)) === (await ledger.lastEventPos()));
    } finally {
      await d.stop();
    }
    expect(sorted(await queued(ledger))).toEqual([[A, "lease.acquired", 3]]);
  });

  it("with two dispatchers on one store (two replicas), queues each event once", async () => {
    const other = await store().another!();
    for (let i = 1; i <= 30; i++) await ledger.acquire(key(alpha, i), alice, HOUR, T0 + i);
    const moves: StoredEvent[][] = [];
    const watching = (l: Ledger): Ledger =>
      new Proxy(l, {
        get(target, prop, receiver) {
          if (prop === "eventsAfter") return async (...args: Parameters<Ledger["eventsAfter"]>) => {
            const read = await target.eventsAfter(...args);
            moves.push(read);
            return read;
          };
          const value = Reflect.get(target, prop, receiver) as unknown;
          return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    const one = dispatcher(watching(ledger), { batchSize: 4 });
    const two = dispatcher(watching(other), { batchSize: 4 });
    // Both read from the same cursor at once, pass after pass, until neither finds anything.
    for (let round = 0; round < 40; round++) {
      const [a, b] = await Promise.all([one.dispatchOnce(), two.dispatchOnce()]);
      if (a === 0 && b === 0 && (await ledger.eventCursor(WEBHOOKS_CURSOR)) === (await ledger.lastEventPos())) break;
    }
    // They did race: some batch was read by both.
    const seen = moves.flatMap((m) => m.map((e) => e.pos));
    expect(seen.length).toBeGreaterThan(30);
    const rows = await queued(ledger);
    expect(rows).toHaveLength(30);
    expect(new Set(rows.map((r) => r[3])).size).toBe(30);
    expect(rows.map((r) => r[2]).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
  });
});

async function until(check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}
