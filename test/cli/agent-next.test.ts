/**
 * `issue-leases agent next` and `agent claim --wait` against a small HTTP
 * server in the test standing in for the API: the filters on the wire,
 * nothing ready (exit 66 with matched and held), waiting in line; and, as
 * the built CLI in a child process, `next -- COMMAND {issue}` giving the
 * issue to its command (argument and ISSUE_LEASES_ISSUE) and releasing it
 * when the command exits. The same against the real server are the lead's
 * end-to-end tests.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { AGENT_EXIT } from "../../src/cli/agent-exit.js";
import { type ApiStub, EVENTS_PATH, LEASE_PATH, leaseJson, NO_STREAM, notEvents, type StubHandler, startApiStub } from "../client/api-stub.js";
import { BUILT_CLI } from "../support/cli-process.js";
import { ensureBuilt } from "../support/server-process.js";
import { runAgainst } from "./agent-in-process.js";

const EXPIRES = "2026-12-08T12:00:00Z";
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "w-3" };
const alice = { login: "alice", id: 11 };
const NEXT_PATH = "/api/v1/repos/octo-org/widgets/leases/next";
const NOTHING_READY = { status: 404, json: { error: { code: "nothing_ready", message: "nothing is ready" }, matched: 3, held: 3 } };

const on31 = (outcome: string, expiresAt: string | null) => ({ ...leaseJson(outcome, bot, 1, expiresAt), issue: 31 });

let stub: ApiStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** Runs the CLI in this process against a stub answering with `handler`. */
async function agent(handler: StubHandler, args: string[]) {
  stub ??= await startApiStub(handler);
  return runAgainst(stub, args);
}

