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
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { AGENT, AGENT_TOKEN, BIN, call, startWorld, stdioClient, stdioEnv, text } from "./mcp-world.js";

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
        const replies = live.fake.requests.filter((r) => r.method === "POST" && r.path.includes("/issues/31/comments"));
        expect(replies.length).toBe(2);
      } finally {
        await mcp.close();
      }
    }));
});
