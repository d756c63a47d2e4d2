/**
 * The client and `issue-leases agent` end to end: the real server (built,
 * in a child process) against the fake GitHub, which answers the GraphQL
 * `viewer` query for the bot's token; maintainers' comments delivered as
 * signed webhooks; the CLI as the built binary. Short TTLs (the repository
 * allows 1 s) make renewals come every second or two; nothing here asserts
 * how fast anything is, only what happens and in which order. A lost lease
 * is noticed here by the renewals (`watch: false`, `--no-watch`); the event
 * stream's watch is test/e2e/agent-events.test.ts's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LeaseAnswer, LeaseClient, LeaseHeldError, LeaseLostError } from "@issue-leases/client";
import { maintainer, REPO } from "../support/payloads.js";
import { BUILT_CLI } from "../support/cli-process.js";
import { ensureBuilt, type ServerProcess, waitFor } from "../support/server-process.js";
import { commentPosts, FULL, labels, leaseLabels, replies } from "./issue-view.js";
import { history } from "./ledger-file.js";
import { type LiveApp, withLiveApp } from "./live-app.js";

const BOT_TOKEN = "ghp_deploy_bot_e2e";
const BOT = { login: "deploy-bot", id: 5001 };
const OTHER_TOKEN = "ghp_other_bot_e2e";
const OTHER = { login: "other-bot", id: 5002 };

let dir: string;
beforeAll(async () => {
  await ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), "issue-leases-agent-e2e-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The bot's token known to GitHub, a maintainer, a repository that allows 1-second leases; then the server. */
async function start(live: LiveApp): Promise<ServerProcess> {
  // The repository's id as the webhook payloads carry it: the ledger keys an issue by it, whichever way a command came.
  live.fake.addRepo(FULL, { id: REPO.id });
  live.fake.addToken(BOT_TOKEN, BOT);
  live.fake.addToken(OTHER_TOKEN, OTHER);
  live.fake.setPermission(FULL, maintainer.login, "write");
  live.fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\n");
  return live.start();
}

/** A fetch that notes each answer's method and status, for tests that wait for renewals. */
function noting(): { fetch: typeof fetch; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      seen.push(`${init?.method ?? "GET"} ${res.status}`);
      return res;
    },
  };
}

/** GitHub writes: everything but reads and GraphQL queries (which are POSTs). */
function writes(live: LiveApp, from: number) {
  return live.fake.requests.slice(from).filter((r) => r.method !== "GET" && !r.path.endsWith("/graphql"));
}

interface Cli {
  process: ChildProcess;
  stderr(): string;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function cli(args: string[], server: ServerProcess, token = BOT_TOKEN): Cli {
  const child = spawn(process.execPath, [BUILT_CLI, "agent", ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", ISSUE_LEASES_URL: server.url, GITHUB_TOKEN: token },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const closed = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => resolve({ code, stdout, stderr })),
  );
  // Bounded, so that a failing test still reaches its clean-up.
  const done = waitFor(`issue-leases agent ${args[0]} to exit`, () => Promise.race([closed, new Promise<null>((r) => setTimeout(() => r(null), 100))]), 60_000);
  return { process: child, stderr: () => stderr, done };
}

/**
 * `sh -c "TRAP; echo $$ > PIDFILE; BODY"`: the pid file appears once the trap
 * is set (`ready`), and lets a failed test still stop the command (it runs in
 * a session of its own).
 */
function shell(trap: string, body: string): { argv: string[]; ready(): boolean; kill(): void } {
  const file = join(dir, `pid-${Math.random().toString(36).slice(2)}`);
  const pid = () => {
    try {
      return Number(readFileSync(file, "utf8").trim()) || 0;
    } catch {
      return 0;
    }
  };
  return {
    argv: ["sh", "-c", `${trap}; echo $$ > ${file}; ${body}`],
    ready: () => pid() > 0,
    kill() {
      try {
        if (pid() > 0) process.kill(-pid(), "SIGKILL");
      } catch {
        // Gone, as it should be.
      }
    },
  };
}

describe.concurrent("the client against the real server", () => {
  it("withLease aborts its signal when a maintainer force-releases, and does not release what it no longer holds", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const { fetch, seen } = noting();
      const client = new LeaseClient({ baseUrl: server.url, token: BOT_TOKEN, fetch });
      const error = await client
        // The renewals alone (the event stream's watch is test/e2e/agent-events.test.ts's).
        .withLease(`${FULL}#1`, { ttl: "6s", instance: "worker-1", watch: false }, async (lease, signal) => {
          expect(lease).toMatchObject({ outcome: "acquired", token: 1, holder: { ...BOT, instance: "worker-1" } });
          // Renewing (every 2 s) while it works; the claim is on GitHub.
          await waitFor("a renewal", () => seen.includes("PATCH 200"));
          await waitFor("the claim's reply", () => replies(live.fake, 1).length === 1);
          await live.comment(server, "/release @deploy-bot", maintainer);
          await waitFor("the signal aborted", () => signal.aborted);
          return "finished without the lease";
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LeaseLostError);
      expect(error).toMatchObject({ reason: "not_holder", token: 1 });
      expect(seen.at(-1)).toBe("PATCH 409");
      // It released nothing: the lease was not its own any more.
      expect(seen.filter((s) => s.startsWith("DELETE"))).toEqual([]);

      await live.settled(server);
      const r = replies(live.fake, 1);
      expect(r.map((x) => [x.op, x.outcome, x.holder])).toEqual([
        ["claim", "acquired", "deploy-bot"],
        ["release", "released", "deploy-bot"],
      ]);
      expect(r[0]!.body).toContain("through the issue-leases API");
      expect(labels(live.fake, 1)).toEqual([]);
    }), 120_000);

  it("mine lists the caller's own leases (GET /api/v1/leases?holder=@me), and nobody else's", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const bot = new LeaseClient({ baseUrl: server.url, token: BOT_TOKEN });
      const other = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      await bot.claim(`${FULL}#1`, { ttl: "1h", instance: "worker-1" });
      await bot.claim(`${FULL}#2`, { ttl: "2h" });
      await other.claim(`${FULL}#3`, { ttl: "1h" });
      // A webhook from the repository shows it is public (the board counts a repository never seen as private).
      await live.comment(server, "Thanks, both of you.", maintainer);
      await waitFor("the repository remembered as public", async () => (await bot.mine()).length === 2);
      const mine = await bot.mine();
      expect(mine.map((l) => [l.issue, l.holder?.login, l.holder?.instance ?? null])).toEqual([
        [1, BOT.login, "worker-1"],
        [2, BOT.login, null],
      ]);
      expect((await other.mine()).map((l) => l.issue)).toEqual([3]);
      await bot.release(`${FULL}#2`);
      expect((await bot.mine()).map((l) => l.issue)).toEqual([1]);
    }), 120_000);

