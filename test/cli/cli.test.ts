/**
 * The operator CLI as an operator runs it: the built binary in a child
 * process, against a real ledger (a SQLite file, and PostgreSQL) seeded
 * through the ledger API in this process.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import pgDriver from "pg";
import { migratePostgres } from "../../src/ledger/postgres/migrate.js";
import { openPostgres, type PostgresLedger } from "../../src/ledger/postgres/postgres-ledger.js";
import { POSTGRES_MIGRATIONS } from "../../src/ledger/postgres/migrations.js";
import { migrateSqlite } from "../../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { SQLITE_MIGRATIONS } from "../../src/ledger/sqlite/migrations.js";
import { fenceOf } from "../../src/ledger/outbox/outbox-types.js";
import { type Holder, type IssueKey } from "../../src/ledger/leases/lease-types.js";
import { type Ledger } from "../../src/ledger/ledger.js";
import type { ReflectPayload } from "../../src/outbox/effects.js";
import { renderReply } from "../../src/github/render.js";
import { freshSchema, type FreshSchema, skipPostgres } from "../support/pg-schema.js";
import { ROOT, runBuiltCli } from "../support/cli-process.js";
import { ensureBuilt } from "../support/server-process.js";
import { always } from "../../src/ledger/leases/effect-cases.js";

const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;

const alice: Holder = { id: 11, login: "alice" };
const bob: Holder = { id: 12, login: "bob" };
const carol: Holder = { id: 13, login: "carol" };
const dave: Holder = { id: 14, login: "dave" };

const widgets = { repoId: 101, repo: "Octo-Org/Widgets", installation: 7 };
const tools = { repoId: 202, repo: "acme/tools", installation: 8 };
const key = (r: { repoId: number; repo: string }, issue: number): IssueKey => ({ repoId: r.repoId, repo: r.repo, issue });

/** Runs the built CLI from the project's root. */
const cli = (args: string[], env: Record<string, string> = {}) => runBuiltCli(args, ROOT, env);

/** A stderr that is one clear line, not a stack trace. */
function expectOneLine(stderr: string): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^issue-leases: /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

/**
 * Two repositories the app has seen: Octo-Org/Widgets #1 (bob, token 2, after
 * alice's tenure), #2 (alice, open-ended); acme/tools #5 (alice), #6 (carol,
 * expired: not live).
 */
async function seed(ledger: Ledger, now: number): Promise<void> {
  await ledger.rememberRepo(widgets, now - HOUR);
  await ledger.rememberRepo(tools, now - HOUR);
  const w1 = key(widgets, 1);
  await ledger.acquire(w1, alice, WEEK, now - 50 * 60_000, { delivery: "d-1" });
  await ledger.renew(w1, alice, WEEK, now - 40 * 60_000, { delivery: "d-2" });
  await ledger.note(w1, bob, now - 30 * 60_000, { delivery: "d-3", outcome: "invalid" });
  await ledger.release(w1, alice, now - 20 * 60_000, { delivery: "d-4" });
  await ledger.acquire(w1, bob, WEEK, now - 10 * 60_000, { delivery: "d-5" });
  await ledger.acquire(key(widgets, 2), alice, null, now - 10 * 60_000);
  await ledger.acquire(key(tools, 5), alice, WEEK, now - 10 * 60_000);
  await ledger.acquire(key(tools, 6), carol, 1000, now - HOUR);
}

let dir: string;

