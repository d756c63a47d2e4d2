/**
 * Revocation at once, end to end: the client's `withLease` and `issue-leases
 * agent run` (the built CLI) against the real server (built, in a child
 * process) and the fake GitHub, each holding a 1-hour lease, so that its
 * renewals (every 20 minutes) could not be what notices its end. A
 * maintainer's `/release @bot`, delivered as a signed webhook, aborts
 * `withLease` within a second and stops `agent run`'s command; so does the
 * operator CLI's `force-release` from another process, which the app's
 * stream reads from the ledger at its next poll (EVENTS_POLL_MS).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LeaseClient, LeaseLostError, type WatchState } from "@issue-leases/client";
import { agentChildren, LOOP } from "../cli/agent-child.js";
import { runBuiltCli } from "../support/cli-process.js";
import { maintainer, REPO } from "../support/payloads.js";
import { type ServerProcess, waitFor } from "../support/server-process.js";
import { FULL, replies } from "./issue-view.js";
import { history } from "./ledger-file.js";
import { type LiveApp, withLiveApp } from "./live-app.js";

const BOT_TOKEN = "ghp_deploy_bot_events_e2e";
const BOT = { login: "deploy-bot", id: 5001 };

const kids = agentChildren();

/**
 * The bot's token known to GitHub, a maintainer, the repository; then the
 * server, and a comment that changes no lease: the app has seen in a webhook
 * that the repository is public (as the installation's own events show it
 * in production), so that its events may be streamed (until then they count
 * as private, and the bot's token does not list it).
 */
async function start(live: LiveApp): Promise<ServerProcess> {
  live.fake.addRepo(FULL, { id: REPO.id });
  live.fake.addToken(BOT_TOKEN, BOT);
  live.fake.setPermission(FULL, maintainer.login, "write");
  const server = await live.start();
  await live.comment(server, "Thanks, everyone.", maintainer, 99);
  return server;
}

/** A fetch that notes each answer's method, path and status. */
function noting(): { fetch: typeof fetch; seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    fetch: async (input, init) => {
      const res = await fetch(input, init);
      seen.push(`${init?.method ?? "GET"} ${new URL(String(input)).pathname} ${res.status}`);
      return res;
    },
  };
}

const renewals = (live: LiveApp, issue: number) => history(live.dbFile).filter((h) => h.issue === issue && h.op === "renew");