  it("a claim retried after its answer was lost is one claim; its key replays the first answer and changes nothing", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      let dropped = 0;
      const lossy: typeof fetch = async (input, init) => {
        const res = await fetch(input, init);
        // The server claimed; the answer is lost on the way back, as a connection reset would lose it.
        if (init?.method === "POST" && dropped === 0) {
          dropped++;
          await res.arrayBuffer();
          throw new TypeError("fetch failed", { cause: Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }) });
        }
        return res;
      };
      const client = new LeaseClient({ baseUrl: server.url, token: BOT_TOKEN, fetch: lossy, retry: { minDelayMs: 10 } });
      const key = "deploy-bot-job-7-claim";
      const first = await client.claim(`${FULL}#2`, { ttl: "1h", idempotencyKey: key });
      expect(dropped).toBe(1);
      expect(first).toMatchObject({ outcome: "acquired", token: 1, holder: BOT });
      expect(history(live.dbFile).filter((h) => h.issue === 2 && h.op === "acquire")).toHaveLength(1);

      // The same key from another account is another request: held.
      const other = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      const held = await other.claim(`${FULL}#2`, { ttl: "1h", idempotencyKey: key }).catch((e: unknown) => e);
      expect(held).toBeInstanceOf(LeaseHeldError);
      expect(held).toMatchObject({ holder: { login: "deploy-bot" }, token: 1 });

      await client.release(`${FULL}#2`);
      // Long after, the first key is answered as the first time, and the issue stays free.
      const replayed = await client.claim(`${FULL}#2`, { ttl: "1h", idempotencyKey: key });
      expect(replayed).toEqual(first);
      expect((await client.status(`${FULL}#2`)).holder).toBeNull();

      await live.settled(server);
      live.expectOneReplyEach(2, 2);
      expect(replies(live.fake, 2).map((x) => x.outcome)).toEqual(["acquired", "released"]);
    }), 120_000);

  it("heartbeat renewals post nothing on GitHub", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const { fetch, seen } = noting();
      const client = new LeaseClient({ baseUrl: server.url, token: BOT_TOKEN, fetch });
      let mark = 0;
      await client.withLease(`${FULL}#3`, { ttl: "3s" }, async () => {
        // The claim's reply and labels, then nothing more while it renews every second.
        await waitFor("the claim on GitHub", () => replies(live.fake, 3).length === 1 && labels(live.fake, 3).length === 3);
        await live.settled(server);
        mark = live.fake.requests.length;
        const before = seen.filter((s) => s === "PATCH 200").length;
        await waitFor("four more renewals", () => seen.filter((s) => s === "PATCH 200").length >= before + 4);
        await live.settled(server);
        expect(writes(live, mark)).toEqual([]);
        expect(labels(live.fake, 3)).toEqual(leaseLabels("deploy-bot", 1));
      });
      await live.settled(server);
      expect(replies(live.fake, 3).map((x) => x.outcome)).toEqual(["acquired", "released"]);
      expect(commentPosts(live.fake).get(3)).toBe(2);
      expect(history(live.dbFile).filter((h) => h.issue === 3 && h.op === "renew").length).toBeGreaterThanOrEqual(4);
    }), 120_000);
});

