/**
 * `issue-leases adopt owner/name` against the fake GitHub (the app's own
 * credentials, its installation, its config file, its issue list paged) and
 * a real SQLite ledger: the assigned issues become leases, recorded in the
 * history, and once the running app drains its outbox they carry their
 * labels and no comment; a second run adopts nothing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CliIo } from "../../src/cli/cli-io.js";
import { runCli } from "../../src/cli/run-cli.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { IssueKey } from "../../src/ledger/leases/lease-types.js";
import { type FakeGitHub, startFakeGitHub, userId } from "../support/fake-github.js";
import { APP_ID, startAppOnFake } from "../support/probot-on-fake.js";
import { privateKey } from "../support/server-process.js";

const REPO = "octo-org/widgets";
const REPO_ID = 4242;
const T0 = Date.parse("2026-12-01T12:00:00Z");
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const key = (issue: number): IssueKey => ({ repoId: REPO_ID, repo: REPO, issue });
const dev = (n: number) => `dev-${n % 7}`;

let fake: FakeGitHub;
let dir: string;
let db: string;

beforeEach(async () => {
  fake = await startFakeGitHub({ appId: APP_ID, now: () => T0 });
  dir = mkdtempSync(join(tmpdir(), "issue-leases-adopt-"));
  db = join(dir, "leases.db");
  fake.addRepo(REPO, { id: REPO_ID });
  fake.setConfigFile(REPO, ".github/issue-leases.yml", "default_ttl: 3d\n");
  // The app's database, as it made it when it first started.
  await new SqliteLedger(db).close();
});

afterEach(async () => {
  await fake.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The CLI in this process, as the app's operator runs it: the app's credentials, GitHub (the fake) and the database in its environment. */
async function adopt(args: string[], now = T0) {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (t) => (out += `${t}\n`),
    err: (t) => (err += `${t}\n`),
    clock: () => now,
    env: { APP_ID: String(APP_ID), PRIVATE_KEY: privateKey(), ...fake.appEnv(), DATABASE_URL: db },
  };
  const code = await runCli(["adopt", REPO, ...args], io);
  return { code, out, err };
}

interface AdoptJson {
  repo: string;
  adopted: Array<{ issue: number; holder: { login: string; id: number }; token: number; expires_at: string; also_assigned: string[] }>;
  skipped: Array<{ issue: number; reason: string }>;
}

/** 30 assigned issues (#1 with two assignees), #31 already leased, #32 a pull request, #33 unassigned, #34 closed. */
async function seedRepository(): Promise<void> {
  for (let n = 1; n <= 30; n++) fake.addIssue(REPO, n, { title: `Widget ${n}`, assignees: n === 1 ? ["alice", "bob"] : [dev(n)], labels: n === 5 ? ["bug"] : [] });
  fake.addIssue(REPO, 31, { assignees: ["carol"] });
  fake.addPullRequest(REPO, { number: 32, user: "dave", headSha: "a".repeat(40) });
  fake.addIssue(REPO, 32, { assignees: ["dave"] });
  fake.addIssue(REPO, 33, {});
  fake.addIssue(REPO, 34, { state: "closed", assignees: ["erin"] });
  const ledger = new SqliteLedger(db);
  await ledger.acquire(key(31), { id: userId("carol"), login: "carol" }, DAY, T0 - HOUR);
  await ledger.close();
}