describe("agent next", () => {
  it("sends each filter as the API's field, and without a command prints the lease it took", async () => {
    const filters = ["--label", "bug", "--label", "agent-ok", "--any-label", "p1", "--exclude-label", "wontfix", "--milestone", "v2"];
    const order = ["--order", "priority: high", "--order", "priority: low"];
    const r = await agent(() => ({ status: 200, json: on31("acquired", EXPIRES) }), ["next", "octo-org/widgets", ...filters, ...order, "--ttl", "2h", "--instance", "w-3"]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe(`acquired octo-org/widgets#31: token 1, expires ${EXPIRES}, held by deploy-bot[bot] (instance w-3)\n`);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ method: "POST", path: NEXT_PATH });
    expect(r.requests[0]!.body).toEqual({
      labels: ["bug", "agent-ok"],
      any_labels: ["p1"],
      exclude_labels: ["wontfix"],
      milestone: "v2",
      order: ["priority: high", "priority: low"],
      ttl: "2h",
      instance: "w-3",
    });
    expect(r.requests[0]!.headers["idempotency-key"]).toBeTruthy();
  });

  it("takes an owner's every repository with --org, and prints the API's answer with --json", async () => {
    const r = await agent(() => ({ status: 200, json: on31("acquired", EXPIRES) }), ["next", "--org", "octo-org", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(on31("acquired", EXPIRES));
    expect(r.requests[0]).toMatchObject({ method: "POST", path: "/api/v1/orgs/octo-org/leases/next", body: {} });
  });

  it("exits 66 when nothing is ready, saying how many issues match and are held, without running the command", async () => {
    const r = await agent(() => NOTHING_READY, ["next", "octo-org/widgets", "--label", "bug", "--", "sh", "-c", "echo ran"]);
    expect(r.code).toBe(AGENT_EXIT.nothing_ready);
    expect(r.code).toBe(66);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("issue-leases: nothing ready in octo-org/widgets: 3 open issues match the filters, 3 of them held\n");
    expect(r.requests).toHaveLength(1);
    const j = await agent(() => NOTHING_READY, ["next", "octo-org/widgets", "--json"]);
    expect(j.code).toBe(66);
    expect(JSON.parse(j.stdout)).toEqual(NOTHING_READY.json);
  });

  it.each([
    [["next"], /next needs a repository as owner\/repo \(or --org OWNER\)/],
    [["next", "octo-org/widgets#12"], /not a repository: "octo-org\/widgets#12"; write it as owner\/repo/],
    [["next", "octo-org/widgets", "./agent.sh"], /put the command after --: issue-leases agent next octo-org\/widgets -- \.\/agent\.sh/],
    [["next", "octo-org/widgets", "--"], /next needs a command after --/],
    [["next", "octo-org/widgets", "--org", "octo-org"], /give owner\/repo or --org, not both/],
    [["next", "octo-org/widgets", "--label", ""], /--label is empty/],
    [["next", "octo-org/widgets", "--ttl", "soon"], /--ttl "soon" is not a duration/],
    [["next", "octo-org/widgets", "--labels", "bug"], /Unknown option '--labels'.*issue-leases agent next --help/],
  ])("%j exits 64 before any request", async (args, message) => {
    const r = await agent(() => ({ status: 500 }), args);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(message);
    expect(r.requests).toEqual([]);
  });

  it("has a help naming its filters, {issue}, ISSUE_LEASES_ISSUE and exit 66", async () => {
    const r = await agent(() => ({ status: 500 }), ["next", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: issue-leases agent next owner\/repo/);
    for (const text of ["--label L", "--any-label L", "--exclude-label L", "--milestone M", "--order L", "{issue}", "ISSUE_LEASES_ISSUE", "66  next: no issue is ready"]) {
      expect(r.stdout).toContain(text);
    }
  });
});

describe("agent claim --wait", () => {
  /** A held issue whose lease passes to the caller once it has polled `polls` times. */
  function line(polls: number): StubHandler {
    let gets = 0;
    return (req) => {
      if (req.path !== LEASE_PATH) throw new Error(`unexpected ${req.method} ${req.path}`);
      const mine = gets >= polls;
      if (req.method === "POST" && req.query.get("wait") === "true") {
        if (mine) return { status: 200, json: leaseJson("acquired", bot, 5, EXPIRES) };
        const place = { outcome: "queued", repo: "octo-org/widgets", issue: 12, position: 2, queued_until: EXPIRES, lease: leaseJson("status", alice, 4, EXPIRES) };
        return { status: 202, json: place };
      }
      if (req.method === "GET") return { status: 200, json: ++gets >= polls ? leaseJson("status", bot, 5, EXPIRES) : leaseJson("status", alice, 4, EXPIRES) };
      if (req.method === "DELETE") return { status: 200, json: leaseJson("left_queue", alice, 4, EXPIRES) };
      throw new Error(`unexpected ${req.method} ${req.path}`);
    };
  }

  it("waits in line, tells its place, and prints the lease once it is handed over", async () => {
    const r = await agent(line(1), ["claim", "octo-org/widgets#12", "--wait", "--ttl", "1h", "--instance", "w-3"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("issue-leases: 2nd in line for octo-org/widgets#12, held by alice with token 4; waiting\n");
    expect(r.stdout).toBe(`acquired octo-org/widgets#12: token 5, expires ${EXPIRES}, held by deploy-bot[bot] (instance w-3)\n`);
    expect(r.requests.map((q) => `${q.method} ${q.query}`)).toEqual(["POST wait=true", "GET ", "POST wait=true"]);
    expect(r.requests[0]!.body).toEqual({ ttl: "1h", instance: "w-3" });
  });

  it("gives up after --wait-timeout: leaves the line and exits 75", async () => {
    const r = await agent(line(Infinity), ["claim", "octo-org/widgets#12", "--wait-timeout", "2s", "--instance", "w-3", "--json"]);
    expect(r.code).toBe(75);
    expect(JSON.parse(r.stderr.split("\n")[0]!)).toMatchObject({ event: "queued", issue: "octo-org/widgets#12", position: 2 });
    expect(r.stderr).toMatch(/issue-leases: gave up waiting for octo-org\/widgets#12 after 2 s \(2nd in line\): octo-org\/widgets#12 is held by alice with token 4/);
    expect(JSON.parse(r.stdout)).toMatchObject({ outcome: "held", holder: { login: "alice" }, token: 4 });
    const last = r.requests.at(-1)!;
    expect([last.method, last.query.get("instance")]).toEqual(["DELETE", "w-3"]);
  });
});

describe("agent release, with a line", () => {
  it("says who got the lease released to the first in line, and that someone in line left it", async () => {
    const handed = { ...leaseJson("released", bot, 5, EXPIRES), handed_to: { holder: { ...alice, instance: null }, token: 6, expires_at: EXPIRES } };
    const r = await agent(() => ({ status: 200, json: handed }), ["release", "octo-org/widgets#12"]);
    expect(r.stdout).toBe("released octo-org/widgets#12: deploy-bot[bot] (instance w-3)'s lease (token 5) has ended; alice was first in line and holds it now with token 6\n");
    const left = { outcome: "left_queue", repo: "octo-org/widgets", issue: 12, lease: leaseJson("status", alice, 4, EXPIRES) };
    await stub!.close();
    stub = undefined;
    const l = await agent(() => ({ status: 200, json: left }), ["release", "octo-org/widgets#12"]);
    expect(l).toMatchObject({ code: 0, stdout: "left the line for octo-org/widgets#12, held by alice with token 4\n" });
  });
});

// ---------------------------------------------------------------------------
// agent next -- COMMAND, as the built CLI in a child process

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "issue-leases-next-"));
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [BUILT_CLI, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: "ghp_t", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

describe("agent next -- COMMAND", () => {
  it("is listed in the CLI's own help", async () => {
    const r = await runCli(["--help"], {});
    expect(r.stdout).toMatch(/^ {2}agent next owner\/repo --label L -- COMMAND \{issue\} +the same on the next ready issue$/m);
  });

  it("passes the issue as {issue} and ISSUE_LEASES_ISSUE, and releases it when the command exits, with its status", async () => {
    stub = await startApiStub((req) => {
      const until = new Date(Date.now() + 60_000).toISOString();
      // An app without the event stream: the renewals alone (the stream's requests are left out below).
      if (req.path === EVENTS_PATH) return NO_STREAM;
      if (req.method === "POST" && req.path === NEXT_PATH) return { status: 200, json: on31("acquired", until) };
      if (req.method === "DELETE" && req.path === "/api/v1/repos/octo-org/widgets/issues/31/lease") return { status: 200, json: on31("released", until) };
      throw new Error(`unexpected ${req.method} ${req.path}`);
    });
    const out = join(dir, "next.txt");
    const script = `echo "$1 fix-$2 $ISSUE_LEASES_ISSUE $ISSUE_LEASES_REF $ISSUE_LEASES_TOKEN $ISSUE_LEASES_INSTANCE" > ${out}; exit 4`;
    const r = await runCli(["agent", "next", "octo-org/widgets", "--label", "bug", "--ttl", "60s", "--instance", "w-3", "--", "sh", "-c", script, "sh", "{issue}", "{issue}"], {
      ISSUE_LEASES_URL: stub.url,
    });
    expect(r.code).toBe(4);
    expect(readFileSync(out, "utf8")).toBe("31 fix-31 31 octo-org/widgets#31 1 w-3\n");
    expect(r.stderr).toContain("issue-leases: octo-org/widgets#31 is yours: token 1");
    expect(r.stderr).toContain("issue-leases: sh exited with status 4; releasing octo-org/widgets#31");
    expect(stub.requests.filter(notEvents).map((q) => [q.method, q.path, q.query.get("instance")])).toEqual([
      ["POST", NEXT_PATH, null],
      ["DELETE", "/api/v1/repos/octo-org/widgets/issues/31/lease", "w-3"],
    ]);
    expect(stub.requests[0]!.body).toEqual({ labels: ["bug"], ttl: "60s", instance: "w-3" });
  }, 30_000);
});

describe("agent claim --wait, stopped", () => {
  it("leaves the line on SIGINT and exits 130", async () => {
    stub = await startApiStub((req) => {
      if (req.path !== LEASE_PATH) throw new Error(`unexpected ${req.method} ${req.path}`);
      const held = leaseJson("status", alice, 4, EXPIRES);
      if (req.method === "POST") return { status: 202, json: { outcome: "queued", repo: "octo-org/widgets", issue: 12, position: 1, queued_until: EXPIRES, lease: held } };
      if (req.method === "GET") return { status: 200, json: held };
      if (req.method === "DELETE") return { status: 200, json: leaseJson("left_queue", alice, 4, EXPIRES) };
      throw new Error(`unexpected ${req.method} ${req.path}`);
    });
    const child = spawn(process.execPath, [BUILT_CLI, "agent", "claim", "octo-org/widgets#12", "--wait", "--instance", "w-3"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: "ghp_t", ISSUE_LEASES_URL: stub.url },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const deadline = Date.now() + 20_000;
    while (!stderr.includes("in line") && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(stderr).toBe("issue-leases: 1st in line for octo-org/widgets#12, held by alice with token 4; waiting\nissue-leases: SIGINT received: left the line for octo-org/widgets#12\n");
    const last = stub.requests.at(-1)!;
    expect([last.method, last.query.get("instance")]).toEqual(["DELETE", "w-3"]);
  }, 30_000);
});