describe("revocation at once, over the real server", () => {
  it("withLease aborts within a second of a maintainer's /release, while its renewals (TTL 1 h) would not notice for 20 minutes", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const { fetch, seen } = noting();
      const states: WatchState[] = [];
      const client = new LeaseClient({ baseUrl: server.url, token: BOT_TOKEN, fetch });
      let releasedAt = 0;
      let abortedAt = 0;
      const error = await client
        .withLease(`${FULL}#1`, { ttl: "1h", instance: "worker-1", onWatch: (s) => states.push(s) }, async (lease, signal) => {
          expect(lease).toMatchObject({ outcome: "acquired", token: 1 });
          signal.addEventListener("abort", () => (abortedAt = Date.now()), { once: true });
          await waitFor("the stream open", () => states.some((s) => s.state === "open"));
          await waitFor("the claim's reply", () => replies(live.fake, 1).length === 1);
          await live.comment(server, "/release @deploy-bot", maintainer);
          releasedAt = Date.now();
          await waitFor("the signal aborted", () => signal.aborted);
          return "finished without the lease";
        })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LeaseLostError);
      expect(error).toMatchObject({
        reason: "not_holder",
        token: 1,
        event: { type: "lease.ended", cause: "maintainer", token: 1, holder: { ...BOT, instance: "worker-1" }, actor: { login: maintainer.login } },
      });
      expect((error as Error).message).toBe(
        `lost the lease on ${FULL}#1: the app's event stream says it was released by ${maintainer.login}, a maintainer (lease.ended)`,
      );
      // Within a second of the delivery that ended it (which the app answers once the change is made).
      expect(abortedAt - releasedAt).toBeLessThan(1000);
      expect(states.filter((s) => s.state === "down")).toEqual([]);
      // No renewal was due, the check made when the stream opened found the lease live, and nothing was released.
      expect(seen).toEqual([
        `POST /api/v1/repos/${FULL}/issues/1/lease 200`,
        "GET /api/v1/events 200",
        `POST /api/v1/repos/${FULL}/issues/1/lease/verify 200`,
      ]);
      expect(renewals(live, 1)).toEqual([]);

      await live.settled(server);
      expect(replies(live.fake, 1).map((x) => [x.op, x.outcome])).toEqual([
        ["claim", "acquired"],
        ["release", "released"],
      ]);
    }), 120_000);

  it("agent run stops its command (SIGTERM) when a maintainer releases its 1-hour lease, and exits 76", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const marker = join(kids.dir, `term-${Date.now()}`);
      const command = kids.shell(`trap 'echo stopped > ${marker}; exit 143' TERM`, LOOP);
      const run = kids.spawnCli(["agent", "run", `${FULL}#4`, "--ttl", "1h", "--grace", "5s", "--", ...command.argv], {
        ISSUE_LEASES_URL: server.url,
        GITHUB_TOKEN: BOT_TOKEN,
        ISSUE_LEASES_DEBUG: "1",
      });
      await waitFor("the claim's reply, the command ready, the stream open", () =>
        replies(live.fake, 4).length === 1 && command.ready() && run.stderr().includes(`issue-leases: debug: watching ${FULL}#4's lease events`),
      );
      await live.comment(server, "/release @deploy-bot", maintainer, 4);
      const r = await run.done;
      expect(r.code).toBe(76);
      expect(readFileSync(marker, "utf8")).toBe("stopped\n");
      expect(r.stderr).toContain(
        `issue-leases: lost the lease on ${FULL}#4: the app's event stream says it was released by ${maintainer.login}, a maintainer (lease.ended); stopped sh\n`,
      );
      expect(r.stderr).not.toContain("the event stream is down");
      expect(renewals(live, 4)).toEqual([]);
    }), 120_000);

  it("agent run stops its command when an operator force-releases from the command line (another process)", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const marker = join(kids.dir, `term-${Date.now()}`);
      const command = kids.shell(`trap 'echo stopped > ${marker}; exit 143' TERM`, LOOP);
      const run = kids.spawnCli(["agent", "run", `${FULL}#6`, "--ttl", "1h", "--json", "--", ...command.argv], {
        ISSUE_LEASES_URL: server.url,
        GITHUB_TOKEN: BOT_TOKEN,
        ISSUE_LEASES_DEBUG: "1",
      });
      await waitFor("the claim, the command ready, the stream open", () =>
        command.ready() && run.stderr().includes('"event":"acquired"') && run.stderr().includes(`{"debug":"watching ${FULL}#6's lease events"`),
      );
      const released = await runBuiltCli(["force-release", `${FULL}#6`, "--reason", "the agent is stuck"], kids.dir, { DATABASE_URL: live.dbFile });
      expect(released.code).toBe(0);
      const r = await run.done;
      expect(r.code).toBe(76);
      expect(readFileSync(marker, "utf8")).toBe("stopped\n");
      // run's lines are all JSON, the debug lines too (the command shares stderr: its shell may say "Terminated").
      const lines = r.stderr
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as { event?: string; debug?: string; reason?: string; token?: number });
      expect(lines.filter((l) => l.event !== undefined).map((l) => l.event)).toEqual(["acquired", "lost"]);
      expect(lines.find((l) => l.event === "lost")).toMatchObject({ reason: "not_holder", token: 1 });
      expect(lines.filter((l) => l.debug?.includes("is down"))).toEqual([]);
      expect(renewals(live, 6)).toEqual([]);
    }), 120_000);
});