describe("issue-leases adopt", () => {
  it("gives 30 assigned issues a lease each, token 1, no reply, and a second run adopts nothing", async () => {
    await seedRepository();
    const first = await adopt(["--json"]);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    const report = JSON.parse(first.out) as AdoptJson;
    expect(report.repo).toBe(REPO);
    expect(report.adopted.map((a) => a.issue)).toEqual(Array.from({ length: 30 }, (_, i) => 30 - i));
    for (const a of report.adopted) {
      const login = a.issue === 1 ? "alice" : dev(a.issue);
      expect(a).toMatchObject({ holder: { login, id: userId(login) }, token: 1, expires_at: iso(T0 + 3 * DAY) });
    }
    expect(report.adopted.find((a) => a.issue === 1)?.also_assigned).toEqual(["bob"]);
    // Unassigned and closed issues are not listed at all.
    expect(report.skipped).toEqual([
      { issue: 32, reason: "a pull request" },
      { issue: 31, reason: "already leased by carol (token 1)" },
    ]);

    // The ledger: one acquire each, by the operator, with its delivery; carol's lease untouched.
    const ledger = new SqliteLedger(db);
    for (let n = 1; n <= 30; n++) {
      const lease = await ledger.current(key(n), T0);
      expect(lease).toMatchObject({ token: 1, expiresAt: T0 + 3 * DAY, holder: { login: n === 1 ? "alice" : dev(n) } });
      const history = await ledger.history(key(n));
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ op: "acquire", outcome: "acquired", actor: { id: 0, login: "operator" }, delivery: `adopt:${REPO_ID}#${n}:0` });
    }
    expect(await ledger.history(key(31))).toHaveLength(1);
    expect(await ledger.repoInfo(REPO_ID)).toEqual({ repoId: REPO_ID, repo: REPO, installation: 1 });

    // The running app shows them on GitHub: labels, the assignees kept, and no comment anywhere.
    const app = await startAppOnFake(fake, { throttle: "off", ledger, clock: () => T0 + 60_000, background: false });
    try {
      await app.runtime.drainer.drainAll();
      expect(await ledger.outboxStats()).toMatchObject({ pending: 0, parked: 0 });
      for (let n = 1; n <= 34; n++) expect(fake.comments(REPO, n), `#${n}`).toEqual([]);
      expect(fake.requests.filter((r) => r.method === "POST" && /\/comments$/.test(r.path))).toEqual([]);
      expect(fake.issueLabels(REPO, 7).sort()).toEqual(["claimed", `claimed-by: ${dev(7)}`, "lease #1"]);
      expect(fake.issueLabels(REPO, 5).sort()).toEqual(["bug", "claimed", `claimed-by: ${dev(5)}`, "lease #1"]);
      expect(fake.assignees(REPO, 1)).toEqual(["alice", "bob"]);
      expect(fake.issueLabels(REPO, 32)).toEqual([]);

      // Again: nothing adopted, no history row, no effect.
      const writes = fake.writeCount();
      const second = await adopt(["--json"], T0 + HOUR);
      expect(second.code).toBe(0);
      const again = JSON.parse(second.out) as AdoptJson;
      expect(again.adopted).toEqual([]);
      expect(again.skipped).toHaveLength(32);
      expect(again.skipped.find((s) => s.issue === 7)).toEqual({ issue: 7, reason: `already leased by ${dev(7)} (token 1)` });
      for (let n = 1; n <= 30; n++) expect(await ledger.history(key(n))).toHaveLength(1);
      expect(await ledger.outboxStats()).toMatchObject({ pending: 0 });
      await app.runtime.drainer.drainAll();
      expect(fake.writeCount()).toBe(writes);
    } finally {
      await app.close();
    }
  }, 60_000);

  it("--reply posts one reply per issue adopted, mentioning its holder; --ttl overrides default_ttl", async () => {
    fake.addIssue(REPO, 1, { assignees: ["alice"] });
    fake.addIssue(REPO, 2, { assignees: ["bob"] });
    const run = await adopt(["--reply", "--ttl", "2d"]);
    expect(run.code).toBe(0);
    expect(run.out).toContain("adopted 2 issues of octo-org/widgets:");
    expect(run.out).toMatch(/^#1 +alice +1 +2026-12-03T12:00:00Z +-$/m);
    const ledger = new SqliteLedger(db);
    const app = await startAppOnFake(fake, { throttle: "off", ledger, clock: () => T0 + 60_000, background: false });
    try {
      await app.runtime.drainer.drainAll();
      for (const [n, login] of [[1, "alice"], [2, "bob"]] as const) {
        const comments = fake.comments(REPO, n);
        expect(comments).toHaveLength(1);
        expect(comments[0]!.body).toContain(`@${login} now holds this issue with lease token **1**`);
        expect(comments[0]!.body).toContain('"op":"claim","outcome":"acquired"');
      }
    } finally {
      await app.close();
    }
  }, 60_000);

  it("pages through GitHub's list of assigned issues", async () => {
    for (let n = 1; n <= 105; n++) fake.addIssue(REPO, n, { assignees: [dev(n)] });
    const run = await adopt(["--json"]);
    expect(run.code).toBe(0);
    expect((JSON.parse(run.out) as AdoptJson).adopted).toHaveLength(105);
    const lists = fake.requests.filter((r) => r.method === "GET" && r.path === `/repos/${REPO}/issues`);
    expect(lists.map((r) => new URLSearchParams(r.query).get("page") ?? "1")).toEqual(["1", "2"]);
  }, 60_000);

  it("changes nothing when the repository's config is broken, the --ttl is out of its range, or the app is not installed", async () => {
    fake.addIssue(REPO, 1, { assignees: ["alice"] });
    const outOfRange = await adopt(["--ttl", "90d"]);
    expect(outOfRange).toMatchObject({ code: 2, out: "" });
    expect(outOfRange.err).toMatch(/^issue-leases: --ttl is outside octo-org\/widgets's range: 90 days is longer than this repository allows \(max_ttl: 30d\), so nothing changed: adopt for 30d or less/);
    fake.setConfigFile(REPO, ".github/issue-leases.yml", "default_ttl: 7\n");
    const broken = await adopt([]);
    expect(broken).toMatchObject({ code: 1, out: "" });
    expect(broken.err).toMatch(/^issue-leases: octo-org\/widgets's config cannot be used, so nothing was adopted: .*default_ttl.*has no unit/);
    fake.uninstall(REPO);
    const notInstalled = await adopt([]);
    expect(notInstalled).toMatchObject({ code: 3, err: "issue-leases: the app is not installed on octo-org/widgets, or there is no such repository\n" });
    const ledger = new SqliteLedger(db);
    expect(await ledger.history(key(1))).toEqual([]);
    await ledger.close();
    const noKey = await runCli(["adopt", REPO], { out: () => {}, err: () => {}, clock: () => T0, env: { APP_ID: "1", DATABASE_URL: db } });
    expect(noKey).toBe(1);
  });
});