beforeAll(async () => {
  // `npm test` on a clean clone has no dist/; the script builds once, under a lock, when sources changed.
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "issue-leases-cli-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("help, version and usage errors", () => {
  it("prints the tool's help and each command's", async () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: issue-leases <command>/);
      expect(r.stdout).toContain("Exit codes: 0 ok, 1 failure, 2 usage error, 3 repository or issue not found.");
    }
    for (const command of ["list", "history", "force-release", "doctor"]) {
      for (const args of [[command, "--help"], ["help", command]]) {
        const r = await cli(args);
        expect(r.code, args.join(" ")).toBe(0);
        expect(r.stdout).toMatch(new RegExp(`^Usage: issue-leases ${command}\\b`));
        expect(r.stdout).toContain("--database URL");
        expect(r.stderr).toBe("");
      }
    }
  });

  it("prints the package's version", async () => {
    const r = await cli(["--version"]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 2 with the usage on stderr when no command is given", async () => {
    const r = await cli([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage: issue-leases/);
  });

  it.each([
    [["frob"], /unknown command "frob": expected list, history, force-release, doctor, backup, restore/],
    [["list", "--bogus"], /Unknown option '--bogus'.*issue-leases list --help/],
    [["--bogus"], /Unknown option '--bogus'/],
    [["list", "extra"], /unexpected argument extra/],
    [["list", "--repo", "not-a-repo"], /not a repository: "not-a-repo"; write it as owner\/name/],
    [["history", "octo-org/widgets#x"], /not an issue: "octo-org\/widgets#x"; write it as owner\/name#N/],
    [["history", "octo-org/widgets#0"], /not an issue/],
    [["history"], /history needs an issue as owner\/name#N/],
    [["force-release", "octo-org/widgets#1"], /force-release needs --reason/],
    [["force-release", "octo-org/widgets#1", "--reason", "  "], /force-release needs --reason/],
    [["force-release", "octo-org/widgets#1", "--reason"], /argument missing/],
    // The old name: which of the two releases is meant, in one line.
    [["release", "octo-org/widgets#1", "--reason", "x"], /`issue-leases release` is now `issue-leases force-release .*` .* or `issue-leases agent release owner\/name#N` \(ends your own lease through the API\)/],
    [["help", "release"], /is now `issue-leases force-release/],
    [["history", "octo-org/widgets#1", "--reason", "x"], /Unknown option '--reason'/],
  ])("exits 2 for %j, before opening any database", async (args, message) => {
    // A database that does not exist: usage errors are found first.
    const r = await cli(args, { DATABASE_URL: join(tmpdir(), "issue-leases-cli-never", "x.db") });
    expect(r.code).toBe(2);
    expectOneLine(r.stderr);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
  });
});

describe("on a SQLite ledger", () => {
  let file: string;
  let ledger: SqliteLedger;
  const now = Date.now();
  const run = (...args: string[]) => cli(args, { DATABASE_URL: file });

  beforeAll(async () => {
    file = join(dir, "read.db");
    ledger = new SqliteLedger(file);
    await seed(ledger, now);
  });

  afterAll(async () => {
    await ledger.close();
  });

  it("lists live leases as an aligned table, ordered by repository and issue", async () => {
    const r = await run("list");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^REPO\s+ISSUE\s+HOLDER\s+INSTANCE\s+TOKEN\s+ACQUIRED\s+EXPIRES$/);
    const rows = lines.slice(1).map((l) => l.split(/\s{2,}/));
    expect(rows.map((c) => c.slice(0, 5))).toEqual([
      ["acme/tools", "#5", "alice", "-", "1"],
      ["Octo-Org/Widgets", "#1", "bob", "-", "2"],
      ["Octo-Org/Widgets", "#2", "alice", "-", "1"],
    ]);
    expect(rows[1]![5]).toBe(new Date(now - 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z"));
    expect(rows[1]![6]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(rows[2]![6]).toBe("never");
    // Aligned: every column starts where its header does.
    for (const header of ["ISSUE", "HOLDER", "INSTANCE", "TOKEN", "ACQUIRED", "EXPIRES"]) {
      const at = lines[0]!.indexOf(header);
      for (const line of lines.slice(1)) expect(line[at - 1], `${header} in ${line}`).toBe(" ");
      for (const line of lines.slice(1)) expect(line[at], `${header} in ${line}`).not.toBe(" ");
    }
  });

  it("lists as JSON, and filters by repository (case-insensitive) and holder", async () => {
    const all = await run("list", "--json");
    expect(all.code).toBe(0);
    const leases = JSON.parse(all.stdout) as Array<Record<string, unknown>>;
    expect(leases).toHaveLength(3);
    expect(leases[1]).toEqual({
      repo: "Octo-Org/Widgets",
      repo_id: 101,
      issue: 1,
      holder: { login: "bob", id: 12, instance: null },
      token: 2,
      expires_at: new Date(now - 10 * 60_000 + WEEK).toISOString().replace(/\.\d{3}Z$/, "Z"),
      held_by: "time",
      acquired_at: new Date(now - 10 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
    });
    expect(leases[2]).toMatchObject({ issue: 2, expires_at: null });

    const repo = JSON.parse((await run("list", "--repo", "octo-org/WIDGETS", "--json")).stdout) as Array<{ issue: number }>;
    expect(repo.map((l) => l.issue)).toEqual([1, 2]);
    const holder = JSON.parse((await run("--json", "list", "--holder", "@Alice")).stdout) as Array<{ issue: number }>;
    expect(holder.map((l) => l.issue)).toEqual([5, 2]);
    const both = await run("list", "--repo", "acme/tools", "--holder", "bob");
    expect(both.code).toBe(0);
    expect(both.stdout.trim()).toBe("no live leases");
  });

  it("exits 3 for a repository the app never saw", async () => {
    const r = await run("list", "--repo", "octo-org/unknown");
    expect(r.code).toBe(3);
    expectOneLine(r.stderr);
    expect(r.stderr).toContain("unknown repository octo-org/unknown");
  });

  it("shows every operation on an issue, as JSON and as a table", async () => {
    const r = await run("history", "octo-org/widgets#1", "--json");
    expect(r.code).toBe(0);
    const entries = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    const recorded = await ledger.history({ repoId: widgets.repoId, issue: 1 });
    expect(entries).toHaveLength(5);
    expect(entries.map((e) => [e.op, e.outcome, e.delivery])).toEqual([
      ["acquire", "acquired", "d-1"],
      ["renew", "renewed", "d-2"],
      ["note", "invalid", "d-3"],
      ["release", "released", "d-4"],
      ["acquire", "acquired", "d-5"],
    ]);
    expect(entries.map((e) => e.id)).toEqual(recorded.map((h) => h.id));
    expect(entries[0]).toEqual({
      id: recorded[0]!.id,
      at: new Date(now - 50 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z"),
      op: "acquire",
      outcome: "acquired",
      actor: { login: "alice", id: 11, instance: null },
      holder: { login: "alice", id: 11, instance: null },
      token: 1,
      expires_at: new Date(now - 50 * 60_000 + WEEK).toISOString().replace(/\.\d{3}Z$/, "Z"),
      delivery: "d-1",
    });
    expect(entries[4]).toMatchObject({ actor: { login: "bob" }, holder: { login: "bob" }, token: 2 });

    const table = await run("history", "Octo-Org/Widgets#1");
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+OP\s+OUTCOME\s+ACTOR\s+HOLDER\s+INSTANCE\s+TOKEN\s+EXPIRES\s+DELIVERY$/);
    expect(lines).toHaveLength(6);
    expect(lines[3]).toMatch(/^\S+Z\s+note\s+invalid\s+bob\s+alice\s+-\s+1\s+\S+Z\s+d-3$/);
  });

  it("exits 3 for the history of an issue never seen, or of an unknown repository", async () => {
    const issue = await run("history", "octo-org/widgets#99");
    expect(issue.code).toBe(3);
    expectOneLine(issue.stderr);
    expect(issue.stderr).toContain("no history for Octo-Org/Widgets#99");
    const repo = await run("history", "nobody/nothing#1");
    expect(repo.code).toBe(3);
    expect(repo.stderr).toContain("unknown repository nobody/nothing");
  });

  it("reads the database from --database over DATABASE_URL", async () => {
    const r = await cli(["list", "--database", file, "--json"], { DATABASE_URL: join(dir, "missing.db") });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(3);
  });
});

describe("force-release", () => {
  let file: string;
  let ledger: SqliteLedger;
  const now = Date.now();
  const run = (...args: string[]) => cli(args, { DATABASE_URL: `sqlite:${file}` });
  const pending = () =>
    ledger.db.prepare("SELECT * FROM outbox WHERE state = 'pending' ORDER BY id").all() as Array<{
      repo_id: number;
      issue: number;
      installation: number;
      kind: string;
      payload: string;
    }>;

  beforeAll(async () => {
    file = join(dir, "release.db");
    ledger = new SqliteLedger(file);
    await seed(ledger, now);
  });

  afterAll(async () => {
    await ledger.close();
  });

  it("frees the lease through the ledger and queues one effect with the operator's reason", async () => {
    const r = await run("force-release", "octo-org/widgets#1", "--reason", "Holder left the project; see @eve <b>note</b>");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("released Octo-Org/Widgets#1: bob's lease (token 2) has ended");

    expect(await ledger.current(key(widgets, 1), Date.now())).toBeNull();
    const effects = pending();
    expect(effects).toHaveLength(1);
    const effect = effects[0]!;
    expect(effect).toMatchObject({ repo_id: 101, issue: 1, installation: 7, kind: "reflect" });
    const payload = JSON.parse(effect.payload) as ReflectPayload;
    expect(payload).toMatchObject({ owner: "Octo-Org", repo: "Widgets", reconcile: true });
    expect(payload.reply).toMatchObject({
      op: "release",
      outcome: "released",
      issue: 1,
      actor: "operator",
      mentionHolder: true,
      lease: { holder: "bob", token: 2 },
    });
    expect(payload.reply!.reason).toContain("Released from the command line by an operator");
    expect(payload.reply!.reason).toContain("Holder left the project; see @eve <b>note</b>");
    // What the app will post: the holder told, the operator's text unable to mention or inject HTML.
    const text = renderReply(payload.reply!);
    expect(text).toContain("@bob's lease (token **2**)");
    expect(text).toContain("see @\u200beve &lt;b>note&lt;/b>");

    const last = (await ledger.history({ repoId: 101, issue: 1 })).at(-1)!;
    expect(last).toMatchObject({ op: "force_release", outcome: "released", actor: { id: 0, login: "operator" }, token: 2 });

    // Fencing continues: the next tenure gets the next token.
    const next = await ledger.acquire(key(widgets, 1), carol, WEEK, Date.now());
    expect(next).toMatchObject({ outcome: "acquired", lease: { token: 3 } });
  });

  it("folds the reason to one line and caps its length", async () => {
    const r = await run("force-release", "acme/tools#5", "--reason", `first line\n\n# not a heading ${"x".repeat(500)}`);
    expect(r.code).toBe(0);
    const payload = JSON.parse(pending().at(-1)!.payload) as ReflectPayload;
    const reason = payload.reply!.reason!;
    const given = reason.slice(reason.indexOf("Reason: ") + "Reason: ".length);
    expect(given).toMatch(/^first line # not a heading x+…$/);
    expect(given.length).toBe(300);
  });

  it("leaves a free issue alone: exit 0, nothing recorded, nothing queued", async () => {
    const before = { effects: pending().length, history: (await ledger.history({ repoId: 202, issue: 6 })).length };
    for (const ref of ["acme/tools#6", "acme/tools#77"]) {
      const r = await run("force-release", ref, "--reason", "cleanup");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`nothing to release: acme/tools#${ref.split("#")[1]} has no live lease`);
    }
    expect(pending()).toHaveLength(before.effects);
    expect(await ledger.history({ repoId: 202, issue: 6 })).toHaveLength(before.history);
  });

  it("exits 3 for a repository the app never saw", async () => {
    const r = await run("force-release", "someone/else#1", "--reason", "x");
    expect(r.code).toBe(3);
    expectOneLine(r.stderr);
    expect(r.stderr).toMatch(/unknown repository someone\/else: the app has not seen a command in it/);
  });
});

describe("doctor", () => {
  let file: string;
  let ledger: SqliteLedger;
  const run = (...args: string[]) => cli(args, { DATABASE_URL: file });

  beforeAll(async () => {
    file = join(dir, "doctor.db");
    ledger = new SqliteLedger(file);
    await seed(ledger, Date.now());
  });

  afterAll(async () => {
    await ledger.close();
  });

  it("passes on a healthy ledger", async () => {
    const r = await run("doctor");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ["ok", "database"],
      ["ok", "schema"],
      ["ok", "pending"],
      ["ok", "parked"],
      ["ok", "github"],
    ]);
    // No GHE_HOST nor GITHUB_API_URL: github.com, named and not asked.
    expect(lines[4]).toMatch(/^ok\s+github\s+github\.com \(REST https:\/\/api\.github\.com, GraphQL https:\/\/api\.github\.com\/graphql\)$/);
    const json = JSON.parse((await run("doctor", "--json")).stdout) as {
      ok: boolean;
      checks: Array<{ name: string; status: string }>;
      schema: { current: number; latest: number };
      outbox: { pending: number; parked: number };
    };
    expect(json.ok).toBe(true);
    expect(json.schema.current).toBe(json.schema.latest);
    expect(json.outbox).toMatchObject({ pending: 0, parked: 0 });
  });

  it("warns, without failing, about parked effects and old pending ones", async () => {
    const now = Date.now();
    const payload: ReflectPayload = { owner: "Octo-Org", repo: "Widgets", reconcile: true, reply: null };
    const effect = { installation: 7, kind: "reflect", payload };
    await ledger.note(key(widgets, 1), null, now, { effects: always(effect) });
    const [taken] = await ledger.takeEffects(now, 1, 60_000);
    await ledger.failEffect(fenceOf(taken!), now, "422: Validation Failed", null);
    // Queued two hours ago and never applied.
    await ledger.note(key(widgets, 2), null, now - 2 * HOUR, { effects: always(effect) });

    const r = await run("doctor");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^warn\s+pending\s+1 effect pending, the oldest for 2h: check that the app is running/m);
    expect(r.stdout).toMatch(/^warn\s+parked\s+1 effect parked after repeated failures/m);
    const json = JSON.parse((await run("doctor", "--json")).stdout) as { ok: boolean; checks: Array<{ status: string }> };
    expect(json.ok).toBe(true);
    expect(json.checks.map((c) => c.status)).toEqual(["ok", "ok", "warn", "warn", "ok"]);
  });

  it("warns when the database was migrated by a newer issue-leases", async () => {
    const newer = join(dir, "newer.db");
    const other = new SqliteLedger(newer);
    const { latest } = await other.schemaVersion();
    other.db.pragma(`user_version = ${latest + 1}`);
    await other.close();
    const r = await cli(["doctor"], { DATABASE_URL: newer });
    expect(r.code).toBe(0);
    const line = r.stdout.split("\n").find((l) => l.startsWith("warn  schema"));
    expect(line).toContain(`at version ${latest + 1}, newer than this issue-leases knows (${latest})`);
  });

  it("fails on a database the app has not migrated yet, and leaves its schema as it was", async () => {
    const latest = SQLITE_MIGRATIONS.length;
    // A database the previous version of the app left: one migration short.
    const behind = new Database(join(dir, "behind.db"));
    migrateSqlite(behind, latest - 1);
    behind.close();
    const url = join(dir, "behind.db");

    const r = await cli(["doctor"], { DATABASE_URL: url });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^ok\s+database\s/m);
    expect(r.stdout).toMatch(new RegExp(`^fail\\s+schema\\s+.*at schema version ${latest - 1} of ${latest}: start \\(or restart\\) the app`, "m"));
    const json = JSON.parse((await cli(["doctor", "--json"], { DATABASE_URL: url })).stdout) as { ok: boolean; schema: unknown };
    expect(json).toMatchObject({ ok: false, schema: { current: latest - 1, latest } });

    const list = await cli(["list"], { DATABASE_URL: url });
    expect(list.code).toBe(1);
    expectOneLine(list.stderr);
    expect(list.stderr).toContain(`at schema version ${latest - 1} of ${latest}`);

    const after = new Database(url, { readonly: true });
    expect(after.pragma("user_version", { simple: true })).toBe(latest - 1);
    after.close();
  });

  it("fails when the database cannot be opened", async () => {
    const r = await cli(["doctor", "--json"], { DATABASE_URL: "postgres://someone:s3cret@127.0.0.1:1/x" });
    expect(r.code).toBe(1);
    const json = JSON.parse(r.stdout) as { ok: boolean; checks: Array<{ name: string; status: string; message: string }> };
    expect(json.ok).toBe(false);
    expect(json.checks).toEqual([
      { name: "database", status: "fail", message: expect.stringContaining("check DATABASE_URL") },
      { name: "github", status: "ok", message: expect.stringMatching(/^github\.com/) },
    ]);
    expect(r.stdout).not.toContain("s3cret");
  });
});

