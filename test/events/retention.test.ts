/**
 * How long lease events are kept (`EVENTS_KEEP`), checked as the start
 * checks it, and the hourly prune on a real SQLite ledger with an injected clock.
 */
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EventPruner } from "../../src/events/retention.js";
import { eventsKeepMs } from "../../src/settings/work-settings.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { readSettings } from "../../src/settings/settings.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_700_000_000_000;
const key = (issue: number) => ({ repoId: 1, repo: "octo/alpha", issue });
const alice = { id: 1, login: "alice" };

describe("EVENTS_KEEP", () => {
  it("7 days by default; a duration of a day or more as given", () => {
    expect(eventsKeepMs({})).toBe(7 * DAY);
    expect(eventsKeepMs({ EVENTS_KEEP: "" })).toBe(7 * DAY);
    expect(eventsKeepMs({ EVENTS_KEEP: "1d" })).toBe(DAY);
    expect(eventsKeepMs({ EVENTS_KEEP: " 2w " })).toBe(14 * DAY);
    expect(eventsKeepMs({ EVENTS_KEEP: "36 hours" })).toBe(36 * HOUR);
  });

  it("refuses what is not a duration, or less than a day, naming the variable; the start's check refuses it too", () => {
    expect(() => eventsKeepMs({ EVENTS_KEEP: "forever" })).toThrow('EVENTS_KEEP is not a duration (such as 7d, 2w or 36h): "forever"');
    expect(() => eventsKeepMs({ EVENTS_KEEP: "23h" })).toThrow("EVENTS_KEEP is 23 hours: keep lease events at least a day (1d)");
    expect(() => eventsKeepMs({ EVENTS_KEEP: "0" })).toThrow(/EVENTS_KEEP is not a duration/);
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const env = { APP_ID: "1", PRIVATE_KEY: privateKey.export({ type: "pkcs1", format: "pem" }).toString(), NODE_ENV: "test" };
    expect(() => readSettings(env, process.cwd())).not.toThrow();
    expect(() => readSettings({ ...env, EVENTS_KEEP: "1h" }, process.cwd())).toThrow("EVENTS_KEEP is 1 hour: keep lease events at least a day (1d)");
  });
});

describe("EventPruner", () => {
  let dir: string;
  let ledger: SqliteLedger;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "issue-leases-prune-"));
    ledger = new SqliteLedger(join(dir, "ledger.db"));
  });
  afterEach(async () => {
    await ledger.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("deletes the events older than what is kept, at start and then every interval; stop waits for a prune under way", async () => {
    await ledger.acquire(key(1), alice, HOUR, T0);
    await ledger.acquire(key(2), alice, HOUR, T0 + DAY);
    await ledger.acquire(key(3), alice, HOUR, T0 + 2 * DAY);
    let now = T0 + DAY + HOUR;
    const errors: unknown[] = [];
    const pruner = new EventPruner({ ledger, clock: () => now, keepMs: DAY, everyMs: 50, onError: (e) => errors.push(e) });
    expect((await ledger.eventsAfter(0)).map((e) => e.event.issue)).toEqual([1, 2, 3]);
    pruner.start();
    await pruner.stop();
    expect((await ledger.eventsAfter(0)).map((e) => e.event.issue)).toEqual([2, 3]);
    now = T0 + 3 * DAY;
    pruner.start();
    const end = Date.now() + 10_000;
    while ((await ledger.eventsAfter(0)).length > 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
    await pruner.stop();
    expect((await ledger.eventsAfter(0)).map((e) => e.event.issue)).toEqual([3]);
    expect(errors).toEqual([]);
  });

  it("a failing prune is reported, not thrown, and the next one runs", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const failing = {
      pruneEvents: async () => {
        calls++;
        if (calls === 1) throw new Error("database is locked");
        return 0;
      },
    };
    const pruner = new EventPruner({ ledger: failing, clock: () => T0, keepMs: DAY, everyMs: 20, onError: (e) => errors.push(e) });
    pruner.start();
    const end = Date.now() + 10_000;
    while (calls < 2 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
    await pruner.stop();
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(errors.map((e) => (e as Error).message)).toEqual(["database is locked"]);
  });
});
