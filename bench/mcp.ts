/**
 * What does an agent pay for taking work through MCP, against the client?
 *
 *   npm run bench:mcp [-- --json] [--pairs N] [--clients N] [--rounds N]
 *
 * The real server (`npm start`, a child process, SQLite ledger in a temp
 * folder) against the in-process fake GitHub, its repository's inventory
 * filled beforehand (10,000 open issues), as bench:next runs it.
 * `--clients` agents at once (default 8), each a process of its own
 * (bench/support/mcp-agent.ts) with a token of its own:
 *
 * - mcp: the agent's MCP server is `issue-leases mcp` (the built CLI, its
 *   child over stdio, as a host launches it), spoken to by the official
 *   SDK's `Client`: `claim_next_issue` then `release_lease` of the issue it
 *   got. The session renews nothing here (the leases last 2 h) but watches
 *   its leases' events, as it always does.
 * - client: the same agents' `LeaseClient.next` then `release`, in the
 *   agent's process: what a bot that imports the client pays.
 *
 * Rounds alternate the two; medians are reported. `ratio` is mcp ÷ client
 * in pairs per second (goal >= 0.8); `p99_ms` is the 99th percentile of a
 * `claim_next_issue` call's time as the MCP client saw it, over all rounds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { type ChildProcess, fork } from "node:child_process";
import type { IssueSnapshot } from "../src/ledger/inventory/inventory-types.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { type FakeGitHub, startFakeGitHub } from "../test/support/fake-github.js";
import { ROOT, type ServerProcess, startServer } from "../test/support/server-process.js";
import { clientArgs } from "./support/args.js";
import type { AgentAnswer, AgentOrder } from "./support/mcp-agent.js";
import { median, percentile, reporter, round as round2, table } from "./support/report.js";

const GOAL = 0.8;
const OPEN = 10_000;
const REPO = "bench/mcp";
const REPO_ID = 7_200_001;
const DAY = 86_400_000;
const USAGE = "node dist/bench/mcp.js [--json] [--pairs N (claim-next+release pairs per round)] [--clients N] [--rounds N]";
const CLI = join(ROOT, "dist/src/cli/main.js");
const AGENT = join(ROOT, "dist/bench/support/mcp-agent.js");

/** The repository's open issues, one fill recorded, before the server starts. */
async function prefill(dbFile: string, now: number): Promise<void> {
  const ledger = new SqliteLedger(dbFile);
  try {
    await ledger.rememberRepo({ repoId: REPO_ID, repo: REPO, installation: 1 }, now);
    const batch: IssueSnapshot[] = [];
    for (let n = 1; n <= OPEN; n++) {
      batch.push({
        repoId: REPO_ID,
        issue: n,
        title: `Issue ${n}`,
        labels: n % 3 === 0 ? ["bug"] : ["enhancement"],
        assignees: [],
        milestone: null,
        author: { id: 50, login: "someone" },
        createdAt: now - 400 * DAY + n * 60_000,
        state: "open",
        blockedByOpen: null,
        openSubIssues: null,
        updatedAt: now - DAY,
      });
    }
    await ledger.rememberIssues(batch, now);
    await ledger.markFilled({ repoId: REPO_ID, filledAt: now, issues: OPEN }, now);
  } finally {
    await ledger.close();
  }
}