describe("a database that cannot be opened", () => {
  it.each([
    [
      "an unreachable PostgreSQL",
      "postgres://someone:s3cret@127.0.0.1:1/x",
      /cannot reach PostgreSQL at 127\.0\.0\.1:1\/x .*check DATABASE_URL/,
    ],
    [
      "a SQLite file that does not exist",
      "/nonexistent-root/issue-leases/x.db",
      /no database at \/nonexistent-root\/issue-leases\/x\.db: check DATABASE_URL/,
    ],
  ])("exits 1 with one clear line for %s", async (_what, url, message) => {
    for (const command of [["list"], ["history", "a/b#1"], ["force-release", "a/b#1", "--reason", "x"]]) {
      const r = await cli(command, { DATABASE_URL: url });
      expect(r.code, command.join(" ")).toBe(1);
      expectOneLine(r.stderr);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toContain("s3cret");
    }
  });

  it("exits 1 for a file that is not a SQLite database, and for a path under a file", async () => {
    const notDb = join(dir, "not-a-db.txt");
    await writeFile(notDb, "hello, this is not SQLite ".repeat(100));
    const bad = await cli(["list"], { DATABASE_URL: notDb });
    expect(bad.code).toBe(1);
    expectOneLine(bad.stderr);
    expect(bad.stderr).toMatch(/cannot open database at .*not-a-db\.txt \(.+\): check DATABASE_URL/);

    const under = await cli(["list", "--database", join(notDb, "sub", "x.db")]);
    expect(under.code).toBe(1);
    expectOneLine(under.stderr);
    expect(under.stderr).toContain("no database at");
  });
});

