/**
 * `issue-leases events`: the built CLI in a child process, against a SQLite
 * file and a PostgreSQL schema seeded through the ledger in this process:
 * the events of the last hour (or `--since`), as a table or as JSON Lines
 * that are the events other tools get.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LeaseEvent } from "../../src/ledger/events/event-types.js";
import { openPostgres } from "../../src/ledger/postgres/postgres-ledger.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { ROOT, runBuiltCli } from "../support/cli-process.js";
import { freshSchema, skipPostgres } from "../support/pg-schema.js";
import { ensureBuilt } from "../support/server-process.js";

const MIN = 60_000;
const HOUR = 60 * MIN;
const widgets = { repoId: 101, repo: "Octo-Org/Widgets", installation: 7 };
const alice = { id: 11, login: "alice" };
const bot = { id: 12, login: "agent[bot]", instance: "w-1" };
const maint = { id: 13, login: "maint" };

/**
 * Three hours ago alice claimed #1 (outside the last hour); within it, she
 * released it, agent[bot] claimed #2 through the API, and a maintainer ended it.
 */
async function seed(ledger: Ledger, now: number): Promise<void> {
  await ledger.rememberRepo(widgets, now - 4 * HOUR);
  const key = (issue: number) => ({ repoId: widgets.repoId, repo: widgets.repo, issue });
  await ledger.acquire(key(1), alice, 6 * HOUR, now - 3 * HOUR);
  await ledger.release(key(1), alice, now - 30 * MIN);
  await ledger.acquire(key(2), bot, HOUR, now - 20 * MIN, { cause: "api" });
  await ledger.forceRelease(key(2), maint, now - 10 * MIN);
}

const backends = [
  {
    name: "sqlite",
    skip: false,
    async open() {
      const dir = await mkdtemp(join(tmpdir(), "issue-leases-cli-events-"));
      const file = join(dir, "ledger.db");
      const ledger = new SqliteLedger(file);
      return { ledger, env: { DATABASE_URL: file }, cleanup: async () => { await ledger.close(); await rm(dir, { recursive: true, force: true }); } };
    },
  },
  {
    name: "postgres",
    skip: skipPostgres,
    async open() {
      const pg = await freshSchema();
      const ledger = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
      return { ledger, env: { DATABASE_URL: pg.connectionString, DATABASE_SCHEMA: pg.schema }, cleanup: async () => { await ledger.close(); await pg.drop(); } };
    },
  },
];

beforeAll(async () => {
  await ensureBuilt();
});

describe.each(backends)("issue-leases events: $name", (backend) => {
  let opened: Awaited<ReturnType<(typeof backends)[number]["open"]>>;
  const cli = (...args: string[]) => runBuiltCli(args, ROOT, opened.env);

  beforeAll(async () => {
    if (backend.skip) return;
    opened = await backend.open();
    await seed(opened.ledger, Date.now());
  });
  afterAll(async () => {
    await opened?.cleanup();
  });

  it.skipIf(backend.skip)("--json: one line per event of the last hour, each the event as other tools get it", async () => {
    const r = await cli("events", "--json");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    const events = lines.map((l) => JSON.parse(l) as LeaseEvent);
    const kept = (await opened.ledger.eventsAfter(0)).map((e) => e.event);
    expect(kept).toHaveLength(4);
    // The claim three hours ago is not in the last hour.
    expect(events).toEqual(kept.slice(1));
    expect(events.map((e) => `${e.type} #${e.issue} ${e.holder.login} (${e.cause})`)).toEqual([
      "lease.released #1 alice (command)",
      "lease.acquired #2 agent[bot] (api)",
      "lease.ended #2 agent[bot] (maintainer)",
    ]);
    // Each line the JSON the ledger holds, fields in order.
    expect(lines[0]).toBe(JSON.stringify(kept[1]));
  });

  it.skipIf(backend.skip)("a table by default; --since reaches further back", async () => {
    const r = await cli("events", "--since", "4h");
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+SEQ\s+TIME\s+TYPE\s+ISSUE\s+HOLDER\s+INSTANCE\s+TOKEN\s+EXPIRES\s+ACTOR\s+CAUSE$/);
    const rows = lines.slice(1).map((l) => l.split(/\s{2,}/));
    expect(rows.map((c) => [c[1], c[3], c[4], c[5], c[6], c[7], c[9], c[10]])).toEqual([
      ["1", "lease.acquired", "Octo-Org/Widgets#1", "alice", "-", "1", "alice", "command"],
      ["2", "lease.released", "Octo-Org/Widgets#1", "alice", "-", "1", "alice", "command"],
      ["3", "lease.acquired", "Octo-Org/Widgets#2", "agent[bot]", "w-1", "1", "agent[bot]", "api"],
      ["4", "lease.ended", "Octo-Org/Widgets#2", "agent[bot]", "w-1", "1", "maint", "maintainer"],
    ]);
    expect(rows[0]![2]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const none = await cli("events", "--since", "5m");
    expect(none.code).toBe(0);
    expect(none.stdout.trim()).toBe("no lease events in the last 5 minutes");
  });
});

describe("issue-leases events: help and usage", () => {
  it("has its help, and is in the tool's", async () => {
    const help = await runBuiltCli(["events", "--help"], ROOT);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: issue-leases events \[--since D\] \[--json\]/);
    expect(help.stdout).toContain("EVENTS_KEEP");
    expect((await runBuiltCli(["--help"], ROOT)).stdout).toMatch(/^ {2}events \[--since 1h\] \[--json\] +lease events/m);
  });

  it("exits 2 for a --since that is no duration, before opening any database", async () => {
    const r = await runBuiltCli(["events", "--since", "yesterday"], ROOT, { DATABASE_URL: join(tmpdir(), "issue-leases-cli-never", "x.db") });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('issue-leases: --since takes a duration such as 30m, 6h or 2d, not "yesterday"');
    expect(r.stdout).toBe("");
  });
});
