/**
 * An event is written in its change's transaction, so a kill -9 between the
 * change and its delivery to GitHub neither loses nor repeats it: the real
 * server, killed with SIGKILL as GitHub takes the first write of a claim's
 * effects, then restarted on the same database (and the delivery sent
 * again, as GitHub redelivers): exactly one lease.acquired, on SQLite (read
 * through the CLI's `events --json`) and on PostgreSQL (read from the table).
 */
import { describe, expect, it } from "vitest";
import type { LeaseEvent } from "../../src/ledger/events/event-types.js";
import { ROOT, runBuiltCli } from "../support/cli-process.js";
import { type GitHubProxy, startGitHubProxy } from "../support/github-proxy.js";
import { alice } from "../support/payloads.js";
import { skipPostgres } from "../support/pg-schema.js";
import { type ServerProcess, waitFor } from "../support/server-process.js";
import { isWriteTo, labels, leaseLabels, replies } from "./issue-view.js";
import { withLiveApp } from "./live-app.js";
import { comment, withCluster } from "./pg-cluster.js";

/**
 * Kills `server` with SIGKILL as GitHub takes its first write to issue 1
 * (on GITHUB_WRITES=graphql, its first mutation document), before the app
 * hears back.
 */
function killOnFirstWrite(proxy: GitHubProxy, server: ServerProcess): void {
  proxy.onResponse = async (r) => {
    if (isWriteTo(r, 1)) {
      proxy.onResponse = null;
      server.kill("SIGKILL");
      await server.exited;
      return "drop";
    }
  };
}

describe.concurrent("Lease events through kill -9 and a restart", () => {
  it("SQLite: killed between the claim and its reply, restarted, the claim redelivered: one lease.acquired", () =>
    withLiveApp(async (live) => {
      const proxy = await startGitHubProxy(live.fake);
      try {
        const first = await live.start({}, proxy);
        killOnFirstWrite(proxy, first);
        await live.comment(first, "/claim", alice, 1, "claim-1");
        expect((await first.exited).signal).toBe("SIGKILL");
        expect(replies(live.fake, 1)).toHaveLength(0);

        const second = await live.start();
        await live.comment(second, "/claim", alice, 1, "claim-1");
        await waitFor("the claim's reply", () => replies(live.fake, 1).length === 1, 60_000);
        await live.settled(second);
        live.expectOneReplyEach(1, 1);
        expect(labels(live.fake, 1)).toEqual(leaseLabels("alice", 1));

        const r = await runBuiltCli(["events", "--json"], ROOT, { DATABASE_URL: live.dbFile });
        expect(r.code, r.stderr).toBe(0);
        const events = r.stdout.trimEnd().split("\n").map((l) => JSON.parse(l) as LeaseEvent);
        expect(events.map((e) => [e.type, e.issue, e.holder.login, e.token, e.seq, e.cause])).toEqual([["lease.acquired", 1, "alice", 1, 1, "command"]]);
      } finally {
        await proxy.close();
      }
    }), 120_000);

  it.skipIf(skipPostgres)("PostgreSQL: killed between the claim and its reply, restarted, the claim redelivered: one lease.acquired", () =>
    withCluster(async (c) => {
      const proxy = await startGitHubProxy(c.fake);
      try {
        const first = await c.start({}, { github: proxy });
        killOnFirstWrite(proxy, first);
        const delivery = comment("/claim", alice, 1);
        expect(await first.send("issue_comment", delivery, { id: "claim-1" })).toBe(200);
        expect((await first.exited).signal).toBe("SIGKILL");
        expect(replies(c.fake, 1)).toHaveLength(0);

        const second = await c.start();
        expect(await second.send("issue_comment", delivery, { id: "claim-1" })).toBe(200);
        await waitFor("the claim's reply", () => replies(c.fake, 1).length === 1, 60_000, 200);
        await c.settled(second);
        expect(replies(c.fake, 1)).toHaveLength(1);

        const rows = await c.query<{ type: string; issue: number; holder_login: string; token: number; seq: number; cause: string }>(
          "SELECT type, issue::int AS issue, holder_login, token::int AS token, seq::int AS seq, cause FROM $S.events ORDER BY pos",
        );
        expect(rows.map((e) => [e.type, e.issue, e.holder_login, e.token, e.seq, e.cause])).toEqual([["lease.acquired", 1, "alice", 1, 1, "command"]]);
      } finally {
        await proxy.close();
      }
    }), 120_000);
});