describe.skipIf(skipPostgres)("on PostgreSQL", () => {
  let pg: FreshSchema;
  let ledger: PostgresLedger;
  let env: Record<string, string>;

  beforeAll(async () => {
    pg = await freshSchema();
    // The caller's clock, so that the seed's times (an expired lease) are as given; the CLI reads the database's.
    ledger = await openPostgres({ connectionString: pg.connectionString, schema: pg.schema, clock: "caller" });
    await seed(ledger, Date.now());
    env = { DATABASE_URL: pg.connectionString, DATABASE_SCHEMA: pg.schema };
  });

  afterAll(async () => {
    await ledger?.close();
    await pg?.drop();
  });

  it("lists, releases through the outbox and passes doctor", async () => {
    const list = await cli(["list", "--json"], env);
    expect(list.code).toBe(0);
    expect((JSON.parse(list.stdout) as Array<{ repo: string; issue: number }>).map((l) => `${l.repo}#${l.issue}`)).toEqual([
      "acme/tools#5",
      "Octo-Org/Widgets#1",
      "Octo-Org/Widgets#2",
    ]);

    const release = await cli(["force-release", "OCTO-ORG/widgets#2", "--reason", "stale claim"], env);
    expect(release.code).toBe(0);
    expect(release.stdout).toContain("released Octo-Org/Widgets#2: alice's lease (token 1) has ended");
    expect(await ledger.current(key(widgets, 2), Date.now())).toBeNull();
    const effects = await ledger.takeEffects(Date.now(), 10, 60_000);
    expect(effects).toHaveLength(1);
    expect(effects[0]).toMatchObject({ repoId: 101, issue: 2, installation: 7, kind: "reflect" });
    expect((effects[0]!.payload as ReflectPayload).reply!.reason).toContain("stale claim");
    const next = await ledger.acquire(key(widgets, 2), dave, WEEK, Date.now());
    expect(next).toMatchObject({ outcome: "acquired", lease: { token: 2 } });

    const doctor = await cli(["doctor", "--json"], env);
    expect(doctor.code).toBe(0);
    const report = JSON.parse(doctor.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
    expect(report.ok).toBe(true);
    expect(report.checks.map((c) => `${c.name}:${c.status}`)).toEqual(["database:ok", "schema:ok", "pending:ok", "parked:ok", "github:ok"]);

    const unknown = await cli(["force-release", "octo-org/nope#1", "--reason", "x"], env);
    expect(unknown.code).toBe(3);
  });

  it("refuses a schema one migration behind, and leaves it there", async () => {
    const behind = await freshSchema();
    const pool = new pgDriver.Pool({ connectionString: behind.connectionString });
    try {
      const latest = POSTGRES_MIGRATIONS.length;
      await migratePostgres(pool, behind.schema, latest - 1);
      const at = { DATABASE_URL: behind.connectionString, DATABASE_SCHEMA: behind.schema };
      const doctor = await cli(["doctor", "--json"], at);
      expect(doctor.code).toBe(1);
      const report = JSON.parse(doctor.stdout) as { ok: boolean; checks: Array<{ name: string; status: string }> };
      expect(report.checks.map((c) => `${c.name}:${c.status}`)).toEqual(["database:ok", "schema:fail", "github:ok"]);
      const list = await cli(["list"], at);
      expect(list.code).toBe(1);
      expect(list.stderr).toContain(`at schema version ${latest - 1} of ${latest}`);
      const { rows } = await pool.query<{ v: number }>(`SELECT max(version) AS v FROM ${behind.schema}.schema_version`);
      expect(rows[0]!.v).toBe(latest - 1);
    } finally {
      await pool.end();
      await behind.drop();
    }
  });
});
