/**
 * `issue-leases agent run` (the built CLI, in a child process) listening to
 * the app's event stream, against a small lease API with a stream on
 * 127.0.0.1 (test/client/sse-stub.ts): an event that ends its lease stops
 * the command (SIGTERM to its group, SIGKILL after the grace) long before a
 * renewal of its 1-hour lease is due; --no-watch asks no stream; without a
 * stream it says nothing unless ISSUE_LEASES_DEBUG=1. The whole path, over
 * the real server and a maintainer's release, is in test/e2e/agent-events.test.ts.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { LEASE_PATH, leaseJson, NO_STREAM, type StubRequest } from "../client/api-stub.js";
import { leaseEvent, type StreamHandler, type StreamStub, startStreamStub } from "../client/sse-stub.js";
import { agentChildren, groupAlive, LOOP, waitUntil } from "./agent-child.js";

const bot = { login: "deploy-bot[bot]", id: 41898282, instance: null };

const kids = agentChildren();

let stub: StreamStub | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

/** A lease API holding token 5 of #12, whose `verify` finds it live; `stream` answers the event stream. */
async function api(stream: StreamHandler = () => "open"): Promise<StreamStub> {
  stub = await startStreamStub((req: StubRequest) => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    if (req.path === `${LEASE_PATH}/verify`) return { status: 200, json: { valid: true, lease: leaseJson("status", bot, 5, until) } };
    if (req.path !== LEASE_PATH) throw new Error(`unexpected ${req.method} ${req.path}`);
    if (req.method === "POST") return { status: 200, json: leaseJson("acquired", bot, 5, until) };
    if (req.method === "PATCH") return { status: 200, json: leaseJson("renewed", bot, 5, until) };
    return { status: 200, json: leaseJson("released", bot, 5, until) };
  }, stream);
  return stub;
}

const asked = (s: StreamStub) => s.requests.map((r) => `${r.method} ${r.path.replace(LEASE_PATH, "LEASE")}`);

describe("agent run watching the event stream", () => {
  it("stops the command as soon as the stream says its lease ended, long before a renewal of its 1 h lease, and exits 76", async () => {
    const s = await api();
    const marker = join(kids.dir, "stopped.txt");
    const command = kids.shell(`trap 'echo stopped > ${marker}; exit 143' TERM`, LOOP);
    const run = kids.spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "1h", "--", ...command.argv], { ISSUE_LEASES_URL: s.url });
    const conn = await s.connection();
    expect(conn.request.query.get("repo")).toBe("octo-org/widgets");
    expect(conn.request.query.get("holder")).toBe("@me");
    await waitUntil(() => command.ready() && asked(s).includes("POST LEASE/verify"));

    conn.send(leaseEvent({ id: "77", type: "lease.ended", token: 5, cause: "maintainer", actor: { login: "maintainer", id: 7 } }));
    const r = await run.done;
    expect(r.code).toBe(76);
    expect(readFileSync(marker, "utf8")).toBe("stopped\n");
    expect(r.stderr).toContain(
      "issue-leases: lost the lease on octo-org/widgets#12: the app's event stream says it was released by maintainer, a maintainer (lease.ended); stopped sh\n",
    );
    // No renewal was due (a third of an hour), and a lost lease is not released.
    expect(asked(s)).toEqual(["POST LEASE", "GET /api/v1/events", "POST LEASE/verify"]);
  });

  it("kills a command that ignores SIGTERM once the grace period is over, with --json saying why", async () => {
    const s = await api();
    const command = kids.shell("trap '' TERM", LOOP);
    const run = kids.spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "1h", "--grace", "1s", "--json", "--", ...command.argv], {
      ISSUE_LEASES_URL: s.url,
    });
    const conn = await s.connection();
    await waitUntil(command.ready);
    conn.send(leaseEvent({ id: "78", type: "lease.ended", token: 5, cause: "close", actor: { login: "alice", id: 11 } }));
    const r = await run.done;
    expect(r.code).toBe(76);
    const events = r.stderr.trim().split("\n").map((l) => JSON.parse(l) as { event: string; reason?: string; token?: number });
    expect(events.map((e) => e.event)).toEqual(["acquired", "lost"]);
    expect(events[1]).toMatchObject({ reason: "not_holder", token: 5 });
    // SIGKILL after the grace: nothing of the command's group is left (once the killed processes are reaped).
    await waitUntil(() => !groupAlive(command.pid()), 10_000);
  });

  it("--no-watch asks no stream: renewals alone", async () => {
    const s = await api();
    const r = await kids.spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "1h", "--no-watch", "--", "sh", "-c", "sleep 0.5"], {
      ISSUE_LEASES_URL: s.url,
    }).done;
    expect(r.code).toBe(0);
    expect(asked(s)).toEqual(["POST LEASE", "DELETE LEASE"]);
  });

  it("without a stream (404) the command runs to its end; only ISSUE_LEASES_DEBUG=1 says the stream is down", async () => {
    const s = await api(() => NO_STREAM);
    const command = ["sh", "-c", "sleep 1; exit 3"];
    const quiet = await kids.spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "1h", "--", ...command], { ISSUE_LEASES_URL: s.url }).done;
    expect(quiet.code).toBe(3);
    expect(quiet.stderr).not.toContain("debug");
    expect(asked(s)).toEqual(["POST LEASE", "GET /api/v1/events", "DELETE LEASE"]);

    const told = await kids.spawnCli(["agent", "run", "octo-org/widgets#12", "--ttl", "1h", "--", ...command], {
      ISSUE_LEASES_URL: s.url,
      ISSUE_LEASES_DEBUG: "1",
    }).done;
    expect(told.code).toBe(3);
    expect(told.stderr).toContain(
      "issue-leases: debug: the event stream is down (the event stream answered not found (an app without lease events?): Not Found): renewals alone notice a lost lease; trying it again in 30 s\n",
    );
  });
});
