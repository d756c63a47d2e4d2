/**
 * `issue-leases mcp` as an agent host runs it: the built CLI over stdio,
 * spoken to by the official SDK's `Client`, against the real server and the
 * fake GitHub (mcp-world.ts). Every tool, the session's renewals and its
 * release at the end, a maintainer's release reaching the session at once,
 * the refusals, and standard output carrying the protocol only.
 */
import { spawn } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { LeaseClient } from "@issue-leases/client";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { maintainer } from "../support/payloads.js";
import { ensureBuilt, freePort, waitFor } from "../support/server-process.js";
import { FULL, replies } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { AGENT, AGENT_TOKEN, BIN, call, OTHER, OTHER_TOKEN, startWorld, stdioClient, stdioEnv, text } from "./mcp-world.js";

beforeAll(() => ensureBuilt());

const TOOLS = ["claim_issue", "claim_next_issue", "lease_status", "my_leases", "release_lease", "renew_lease", "verify_lease_token"];

describe.concurrent("issue-leases mcp over stdio", () => {
  it("lists the seven tools with input and output schemas and honest annotations, and the work_on_next_issue prompt", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const mcp = await stdioClient(stdioEnv(server));
      try {
        const { tools } = await mcp.client.listTools();
        expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
        for (const tool of tools) {
          expect(tool.description!.length, tool.name).toBeGreaterThan(60);
          expect(tool.inputSchema.type).toBe("object");
          expect(tool.outputSchema?.type, tool.name).toBe("object");
        }
        const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations]));
        for (const read of ["lease_status", "my_leases", "verify_lease_token"]) expect(byName[read]).toMatchObject({ readOnlyHint: true });
        expect(byName.release_lease).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
        expect(byName.claim_next_issue).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
        expect(byName.claim_issue).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
        expect(tools.find((t) => t.name === "claim_issue")!.inputSchema.required).toEqual(["issue"]);

        const { prompts } = await mcp.client.listPrompts();
        expect(prompts.map((p) => p.name)).toEqual(["work_on_next_issue"]);
        const prompt = await mcp.client.getPrompt({ name: "work_on_next_issue", arguments: { repo: FULL, labels: "bug" } });
        const said = (prompt.messages[0]!.content as { text: string }).text;
        expect(said).toContain(`claim_next_issue with { repo: "${FULL}", labels: ["bug"] }`);
        expect(said).toContain("Lease-Token");
        expect(said).toContain("release_lease");
      } finally {
        await mcp.close();
      }
    }));

  it("claims, renews, shows, lists, verifies and releases through the tools, each answer as text and structured content", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const mcp = await stdioClient(stdioEnv(server), ["--instance", "worker-7"]);
      try {
        const claimed = await call(mcp.client, "claim_issue", { issue: `${FULL}#31`, ttl: "1h", note: "taking the parser bug" });
        expect(claimed.isError, text(claimed)).toBeFalsy();
        expect(claimed.structuredContent).toMatchObject({
          outcome: "acquired",
          repo: FULL,
          issue: 31,
          holder: { login: AGENT.login, id: AGENT.id, instance: "worker-7" },
          token: 1,
          trailer: "Lease-Token: 1 #31",
          renewed_by_session: true,
        });
        expect(claimed.structuredContent!.title).toEqual(expect.any(String));
        expect(claimed.structuredContent!.url).toMatch(/\/issues\/31$/);
        expect(text(claimed)).toContain("Lease-Token: 1 #31");

        const next = await call(mcp.client, "claim_next_issue", { repo: FULL, labels: ["bug"], ttl: "1h" });
        expect(next.isError, text(next)).toBeFalsy();
        expect(next.structuredContent).toMatchObject({ outcome: "acquired", issue: 2, title: "Issue number 2", token: 1, trailer: "Lease-Token: 1 #2" });

        const renewed = await call(mcp.client, "renew_lease", { issue: `${FULL}#31`, ttl: "2h" });
        expect(renewed.structuredContent).toMatchObject({ outcome: "renewed", token: 1 });
        const status = await call(mcp.client, "lease_status", { issue: `${FULL}#31` });
        expect(status.structuredContent).toMatchObject({ outcome: "status", holder: { login: AGENT.login, instance: "worker-7" }, token: 1, queue: [] });
        const mine = await call(mcp.client, "my_leases");
        expect((mine.structuredContent!.leases as Array<{ issue: number; this_session: boolean }>).map((l) => [l.issue, l.this_session]).sort()).toEqual([
          [2, true],
          [31, true],
        ]);
        const good = await call(mcp.client, "verify_lease_token", { issue: `${FULL}#31`, token: 1 });
        expect(good.structuredContent).toMatchObject({ valid: true });
        const stale = await call(mcp.client, "verify_lease_token", { issue: `${FULL}#31`, token: 9 });
        expect(stale.isError).toBeFalsy();
        expect(stale.structuredContent).toMatchObject({ valid: false, lease: { token: 1 } });

        const released = await call(mcp.client, "release_lease", { issue: `${FULL}#31`, note: "done, see the pull request" });
        expect(released.structuredContent).toMatchObject({ outcome: "released", token: 1 });
        const free = await call(mcp.client, "lease_status", { issue: `${FULL}#31` });
        expect(free.structuredContent).toMatchObject({ holder: null, token: null });
        await live.settled(server);
        // The notes are shown in the app's replies on GitHub, as code (no mention, no markdown).
        const posted = replies(live.fake, 31);
        expect(posted.map((r) => r.outcome)).toEqual(["acquired", "released"]);
        expect(posted[0]!.body).toContain("Note: `taking the parser bug`");
        expect(posted[1]!.body).toContain("Note: `done, see the pull request`");
      } finally {
        await mcp.close();
      }
    }));

  it("releases the session's leases when it ends cleanly, and keeps them with --keep-leases", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const direct = new LeaseClient({ baseUrl: server.url, token: AGENT_TOKEN });
      const ending = await stdioClient(stdioEnv(server));
      expect((await call(ending.client, "claim_issue", { issue: `${FULL}#40` })).structuredContent).toMatchObject({ token: 1 });
      expect((await call(ending.client, "claim_next_issue", { repo: FULL })).structuredContent).toMatchObject({ issue: 1, token: 1 });
      await ending.close();
      await waitFor("the session's leases released", async () => (await direct.status(`${FULL}#40`)).holder === null && (await direct.status(`${FULL}#1`)).holder === null);

      const keeping = await stdioClient(stdioEnv(server), ["--keep-leases"]);
      expect((await call(keeping.client, "claim_issue", { issue: `${FULL}#41` })).isError).toBeFalsy();
      await keeping.close();
      await waitFor("the server process gone", async () => keeping.stderr().includes("kept until they expire"));
      expect((await direct.status(`${FULL}#41`)).holder).toMatchObject({ login: AGENT.login });
    }));

  it("tells the session within a second when a maintainer releases its lease: a warning, a resource update, and the next answer first", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const mcp = await stdioClient(stdioEnv(server));
      try {
        const warnings: Array<{ at: number; data: unknown }> = [];
        const updated: Array<{ at: number; uri: string }> = [];
        mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void warnings.push({ at: Date.now(), data: n.params.data }));
        mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push({ at: Date.now(), uri: n.params.uri }));
        const claimed = await call(mcp.client, "claim_issue", { issue: `${FULL}#5`, ttl: "1h" });
        expect(claimed.isError, text(claimed)).toBeFalsy();
        const { resources } = await mcp.client.listResources();
        expect(resources.map((r) => r.uri)).toEqual([`lease://${FULL}/issues/5`]);
        // The session's event stream is open before the maintainer acts (it opens with the first lease).
        await waitFor("the session's event stream", async () => mcp.stderr().includes("watching the lease events"));

        const sent = Date.now();
        await live.comment(server, `/release @${AGENT.login}`, maintainer, 5);
        await waitFor("the warning and the resource update", async () => warnings.length > 0 && updated.length > 0, 10_000);
        expect(String(warnings[0]!.data)).toMatch(/LEASE LOST: lost the lease on .*#5: .*released by maint, a maintainer/);
        expect(updated[0]!.uri).toBe(`lease://${FULL}/issues/5`);
        expect(warnings[0]!.at - sent).toBeLessThan(1_000);
        expect(updated[0]!.at - sent).toBeLessThan(1_000);

        const after = await call(mcp.client, "my_leases");
        expect(after.content[0]).toMatchObject({ type: "text", text: expect.stringMatching(/^LEASE LOST: .*#5/) });
        expect(after.structuredContent).toMatchObject({ lost_leases: [{ repo: FULL, issue: 5, token: 1, reason: "not_holder" }] });
        // Told once.
        expect((await call(mcp.client, "my_leases")).structuredContent!.lost_leases).toBeUndefined();
      } finally {
        await mcp.close();
      }
    }));

  it("answers refusals as tool results with isError and a sentence to act on, changing nothing", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const direct = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      await direct.claim(`${FULL}#7`, { ttl: "1h" });
      const mcp = await stdioClient(stdioEnv(server));
      const wrong = await stdioClient({ ISSUE_LEASES_URL: server.url, GITHUB_TOKEN: "ghp_not_a_token_github_knows" });
      // A token that sees another repository only: this one is not found, as one that does not exist.
      live.fake.addToken("ghp_mcp_blind_token", { login: "blind-agent", id: 6003, repos: ["octo/other"] });
      const blind = await stdioClient({ ISSUE_LEASES_URL: server.url, GITHUB_TOKEN: "ghp_mcp_blind_token" });
      try {
        const badIssue = await call(mcp.client, "claim_issue", { issue: `${FULL}#0` });
        expect(badIssue.isError).toBe(true);
        expect(text(badIssue)).toMatch(/must be an issue as owner\/repo#N .* at issue/);
        const badTtl = await call(mcp.client, "claim_issue", { issue: `${FULL}#8`, ttl: "forever" });
        expect(text(badTtl)).toMatch(/must be a duration such as 30m, 2h or 1d at ttl/);
        const both = await call(mcp.client, "claim_next_issue", { repo: FULL, org: "Codertocat" });
        expect(both).toMatchObject({ isError: true, content: [{ type: "text", text: "Bad input: give exactly one of repo (owner/repo) or org (an owner's login)." }] });
        const unknown = await call(mcp.client, "take_everything", {});
        expect(unknown.isError).toBe(true);
        expect(text(unknown)).toBe("MCP error -32602: Tool take_everything not found");

        const held = await call(mcp.client, "claim_issue", { issue: `${FULL}#7` });
        expect(held.isError).toBe(true);
        expect(text(held)).toMatch(
          new RegExp(`^${FULL}#7 is held by ${OTHER.login} with token 1, until \\S+Z\\. 0 are waiting in line; with wait: true you would be 1st\\. Call claim_issue with wait: true`),
        );
        const notMine = await call(mcp.client, "release_lease", { issue: `${FULL}#7` });
        expect(text(notMine)).toMatch(/^You do not hold .*#7: it is held by other-agent/);
        const nothing = await call(mcp.client, "claim_next_issue", { repo: FULL, labels: ["no-such-label"] });
        expect(nothing).toMatchObject({ isError: true, content: [{ text: "No open issue matches these filters. Try other filters (or none), or another repository." }] });
        const missing = await call(blind.client, "lease_status", { issue: `${FULL}#3` });
        expect(text(missing)).toMatch(/^Not found: the repository or issue does not exist, your GitHub token cannot see it/);

        const refused = await call(wrong.client, "claim_issue", { issue: `${FULL}#9` });
        expect(refused).toMatchObject({ isError: true });
        expect(text(refused)).toBe("GitHub does not accept the token this server was given: give it a valid GitHub token (GITHUB_TOKEN or GH_TOKEN).");
        // Nothing was changed by any of them.
        expect((await direct.status(`${FULL}#7`)).holder).toMatchObject({ login: OTHER.login });
        for (const n of [8, 9]) expect((await direct.status(`${FULL}#${n}`)).holder).toBeNull();
        expect((await direct.status(`${FULL}#7`)).queue).toEqual([]);
      } finally {
        await mcp.close();
        await wrong.close();
        await blind.close();
      }
    }));

  it("says what ISSUE_LEASES_URL is and that nothing answered when the service is unreachable", async () => {
    const port = await freePort();
    const mcp = await stdioClient({ ISSUE_LEASES_URL: `http://127.0.0.1:${port}`, GITHUB_TOKEN: AGENT_TOKEN });
    try {
      const result = await call(mcp.client, "claim_next_issue", { repo: FULL });
      expect(result.isError).toBe(true);
      expect(text(result)).toBe(
        `Nothing answered at ISSUE_LEASES_URL http://127.0.0.1:${port} (ECONNREFUSED, after 3 attempts): is the issue-leases app running there, and is the URL right? Nothing was changed.`,
      );
    } finally {
      await mcp.close();
    }
  });

  it("writes nothing but JSON-RPC on standard output, and the token nowhere", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const child = spawn(process.execPath, [BIN, "mcp"], { env: { PATH: process.env.PATH ?? "", ...stdioEnv(server) }, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
      child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
      const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      const answered = (id: number) => waitFor(`the answer to request ${id}`, async () => stdout.includes(`"id":${id}`));
      send({ id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } });
      await answered(1);
      send({ method: "notifications/initialized" });
      send({ id: 2, method: "tools/list" });
      send({ id: 3, method: "tools/call", params: { name: "claim_issue", arguments: { issue: `${FULL}#12` } } });
      send({ id: 4, method: "tools/call", params: { name: "claim_issue", arguments: { issue: "not an issue" } } });
      send({ id: 5, method: "no/such/method" });
      await answered(5);
      await answered(3);
      child.stdin.end();
      expect(await exited).toBe(0);

      const lines = stdout.split("\n").filter((l) => l !== "");
      expect(lines.length).toBeGreaterThanOrEqual(5);
      for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
      const byId = new Map(lines.map((l) => JSON.parse(l) as { id?: number; result?: any; error?: any }).map((m) => [m.id, m]));
      expect(byId.get(3)!.result.structuredContent).toMatchObject({ outcome: "acquired", issue: 12 });
      expect(byId.get(4)!.result.isError).toBe(true);
      expect(byId.get(5)!.error).toMatchObject({ code: -32601 });
      // The session ended with standard input: its lease was released.
      expect(stderr).toContain("standard input closed: ending the session");
      expect((await new LeaseClient({ baseUrl: server.url, token: AGENT_TOKEN }).status(`${FULL}#12`)).holder).toBeNull();
      for (const output of [stdout, stderr, server.stdout(), server.stderr()]) expect(output).not.toContain(AGENT_TOKEN);
    }));

  it("twenty agents sharing one token, claiming next at once, get twenty distinct issues with token 1 as twenty holders", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const agents = await Promise.all(Array.from({ length: 20 }, () => stdioClient(stdioEnv(server), [], "claude-code")));
      try {
        const results = await Promise.all(agents.map((a) => call(a.client, "claim_next_issue", { repo: FULL, ttl: "1h" })));
        for (const r of results) expect(r.isError, text(r)).toBeFalsy();
        const got = results.map((r) => r.structuredContent as { issue: number; token: number; holder: { login: string; instance: string } });
        expect(new Set(got.map((g) => g.issue)).size).toBe(20);
        expect(got.every((g) => g.token === 1 && g.holder.login === AGENT.login)).toBe(true);
        const instances = new Set(got.map((g) => g.holder.instance));
        expect(instances.size).toBe(20);
        for (const i of instances) expect(i).toMatch(/^claude-code-[0-9a-f]{6}$/);
      } finally {
        await Promise.all(agents.map((a) => a.close()));
      }
    }), 120_000);

  it("renews each lease at a third of its TTL while the session lives, so it outlasts its first expiry", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const mcp = await stdioClient(stdioEnv(server));
      try {
        const claimed = await call(mcp.client, "claim_issue", { issue: `${FULL}#20`, ttl: "6s" });
        const firstExpiry = Date.parse(claimed.structuredContent!.expires_at as string);
        // Past the first expiry, with room for a renewal or two to come late on a busy machine.
        await new Promise((r) => setTimeout(r, Math.max(0, firstExpiry - Date.now()) + 1_500));
        const status = await call(mcp.client, "lease_status", { issue: `${FULL}#20` });
        expect(status.structuredContent).toMatchObject({ holder: { login: AGENT.login }, token: 1 });
        expect(Date.parse(status.structuredContent!.expires_at as string)).toBeGreaterThan(firstExpiry);
        expect(text(status)).toContain("This session holds it and renews it.");
      } finally {
        await mcp.close();
      }
    }));
});
