/**
 * The lease tools on the app's own server: the official SDK's `Client` over
 * Streamable HTTP to the real server's `/mcp`, with the caller's GitHub
 * token as bearer, against the fake GitHub (mcp-world.ts). Every tool, a
 * fleet claiming at once, the session's end releasing, a maintainer's
 * release reaching the session, and the API's identity and limits.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LeaseClient } from "@issue-leases/client";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { maintainer } from "../support/payloads.js";
import { ensureBuilt, waitFor } from "../support/server-process.js";
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { AGENT, AGENT_TOKEN, call, httpClient, OTHER, OTHER_TOKEN, startWorld, text } from "./mcp-world.js";

beforeAll(() => ensureBuilt());

const INIT = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } };
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe.concurrent("the MCP server at /mcp (Streamable HTTP)", () => {
  it("serves every tool with the caller's token, each session its own holder", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const mcp = await httpClient(server, AGENT_TOKEN, "?instance=remote-1");
      try {
        const { tools } = await mcp.client.listTools();
        expect(tools).toHaveLength(7);
        const claimed = await call(mcp.client, "claim_issue", { issue: `https://github.com/${FULL}/issues/31`, ttl: "1h", note: "on it" });
        expect(claimed.isError, text(claimed)).toBeFalsy();
        expect(claimed.structuredContent).toMatchObject({
          outcome: "acquired",
          issue: 31,
          holder: { login: AGENT.login, instance: "remote-1" },
          token: 1,
          trailer: "Lease-Token: 1 #31",
          renewed_by_session: true,
        });
        const next = await call(mcp.client, "claim_next_issue", { repo: FULL, exclude_labels: ["bug"] });
        expect(next.structuredContent).toMatchObject({ outcome: "acquired", issue: 1, title: "Issue number 1", token: 1 });
        expect((await call(mcp.client, "renew_lease", { issue: `${FULL}#31` })).structuredContent).toMatchObject({ outcome: "renewed", token: 1 });
        expect((await call(mcp.client, "lease_status", { issue: `${FULL}#1` })).structuredContent).toMatchObject({ holder: { instance: "remote-1" } });
        const mine = (await call(mcp.client, "my_leases")).structuredContent!.leases as Array<{ issue: number }>;
        expect(mine.map((l) => l.issue).sort((a, b) => a - b)).toEqual([1, 31]);
        expect((await call(mcp.client, "verify_lease_token", { issue: `${FULL}#1`, token: 1 })).structuredContent).toMatchObject({ valid: true });
        expect((await call(mcp.client, "release_lease", { issue: `${FULL}#1` })).structuredContent).toMatchObject({ outcome: "released", token: 1 });
        expect((await call(mcp.client, "lease_status", { issue: `${FULL}#1` })).structuredContent).toMatchObject({ holder: null });
        for (const output of [server.stdout(), server.stderr()]) expect(output).not.toContain(AGENT_TOKEN);
      } finally {
        await mcp.close();
      }
    }));

  it("twenty sessions sharing one token, claiming next at once, get twenty distinct issues with token 1", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const agents = await Promise.all(Array.from({ length: 20 }, () => httpClient(server, AGENT_TOKEN, "", "codex")));
      try {
        const results = await Promise.all(agents.map((a) => call(a.client, "claim_next_issue", { repo: FULL })));
        for (const r of results) expect(r.isError, text(r)).toBeFalsy();
        const got = results.map((r) => r.structuredContent as { issue: number; token: number; holder: { instance: string } });
        expect(new Set(got.map((g) => g.issue)).size).toBe(20);
        expect(got.every((g) => g.token === 1)).toBe(true);
        expect(new Set(got.map((g) => g.holder.instance)).size).toBe(20);
      } finally {
        await Promise.all(agents.map((a) => a.close()));
      }
    }), 120_000);

  it("releases a session's leases when the client ends it, keeps them with ?keep_leases=true", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const direct = new LeaseClient({ baseUrl: server.url, token: AGENT_TOKEN });
      const ending = await httpClient(server, AGENT_TOKEN);
      expect((await call(ending.client, "claim_issue", { issue: `${FULL}#40` })).isError).toBeFalsy();
      await ending.close();
      await waitFor("the lease released", async () => (await direct.status(`${FULL}#40`)).holder === null);
      const keeping = await httpClient(server, AGENT_TOKEN, "?keep_leases=true");
      expect((await call(keeping.client, "claim_issue", { issue: `${FULL}#41` })).isError).toBeFalsy();
      await keeping.close();
      // Its lease stays: ask twice, a moment apart, after the session ended.
      expect((await direct.status(`${FULL}#41`)).holder).toMatchObject({ login: AGENT.login });
      await new Promise((r) => setTimeout(r, 500));
      expect((await direct.status(`${FULL}#41`)).holder).toMatchObject({ login: AGENT.login });
    }));

  it("tells the session within a second when a maintainer releases its lease", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const mcp = await httpClient(server, AGENT_TOKEN);
      try {
        const warned: number[] = [];
        const updated: string[] = [];
        mcp.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
          if (String(n.params.data).startsWith("LEASE LOST")) warned.push(Date.now());
        });
        mcp.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updated.push(n.params.uri));
        expect((await call(mcp.client, "claim_issue", { issue: `${FULL}#6` })).isError).toBeFalsy();
        await waitFor("the session's event stream", async () => server.stdout().includes("watching the lease events"));
        const sent = Date.now();
        await live.comment(server, `/release @${AGENT.login}`, maintainer, 6);
        await waitFor("the warning", async () => warned.length > 0 && updated.length > 0, 10_000);
        expect(warned[0]! - sent).toBeLessThan(1_000);
        expect(updated).toEqual([`lease://${FULL}/issues/6`]);
        const next = await call(mcp.client, "lease_status", { issue: `${FULL}#6` });
        expect(text(next)).toMatch(/^LEASE LOST: .*#6/);
      } finally {
        await mcp.close();
      }
    }));

  it("takes the API's tokens: none or a refused one is 401 with a Bearer challenge; another caller's session is not found", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live);
      const post = (headers: Record<string, string>, body: unknown = INIT) =>
        fetch(`${server.url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: JSON.stringify(body) });
      const none = await post({});
      expect(none.status).toBe(401);
      expect(none.headers.get("www-authenticate")).toMatch(/^Bearer /);
      const refused = await post({ authorization: "Bearer ghp_nobody_knows_this" });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { message: "GitHub does not accept this token." } });
      const mine = await post({ authorization: `Bearer ${AGENT_TOKEN}` });
      expect(mine.status).toBe(200);
      const session = mine.headers.get("mcp-session-id")!;
      await mine.body?.cancel();
      const theirs = await post({ authorization: `Bearer ${OTHER_TOKEN}`, "mcp-session-id": session }, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      expect(theirs.status).toBe(404);
      const noSession = await post({ authorization: `Bearer ${AGENT_TOKEN}` }, { jsonrpc: "2.0", id: 2, method: "tools/list" });
      expect(noSession.status).toBe(400);
      expect(OTHER.login).not.toBe(AGENT.login);
    }));

  it("bounds the sessions of one caller (MCP_SESSIONS_PER_CALLER) and counts tool calls against the API's rate limit", () =>
    withLiveApp(async (live) => {
      const server = await startWorld(live, { MCP_SESSIONS_PER_CALLER: "2", API_RATE_LIMIT: "6", API_RATE_BURST: "1" });
      const first = await httpClient(server, OTHER_TOKEN);
      const second = await httpClient(server, OTHER_TOKEN);
      const third = await fetch(`${server.url}/mcp`, { method: "POST", headers: { ...MCP_HEADERS, authorization: `Bearer ${OTHER_TOKEN}` }, body: JSON.stringify(INIT) });
      expect(third.status).toBe(429);
      expect(await third.json()).toMatchObject({ error: { message: expect.stringMatching(/^Too many MCP sessions open for this account/) } });
      // A burst of one: the first tool call is the caller's one API request, the next is the API's 429, answered as a refusal.
      expect((await call(first.client, "lease_status", { issue: `${FULL}#8` })).isError).toBeFalsy();
      const limited = await call(second.client, "claim_issue", { issue: `${FULL}#9` });
      expect(limited.isError).toBe(true);
      expect(text(limited)).toMatch(/^Rate limited by the app: try again in \d+ s\. Nothing was changed\.$/);
      expect((await new LeaseClient({ baseUrl: server.url, token: AGENT_TOKEN }).status(`${FULL}#9`)).holder).toBeNull();
      await first.close();
      await second.close();
    }));
});
