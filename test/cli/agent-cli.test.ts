/**
 * `issue-leases agent …` against a small HTTP server in the test standing
 * in for the API: what each command asks, prints and exits with, and that
 * arguments are checked before anything is asked. `agent run` runs as
 * the built CLI in a child process (it spawns, signals and exits); the
 * same commands against the real server are in test/e2e/agent.test.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runAgentCli } from "../../src/cli/agent-cli.js";
import { AGENT_EXIT } from "../../src/cli/agent-exit.js";
import { type ApiStub, EVENTS_PATH, LEASE_PATH, leaseJson, NO_STREAM, notEvents, type StubHandler, startApiStub } from "../client/api-stub.js";
import { BUILT_CLI } from "../support/cli-process.js";
import { agentChildren, LOOP, waitUntil } from "./agent-child.js";
import { runAgainst } from "./agent-in-process.js";

const EXPIRES = "2026-12-08T12:00:00Z";
const bot = { login: "deploy-bot[bot]", id: 41898282, instance: "worker-3" };
const alice = { login: "alice", id: 11 };

let stub: ApiStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** Runs the CLI in this process against a stub answering with `handler`. */
async function agent(handler: StubHandler, args: string[], env: Record<string, string> = {}) {
  stub ??= await startApiStub(handler);
  return runAgainst(stub, args, env);
}