async function main(): Promise<void> {
  const args = clientArgs(USAGE, { pairs: 240, clients: 8, rounds: 5 });
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-mcp-"));
  const fake: FakeGitHub = await startFakeGitHub();
  let server: ServerProcess | undefined;
  const agents: ChildProcess[] = [];
  try {
    fake.addRepo(REPO, { id: REPO_ID });
    const dbFile = join(dir, "ledger.db");
    await prefill(dbFile, Date.now());
    // A benchmark's agents are far over any sensible per-identity limit; its inventory is filled above and never reconciled.
    server = await startServer({ fake, dbFile, env: { API_RATE_LIMIT: "0", API_UNKNOWN_TOKEN_LIMIT: "60000", LOG_LEVEL: "warn", INVENTORY_RECONCILE: "off" } });
    const ready: Promise<void>[] = [];
    for (let i = 0; i < args.clients; i++) {
      const token = `ghs_bench_mcp_${i}`;
      fake.addToken(token, { login: `mcp-agent-${i}`, id: 9_200 + i });
      const agent = fork(AGENT, [server.url, token, String(i), CLI, REPO], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      agents.push(agent);
      ready.push(answerOf(agent).then(() => undefined));
    }
    await Promise.all(ready);
    log(`issue-leases MCP benchmark: the real server against the fake GitHub, SQLite in ${dir}`);
    log(`${args.clients} agents (a process each), ${args.pairs} claim-next+release pairs per round, ${args.rounds} interleaved rounds, medians; ${OPEN} open issues`);

    const nextMs: number[] = [];
    /** CPU time the agents' processes used (and, through MCP, their MCP servers'), over the pairs recorded. */
    const cpu = { mcp: { agent: 0, server: 0, pairs: 0 }, client: { agent: 0, server: 0, pairs: 0 } };
    /** `pairs` pairs over the agents, each through MCP or the client; pairs per second, over the wall clock. */
    const round = async (how: "mcp" | "client", pairs: number, record: boolean): Promise<number> => {
      const per = Math.ceil(pairs / args.clients);
      const start = performance.now();
      const answers = await Promise.all(
        agents.map((agent) => {
          const answer = answerOf(agent);
          agent.send({ run: how, pairs: per } satisfies AgentOrder);
          return answer;
        }),
      );
      const perS = (per * args.clients) / ((performance.now() - start) / 1000);
      if (record && how === "mcp") for (const a of answers) if ("done" in a) nextMs.push(...a.nextMs);
      if (record) {
        for (const a of answers) {
          if (!("done" in a)) continue;
          cpu[how].agent += a.cpuMs;
          if (how === "mcp" && a.serverCpuMs !== null) cpu.mcp.server += a.serverCpuMs;
          cpu[how].pairs += per;
        }
      }
      return perS;
    };

    // Warm-up: identities, access, the config cached; each MCP session's event stream open; statements prepared.
    const warm = Math.max(args.clients * 4, 32);
    await round("mcp", warm, false);
    await round("client", warm, false);

    const viaMcp: number[] = [];
    const viaClient: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      viaMcp.push(await round("mcp", args.pairs, true));
      viaClient.push(await round("client", args.pairs, true));
    }
    const mcpPerS = median(viaMcp);
    const clientPerS = median(viaClient);
    const ratio = mcpPerS / clientPerS;
    const p99 = percentile(nextMs, 99);
    table(
      log,
      ["", "pairs/s", "per pair (µs)"],
      [
        ["MCP over stdio", mcpPerS.toFixed(0), (1e6 / mcpPerS).toFixed(0)],
        ["the client directly", clientPerS.toFixed(0), (1e6 / clientPerS).toFixed(0)],
      ],
      { label: 24, value: 14 },
    );
    log(`ratio mcp/client: ${ratio.toFixed(2)} (goal >= ${GOAL}: ${ratio >= GOAL ? "met" : "missed"})`);
    const perPair = (c: { agent: number; server: number; pairs: number }) => (c.pairs === 0 ? 0 : (c.agent + c.server) / c.pairs);
    log(
      `CPU per pair outside the app: MCP ${perPair(cpu.mcp).toFixed(2)} ms (agent ${(cpu.mcp.agent / Math.max(1, cpu.mcp.pairs)).toFixed(2)}, ` +
        `its MCP server ${(cpu.mcp.server / Math.max(1, cpu.mcp.pairs)).toFixed(2)}), client ${perPair(cpu.client).toFixed(2)} ms`,
    );
    log(`claim_next_issue latency: p50 ${percentile(nextMs, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${nextMs.length} calls, ${args.clients} at once)`);
    if (args.json) {
      console.log(
        JSON.stringify({
          bench: "mcp",
          mcp_per_s: round2(mcpPerS, 1),
          client_per_s: round2(clientPerS, 1),
          ratio: round2(ratio, 3),
          goal: GOAL,
          p50_ms: round2(percentile(nextMs, 50), 2),
          p99_ms: round2(p99, 2),
          cpu_ms_per_pair_mcp: round2(perPair(cpu.mcp), 2),
          cpu_ms_per_pair_client: round2(perPair(cpu.client), 2),
          open_issues: OPEN,
          clients: args.clients,
          pairs: args.pairs,
          rounds: args.rounds,
        }),
      );
    }
  } finally {
    await Promise.all(
      agents.map(
        (agent) =>
          new Promise<void>((resolve) => {
            if (agent.exitCode !== null) return resolve();
            agent.once("exit", () => resolve());
            agent.send({ close: true } satisfies AgentOrder);
            setTimeout(() => agent.kill(), 5_000).unref();
          }),
      ),
    );
    await server?.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The agent's next answer; a failure rejects. */
function answerOf(agent: ChildProcess): Promise<AgentAnswer> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`an agent exited (${code}) before it answered`));
    agent.once("exit", onExit);
    agent.once("message", (answer: AgentAnswer) => {
      agent.off("exit", onExit);
      if ("failed" in answer) reject(new Error(`an agent failed: ${answer.failed}`));
      else resolve(answer);
    });
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
