/**
 * One agent of bench:mcp, a process of its own as an agent is (forked by
 * bench/mcp.ts, told what to do over IPC): it takes work either through
 * its MCP server (`issue-leases mcp`, its own child over stdio, spoken to
 * by the official SDK's `Client`, as an agent's host does) or through the
 * client package directly, `pairs` claim-next+release pairs at a time, and
 * answers with the time each claim-next took.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { LeaseClient } from "@issue-leases/client";

export type AgentOrder = { run: "mcp" | "client"; pairs: number } | { close: true };
export type AgentAnswer = { ready: true } | { done: true; nextMs: number[]; cpuMs: number; serverCpuMs: number | null } | { failed: string };

const [url = "", token = "", index = "0", cli = "", repo = ""] = process.argv.slice(2);
const direct = new LeaseClient({ baseUrl: url, token, userAgent: "bench-mcp" });
const mcp = new Client({ name: "bench-agent", version: "1.0.0" });
const say = (answer: AgentAnswer) => process.send!(answer);

async function tool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const r = (await mcp.callTool({ name, arguments: args })) as CallToolResult;
  if (r.isError) throw new Error(`${name} refused: ${r.content.map((c) => (c.type === "text" ? c.text : "")).join(" ")}`);
  return r;
}

async function run(how: "mcp" | "client", pairs: number): Promise<number[]> {
  const nextMs: number[] = [];
  for (let i = 0; i < pairs; i++) {
    const t = performance.now();
    if (how === "mcp") {
      const got = (await tool("claim_next_issue", { repo, ttl: "2h" })).structuredContent as { issue: number };
      nextMs.push(performance.now() - t);
      await tool("release_lease", { issue: `${repo}#${got.issue}` });
    } else {
      const got = await direct.next(repo, {}, { ttl: "2h", instance: `direct-${index}` });
      nextMs.push(performance.now() - t);
      await direct.release(`${repo}#${got.issue}`, { instance: `direct-${index}` });
    }
  }
  return nextMs;
}

/** CPU time (ms) a process has used, from /proc (Linux); null elsewhere. */
function cpuOf(pid: number | null | undefined): number | null {
  if (!pid) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

process.on("message", (order: AgentOrder) => {
  if ("close" in order) {
    void mcp.close().finally(() => process.exit(0));
    return;
  }
  const cpu = process.cpuUsage();
  const server = cpuOf(transport.pid);
  run(order.run, order.pairs).then(
    (nextMs) => {
      const used = process.cpuUsage(cpu);
      const after = cpuOf(transport.pid);
      say({ done: true, nextMs, cpuMs: (used.user + used.system) / 1000, serverCpuMs: server === null || after === null ? null : after - server });
    },
    (error: unknown) => say({ failed: String(error) }),
  );
});

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [cli, "mcp", "--instance", `mcp-${index}`],
  env: { PATH: process.env.PATH ?? "", ISSUE_LEASES_URL: url, GITHUB_TOKEN: token },
  stderr: "ignore",
});
mcp.connect(transport).then(
  () => say({ ready: true }),
  (error: unknown) => say({ failed: String(error) }),
);