describe("agent claim, renew, release, status", () => {
  it("claim prints the token and the expiry, sending the TTL, the instance and the token", async () => {
    const r = await agent(() => ({ status: 200, json: leaseJson("acquired", bot, 3, EXPIRES) }), [
      "claim",
      "octo-org/widgets#12",
      "--ttl",
      "30m",
      "--instance",
      "worker-3",
    ]);
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toBe(`acquired octo-org/widgets#12: token 3, expires ${EXPIRES}, held by deploy-bot[bot] (instance worker-3)\n`);
    expect(r.requests).toHaveLength(1);
    expect(r.requests[0]).toMatchObject({ method: "POST", path: LEASE_PATH, body: { ttl: "30m", instance: "worker-3" } });
    expect(r.requests[0]!.headers.authorization).toBe("Bearer ghp_from_env");
    expect(r.requests[0]!.headers["idempotency-key"]).toBeTruthy();
  });

  it("claim --json prints the API's answer", async () => {
    const r = await agent(() => ({ status: 200, json: leaseJson("acquired", bot, 3, EXPIRES) }), ["claim", "octo-org/widgets#12", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(leaseJson("acquired", bot, 3, EXPIRES));
  });

  it("a held issue exits 75 naming the holder on stderr; with --json its answer is on stdout", async () => {
    const held = leaseJson("held", alice, 4, EXPIRES);
    const r = await agent(() => ({ status: 409, json: held }), ["claim", "octo-org/widgets#12"]);
    expect(r.code).toBe(AGENT_EXIT.held);
    expect(r.code).toBe(75);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(`issue-leases: octo-org/widgets#12 is held by alice with token 4, until ${EXPIRES}\n`);
    const j = await agent(() => ({ status: 409, json: held }), ["claim", "octo-org/widgets#12", "--json"]);
    expect(j.code).toBe(75);
    expect(JSON.parse(j.stdout)).toEqual(held);
  });

  it("renew and release of a lease someone else holds exit 76", async () => {
    const r = await agent(() => ({ status: 409, json: leaseJson("not_holder", alice, 4, EXPIRES) }), ["renew", "octo-org/widgets#12", "--ttl", "1h"]);
    expect(r.code).toBe(76);
    expect(r.stderr).toMatch(/^issue-leases: not the holder of octo-org\/widgets#12: it is held by alice with token 4/);
    const rel = await agent(() => ({ status: 409, json: leaseJson("not_holder", alice, 4, EXPIRES) }), ["release", "octo-org/widgets#12"]);
    expect(rel.code).toBe(76);
    expect(r.requests.map((q) => q.method)).toEqual(["PATCH", "DELETE"]);
  });

  it("release sends the instance as ?instance=, and says when nothing was held", async () => {
    const r = await agent(
      (_req, i) => ({ status: 200, json: i === 0 ? leaseJson("released", bot, 3, EXPIRES) : leaseJson("released", null, null, null) }),
      ["release", "octo-org/widgets#12", "--instance", "worker-3"],
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("released octo-org/widgets#12: deploy-bot[bot] (instance worker-3)'s lease (token 3) has ended\n");
    expect(r.requests[0]!.query.get("instance")).toBe("worker-3");
    const none = await agent(() => ({ status: 500 }), ["release", "octo-org/widgets#12"]);
    expect(none.stdout).toBe("released octo-org/widgets#12: you held no lease on it\n");
  });

  it("status says who holds the issue, or that it is free, and lists the recent tenures", async () => {
    const tenures = [
      { holder: { ...bot }, token: 3, from: "2026-12-01T10:00:00Z", to: "2026-12-01T11:00:00Z", ended: "released" },
      { holder: { ...alice, instance: null }, token: 4, from: "2026-12-01T11:30:00Z", to: null, ended: "live" },
    ];
    const r = await agent(
      (_req, i) => ({ status: 200, json: i === 0 ? { ...leaseJson("status", alice, 4, EXPIRES), tenures } : leaseJson("status", null, null, null) }),
      ["status", "octo-org/widgets#12"],
    );
    expect(r.stdout.split("\n")).toEqual([
      `octo-org/widgets#12 is held by alice with token 4, expires ${EXPIRES}`,
      "",
      "TOKEN  HOLDER                               FROM                  TO                    ENDED",
      "3      deploy-bot[bot] (instance worker-3)  2026-12-01T10:00:00Z  2026-12-01T11:00:00Z  released",
      "4      alice                                2026-12-01T11:30:00Z  -                     live",
      "",
    ]);
    const free = await agent(() => ({ status: 500 }), ["status", "octo-org/widgets#12"]);
    expect(free.stdout).toBe("octo-org/widgets#12 is free\n");
    expect(r.requests.map((q) => q.method)).toEqual(["GET", "GET"]);
  });

  it("mine lists the caller's leases", async () => {
    const r = await agent(() => ({ status: 200, json: { leases: [leaseJson("status", bot, 3, EXPIRES), leaseJson("status", { ...bot, instance: null }, 9, null)] } }), [
      "mine",
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout.split("\n")).toEqual([
      "ISSUE                TOKEN  INSTANCE  EXPIRES",
      `octo-org/widgets#12  3      worker-3  ${EXPIRES}`,
      "octo-org/widgets#12  9      -         never",
      "",
    ]);
    expect(r.requests[0]).toMatchObject({ method: "GET", path: "/api/v1/leases" });
    expect(r.requests[0]!.query.get("holder")).toBe("@me");
  });
});

describe("agent verify", () => {
  it("exits 0 for the live token and 76 for another, naming who holds it", async () => {
    const handler: StubHandler = (req) =>
      (req.body as { token: number }).token === 3
        ? { status: 200, json: { valid: true } }
        : { status: 409, json: { valid: false, lease: leaseJson("status", alice, 4, EXPIRES) } };
    const ok = await agent(handler, ["verify", "octo-org/widgets#12", "--token", "3"]);
    expect(ok).toMatchObject({ code: 0, stdout: "valid: token 3 is the live lease on octo-org/widgets#12, and it is yours\n" });
    const stale = await agent(handler, ["verify", "octo-org/widgets#12", "--token", "2"]);
    expect(stale.code).toBe(76);
    expect(stale.stderr).toBe("issue-leases: not valid: token 2 is not your live lease on octo-org/widgets#12: it is held by alice with token 4\n");
  });

  it("takes the issue, token and instance from agent run's environment", async () => {
    const r = await agent(() => ({ status: 200, json: { valid: true } }), ["verify", "--json"], {
      ISSUE_LEASES_REF: "octo-org/widgets#12",
      ISSUE_LEASES_TOKEN: "3",
      ISSUE_LEASES_INSTANCE: "worker-3",
    });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ valid: true });
    expect(r.requests[0]).toMatchObject({ method: "POST", path: `${LEASE_PATH}/verify`, body: { token: 3, instance: "worker-3" } });
  });
});

describe("agent exit codes for the API's refusals and failures", () => {
  it.each([
    [401, 77, { error: { code: "unauthorized", message: "bad credentials" } }, /the API refused the token \(401: bad credentials\): check GITHUB_TOKEN or GH_TOKEN/],
    [404, 77, { error: { code: "not_found", message: "Not Found" } }, /not found \(404: Not Found\): the repository does not exist, the token cannot see it, or the app is not installed on it/],
    [403, 77, { error: { code: "forbidden", message: "only collaborators may claim here", reason: "claimers" } }, /refused by the repository's config: only collaborators may claim here/],
    [422, 64, { error: { code: "invalid", message: "ttl: 90d is longer than max_ttl (30 days)" } }, /ttl: 90d is longer than max_ttl/],
    // The API answered: the URL is right, and the message says what failed instead.
    [503, 69, { error: { code: "unavailable", message: "database down" } }, /the API kept failing: POST .*HTTP 503: database down \(after 3 attempts\); try again later\n$/],
  ])("HTTP %i exits %i", async (status, code, json, message) => {
    const r = await agent(() => ({ status, json }), ["claim", "octo-org/widgets#12", "--ttl", "90d"]);
    expect(r.code).toBe(code);
    expect(r.stderr.split("\n")).toHaveLength(2);
    expect(r.stderr).toMatch(message);
  });

  it("an API that cannot be reached exits 69", async () => {
    const gone = await startApiStub(() => ({ status: 200 }));
    await gone.close();
    let stderr = "";
    const code = await runAgentCli(["status", "octo-org/widgets#12"], {
      out: () => {},
      err: (t) => (stderr += t),
      env: { ISSUE_LEASES_URL: gone.url, GH_TOKEN: "t" },
      retry: { minDelayMs: 1, maxDelayMs: 2, retries: 1 },
    });
    expect(code).toBe(69);
    expect(stderr).toMatch(/cannot reach the API: GET .*ECONNREFUSED/);
  });
});

describe("agent usage errors, before any request", () => {
  it.each([
    [["claim"], 64, /claim needs an issue as owner\/repo#N/],
    [["claim", "octo-org/widgets"], 64, /not an issue: "octo-org\/widgets"; write it as owner\/repo#N/],
    [["claim", "octo-org/widgets#12", "extra"], 64, /unexpected argument extra/],
    [["claim", "octo-org/widgets#12", "--ttl", "7"], 64, /--ttl "7" is not a duration/],
    [["claim", "octo-org/widgets#12", "--instance", " "], 64, /--instance is empty/],
    [["claim", "octo-org/widgets#12", "--bogus"], 64, /Unknown option '--bogus'.*issue-leases agent claim --help/],
    [["status", "octo-org/widgets#12", "--ttl", "1h"], 64, /Unknown option '--ttl'/],
    [["verify", "octo-org/widgets#12"], 64, /verify needs --token N/],
    [["verify", "octo-org/widgets#12", "--token", "0"], 64, /--token "0" is not a lease token/],
    [["run", "octo-org/widgets#12"], 64, /run needs a command after --/],
    [["run", "octo-org/widgets#12", "./agent.sh"], 64, /put the command after --: issue-leases agent run octo-org\/widgets#12 -- \.\/agent\.sh/],
    [["run", "octo-org/widgets#12", "--grace", "soon", "--", "true"], 64, /--grace "soon" is not a duration/],
    [["frob"], 64, /unknown command "frob": expected claim, renew, release, status, verify, mine, run/],
  ])("%j exits %i", async (args, code, message) => {
    const r = await agent(() => ({ status: 500 }), args);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(r.requests).toEqual([]);
  });

  it("without ISSUE_LEASES_URL exits 78, without a token 77, and GH_TOKEN wins over GITHUB_TOKEN", async () => {
    const noUrl = await agent(() => ({ status: 500 }), ["status", "octo-org/widgets#12"], { ISSUE_LEASES_URL: "" });
    expect(noUrl.code).toBe(78);
    expect(noUrl.stderr).toMatch(/ISSUE_LEASES_URL is not set/);
    const notHttp = await agent(() => ({ status: 500 }), ["status", "octo-org/widgets#12"], { ISSUE_LEASES_URL: "ftp://x" });
    expect(notHttp.code).toBe(78);
    const noToken = await agent(() => ({ status: 500 }), ["status", "octo-org/widgets#12"], { GITHUB_TOKEN: "" });
    expect(noToken.code).toBe(77);
    expect(noToken.stderr).toMatch(/no GitHub token: set GITHUB_TOKEN or GH_TOKEN/);
    expect(noToken.requests).toEqual([]);
    const both = await agent(() => ({ status: 200, json: leaseJson("status", null, null, null) }), ["status", "octo-org/widgets#12"], { GH_TOKEN: "gho_gh" });
    expect(both.requests[0]!.headers.authorization).toBe("Bearer gho_gh");
  });

  it("prints its help, and each command's with the exit codes", async () => {
    const help = await agent(() => ({ status: 500 }), ["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: issue-leases agent <command>/);
    for (const command of ["claim", "renew", "release", "status", "verify", "mine", "run"]) {
      const r = await agent(() => ({ status: 500 }), [command, "--help"]);
      expect(r.code, command).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: issue-leases agent ${command}\\b`));
      expect(r.stdout).toContain("75  held by someone else");
      expect(r.stdout).toContain("76  lease lost");
    }
    const none = await agent(() => ({ status: 500 }), []);
    expect(none.code).toBe(64);
    expect(none.stderr).toMatch(/^Usage: issue-leases agent/);
  });
});

// ---------------------------------------------------------------------------
// agent run, as a child process

const kids = agentChildren();
const { spawnCli, shell } = kids;

/**
 * A stub API holding one lease: claims and renewals for `ttl` from now, unless `renewal` answers otherwise. It has no
 * event stream (404, as an app before it): run's renewals alone notice, and the stream's requests are left out below.
 */
async function leaseApi(renewal?: () => { status: number; json?: unknown } | null): Promise<ApiStub> {
  stub = await startApiStub((req) => {
    if (req.path === EVENTS_PATH) return NO_STREAM;
    const ttl = Number(/^(\d+)s$/.exec((req.body as { ttl?: string } | undefined)?.ttl ?? "3s")?.[1] ?? 3) * 1000;
    const until = () => new Date(Date.now() + ttl).toISOString();
    if (req.method === "POST") return { status: 200, json: leaseJson("acquired", bot, 5, until()) };
    if (req.method === "PATCH") return renewal?.() ?? { status: 200, json: leaseJson("renewed", bot, 5, until()) };
    return { status: 200, json: leaseJson("released", bot, 5, until()) };
  });
  return stub;
}

describe("the built CLI's agent commands", () => {
  it("never read .env: an app's .env beside them names no API and no token for them", async () => {
    const here = mkdtempSync(join(kids.dir, "with-dotenv-"));
    writeFileSync(join(here, ".env"), "ISSUE_LEASES_URL=http://127.0.0.1:9\nGITHUB_TOKEN=from-dotenv\n");
    const child = spawn(process.execPath, [BUILT_CLI, "agent", "status", "octo-org/widgets#12"], {
      cwd: here,
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code).toBe(78);
    expect(stderr).toBe("issue-leases: ISSUE_LEASES_URL is not set: set it to the app's URL (e.g. https://leases.example.com), or pass --url\n");
  });
});

describe("agent run", () => {
  it("runs the command with the token in its environment, releases after, and exits with its status", async () => {
    const api = await leaseApi();
    const out = join(kids.dir, "env.txt");
    const r = await spawnCli(
      ["agent", "run", "octo-org/widgets#12", "--ttl", "60s", "--instance", "worker-3", "--", "sh", "-c", `echo "$ISSUE_LEASES_TOKEN $ISSUE_LEASES_REF $ISSUE_LEASES_ISSUE $ISSUE_LEASES_INSTANCE" > ${out}; echo to-stdout; exit 3`],
      { ISSUE_LEASES_URL: api.url },
    ).done;
    expect(r.code).toBe(3);
    expect(readFileSync(out, "utf8")).toBe("5 octo-org/widgets#12 12 worker-3\n");
    // stdout is the command's own.
    expect(r.stdout).toBe("to-stdout\n");
    expect(r.stderr).toContain("issue-leases: octo-org/widgets#12 is yours: token 5");
    expect(api.requests.filter(notEvents).map((q) => [q.method, q.query.get("instance")])).toEqual([
      ["POST", null],
      ["DELETE", "worker-3"],
    ]);
    expect(api.requests[0]!.body).toEqual({ ttl: "60s", instance: "worker-3" });
  });

  it("stops a command whose lease is lost (SIGTERM to its group) and exits 76 without releasing", async () => {
    let refuse = false;
    const api = await leaseApi(() => (refuse ? { status: 409, json: leaseJson("not_holder", alice, 6, EXPIRES) } : null));
    const marker = join(kids.dir, "term.txt");
    const command = shell(`trap 'echo stopped > ${marker}; exit 143' TERM`, LOOP);
    const run = spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "3s", "--", ...command.argv], { ISSUE_LEASES_URL: api.url });
    // It renews (every second) while the command runs; then the lease is taken away.
    await waitUntil(() => command.ready() && api.requests.filter((q) => q.method === "PATCH").length >= 1);
    refuse = true;
    const r = await run.done;
    expect(r.code).toBe(76);
    expect(readFileSync(marker, "utf8")).toBe("stopped\n");
    expect(r.stderr).toMatch(/issue-leases: lost the lease on octo-org\/widgets#12: not the holder .*\(now held by alice with token 6\); stopped sh/);
    expect(api.requests.map((q) => q.method)).not.toContain("DELETE");
  });

  it("kills a command that ignores SIGTERM once the grace period is over", async () => {
    const command = shell("trap '' TERM", LOOP);
    // Refused once the command ignores SIGTERM: only SIGKILL ends it then.
    const api = await leaseApi(() => (command.ready() ? { status: 409, json: leaseJson("not_holder", null, null, null) } : null));
    const r = await spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "3s", "--grace", "1s", "--json", "--", ...command.argv], {
      ISSUE_LEASES_URL: api.url,
    }).done;
    expect(r.code).toBe(76);
    const events = r.stderr.trim().split("\n").map((l) => JSON.parse(l) as { event: string; reason?: string });
    expect(events.map((e) => e.event)).toEqual(["acquired", "lost"]);
    expect(events[1]).toMatchObject({ reason: "not_holder", issue: "octo-org/widgets#12", token: 5 });
  });

  it("exits 75 without running the command when someone else holds the issue", async () => {
    stub = await startApiStub(() => ({ status: 409, json: leaseJson("held", alice, 4, EXPIRES) }));
    const marker = join(kids.dir, "never.txt");
    const r = await spawnCli(["agent", "run", "octo-org/widgets#12", "--", "sh", "-c", `touch ${marker}`], { ISSUE_LEASES_URL: stub.url }).done;
    expect(r.code).toBe(75);
    expect(r.stderr).toBe(`issue-leases: octo-org/widgets#12 is held by alice with token 4, until ${EXPIRES}\n`);
    expect(() => readFileSync(marker)).toThrow();
    expect(stub.requests).toHaveLength(1);
  });

  it("exits 127 for a command that does not exist, and still releases", async () => {
    const api = await leaseApi();
    const r = await spawnCli(["agent", "run", "octo-org/widgets#12", "--", "./no-such-agent.sh"], { ISSUE_LEASES_URL: api.url }).done;
    expect(r.code).toBe(127);
    expect(r.stderr).toContain("issue-leases: cannot run ./no-such-agent.sh: not found");
    expect(api.requests.filter(notEvents).map((q) => q.method)).toEqual(["POST", "DELETE"]);
  });

  it("passes SIGTERM on to the command, releases once it has exited, and exits with its status", async () => {
    const api = await leaseApi();
    const command = shell("trap 'exit 42' TERM", LOOP);
    const run = spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "60s", "--", ...command.argv], { ISSUE_LEASES_URL: api.url });
    await waitUntil(command.ready);
    run.process.kill("SIGTERM");
    const r = await run.done;
    expect(r.code).toBe(42);
    expect(r.stderr).toContain("issue-leases: sh exited with status 42; releasing octo-org/widgets#12");
    expect(api.requests.filter(notEvents).map((q) => q.method)).toEqual(["POST", "DELETE"]);
  });
});