describe.concurrent("issue-leases agent against the real server", () => {
  it("run stops a command whose lease was lost and exits 76; verify says 0 before and 76 after", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const marker = join(dir, `term-${Date.now()}-${Math.random().toString(36).slice(2)}`);
      const command = shell(`trap 'echo stopped > ${marker}; exit 143' TERM`, "while :; do sleep 0.1; done");
      // The renewals alone (the event stream's watch is test/e2e/agent-events.test.ts's).
      const run = cli(["run", `${FULL}#4`, "--ttl", "6s", "--grace", "5s", "--no-watch", "--", ...command.argv], server);
      try {
        await waitFor("the claim's reply, and the command ready", () => replies(live.fake, 4).length === 1 && command.ready());
        expect(run.stderr()).toContain(`issue-leases: ${FULL}#4 is yours: token 1`);

        const valid = await cli(["verify", `${FULL}#4`, "--token", "1"], server).done;
        expect(valid).toMatchObject({ code: 0, stdout: `valid: token 1 is the live lease on ${FULL}#4, and it is yours\n` });

        await live.comment(server, "/release @deploy-bot", maintainer, 4);
        const r = await run.done;
        expect(r.code).toBe(76);
        expect(readFileSync(marker, "utf8")).toBe("stopped\n");
        expect(r.stderr).toMatch(new RegExp(`issue-leases: lost the lease on ${FULL}#4: not the holder .*; stopped sh\\n$`));

        const stale = await cli(["verify", `${FULL}#4`, "--token", "1"], server).done;
        expect(stale.code).toBe(76);
        expect(stale.stderr).toBe(`issue-leases: not valid: token 1 is not your live lease on ${FULL}#4: it is free\n`);
      } finally {
        command.kill();
        run.process.kill("SIGKILL");
      }
      await live.settled(server);
      expect(replies(live.fake, 4).map((x) => [x.op, x.outcome])).toEqual([
        ["claim", "acquired"],
        ["release", "released"],
      ]);
    }), 120_000);

  it("run passes the command's status through and releases; a claim meanwhile exits 75 naming the holder", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const gate = join(dir, `gate-${Date.now()}-${Math.random().toString(36).slice(2)}`);
      // The command checks what it was given, waits for the test, and exits 7.
      const command = shell(
        `test "$ISSUE_LEASES_TOKEN" = 1 && test "$ISSUE_LEASES_REF" = "${FULL}#5" && test "$ISSUE_LEASES_INSTANCE" = w1 || exit 99`,
        `while [ ! -e ${gate} ]; do sleep 0.1; done; exit 7`,
      );
      const run = cli(["run", `${FULL}#5`, "--ttl", "1m", "--instance", "w1", "--", ...command.argv], server);
      try {
        await waitFor("the claim", () => run.stderr().includes("is yours"));

        const claim = await cli(["claim", `${FULL}#5`, "--json"], server, OTHER_TOKEN).done;
        expect(claim.code).toBe(75);
        expect(JSON.parse(claim.stdout) as LeaseAnswer).toMatchObject({ outcome: "held", token: 1, holder: { ...BOT, instance: "w1" } });
        expect(claim.stderr).toMatch(/is held by deploy-bot \(instance w1\) with token 1, until /);

        writeFileSync(gate, "");
        const r = await run.done;
        expect(r.code).toBe(7);
        expect(r.stderr).toContain(`issue-leases: sh exited with status 7; releasing ${FULL}#5`);
      } finally {
        command.kill();
        run.process.kill("SIGKILL");
      }
      const status = await cli(["status", `${FULL}#5`, "--json"], server).done;
      expect(status.code).toBe(0);
      const body = JSON.parse(status.stdout) as { holder: unknown; tenures: Array<{ token: number; ended: string }> };
      expect(body.holder).toBeNull();
      expect(body.tenures.map((t) => t.token)).toEqual([1]);

      await live.settled(server);
      const r = replies(live.fake, 5);
      expect(r.map((x) => [x.op, x.outcome])).toEqual([
        ["claim", "acquired"],
        ["release", "released"],
      ]);
      expect(r[0]!.body).toContain("instance");
      expect(labels(live.fake, 5)).toEqual([]);
    }), 120_000);
});
