/**
 * How fast does claim-next hand out work, against a plain claim?
 *
 *   npm run bench:next [-- --json] [--pairs N] [--clients N] [--rounds N]
 *
 * The real server (`npm start`, a child process, SQLite ledger in a temp
 * folder, Probot's throttling and retries on) against the in-process fake
 * GitHub, as bench:api runs it, with the inventory of its repository filled
 * beforehand (10,000 open issues, the oldest 100 held by someone else, so
 * that every `next` walks past held issues as it would in a busy
 * repository). `--clients` bots at once (default 16), each with a token of
 * its own:
 *
 * - next: `POST /api/v1/repos/{repo}/leases/next` then `DELETE` of the issue
 *   it got (the issue goes back to the front of the line: the next caller
 *   gets it again, or the one after). Each bot's calls are one at a time,
 *   over keep-alive connections of Node's http client.
 * - claim: the same bots' plain `POST …/issues/{n}/lease` then `DELETE`, on
 *   issues of the same repository outside the inventory's order: what a bot
 *   that knows which issue it wants pays. `ratio` is next ÷ claim (goal >= 0.8).
 * - scale: the same `next` pairs on two more servers, whose repositories have
 *   1,000 and 100,000 open issues (the oldest 100 held): `scale_ratio` is
 *   the time of a pair at 100k ÷ at 1k (goal <= 1.3).
 *
 * Rounds alternate next, claim and the two scale servers; medians are
 * reported. `p99_ms` is the 99th percentile of a `next` call's time as its
 * client saw it, over all rounds on the 10k server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type { IssueSnapshot } from "../src/ledger/inventory/inventory-types.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { type FakeGitHub, startFakeGitHub } from "../test/support/fake-github.js";
import { type ServerProcess, startServer } from "../test/support/server-process.js";
import { clientArgs } from "./support/args.js";
import { median, percentile, reporter, round, table } from "./support/report.js";

const GOAL = 0.8;
const SCALE_GOAL = 1.3;
const HELD = 100;
const DAY = 86_400_000;
const USAGE = "node dist/bench/next.js [--json] [--pairs N (next+release pairs per round)] [--clients N] [--rounds N]";


interface World {
  name: string;
  repo: string;
  repoId: number;
  open: number;
  server?: ServerProcess;
}

/**
 * Fills the server's database before it starts: `open` issues in the
 * inventory, one fill recorded (so that the server does not page GitHub for
 * them), and the oldest `HELD` leased by someone who is not a bench client.
 */
async function prefill(dbFile: string, w: World, now: number): Promise<void> {
  const ledger = new SqliteLedger(dbFile);
  try {
    await ledger.rememberRepo({ repoId: w.repoId, repo: w.repo, installation: 1 }, now);
    const t0 = now - 400 * DAY;
    for (let from = 1; from <= w.open; from += 5_000) {
      const batch: IssueSnapshot[] = [];
      for (let n = from; n < from + 5_000 && n <= w.open; n++) {
        batch.push({
          repoId: w.repoId,
          issue: n,
          title: `Issue ${n}`,
          labels: n % 3 === 0 ? ["bug"] : ["enhancement"],
          assignees: [],
          milestone: null,
          author: { id: 50, login: "someone" },
          createdAt: t0 + n * 60_000,
          state: "open",
          blockedByOpen: null,
          openSubIssues: null,
          updatedAt: now - DAY,
        });
      }
      await ledger.rememberIssues(batch, now);
    }
    await ledger.markFilled({ repoId: w.repoId, filledAt: now, issues: w.open }, now);
    for (let n = 1; n <= HELD; n++) await ledger.acquire({ repoId: w.repoId, repo: w.repo, issue: n }, { id: 51, login: "busy" }, 30 * DAY, now);
  } finally {
    await ledger.close();
  }
}

async function main(): Promise<void> {
  const args = clientArgs(USAGE, { pairs: 480, clients: 16, rounds: 5 });
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-next-"));
  const fake: FakeGitHub = await startFakeGitHub();
  const worlds: World[] = [
    { name: "10k", repo: "bench/next", repoId: 7_100_001, open: 10_000 },
    { name: "1k", repo: "bench/next-1k", repoId: 7_100_002, open: 1_000 },
    { name: "100k", repo: "bench/next-100k", repoId: 7_100_003, open: 100_000 },
  ];
  const tokens = Array.from({ length: args.clients }, (_, i) => `ghs_bench_next_${i}`);
  tokens.forEach((token, i) => fake.addToken(token, { login: `agent-${i}[bot]`, id: 9_100 + i }));
  const agent = new Agent({ keepAlive: true, maxSockets: args.clients * worlds.length });
  try {
    const now = Date.now();
    for (const w of worlds) {
      fake.addRepo(w.repo, { id: w.repoId });
      const dbFile = join(dir, `${w.name}.db`);
      await prefill(dbFile, w, now);
      // A benchmark's bots are far over any sensible per-identity limit; its inventory is filled above and never reconciled.
      w.server = await startServer({ fake, dbFile, env: { API_RATE_LIMIT: "0", API_UNKNOWN_TOKEN_LIMIT: "60000", LOG_LEVEL: "warn", INVENTORY_RECONCILE: "off" } });
    }
    log(`issue-leases claim-next benchmark: the real server against the fake GitHub, SQLite in ${dir}`);
    log(`${args.clients} clients, ${args.pairs} pairs per round, ${args.rounds} interleaved rounds, medians; the oldest ${HELD} issues held by someone else`);

    const call = (w: World, method: string, path: string, token: string, body?: string): Promise<{ status: number; json: unknown }> =>
      new Promise((resolve, reject) => {
        const req = request(
          `${w.server!.url}/api/v1/repos/${w.repo}${path}`,
          { method, agent, headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () => {
              if (res.statusCode !== 200) reject(new Error(`${method} ${path} answered ${res.statusCode}: ${text}`));
              else resolve({ status: res.statusCode, json: JSON.parse(text) as unknown });
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });

    const nextMs: number[] = [];
    /** `pairs` next+release pairs over the clients on `w`; pairs per second. */
    const nextRound = async (w: World, pairs: number, record: boolean): Promise<number> => {
      const per = Math.ceil(pairs / args.clients);
      const start = performance.now();
      await Promise.all(
        tokens.map(async (token) => {
          for (let i = 0; i < per; i++) {
            const t = performance.now();
            const got = (await call(w, "POST", "/leases/next", token, '{"ttl":"2h"}')).json as { issue: number };
            if (record) nextMs.push(performance.now() - t);
            await call(w, "DELETE", `/issues/${got.issue}/lease`, token);
          }
        }),
      );
      return (per * args.clients) / ((performance.now() - start) / 1000);
    };
    let plainIssue = 1_000_000;
    /** The same pairs as plain claims, on issues outside the inventory's order. */
    const claimRound = async (w: World, pairs: number): Promise<number> => {
      const per = Math.ceil(pairs / args.clients);
      const start = performance.now();
      await Promise.all(
        tokens.map(async (token) => {
          for (let i = 0; i < per; i++) {
            const issue = plainIssue++;
            await call(w, "POST", `/issues/${issue}/lease`, token, '{"ttl":"2h"}');
            await call(w, "DELETE", `/issues/${issue}/lease`, token);
          }
        }),
      );
      return (per * args.clients) / ((performance.now() - start) / 1000);
    };

    // Warm-up: each token made known to each server one at a time (new tokens from one address are limited in bursts),
    // then identities, access, installations and the config cached on every server; statements prepared.
    for (const w of worlds) {
      for (const token of tokens) {
        const got = (await call(w, "POST", "/leases/next", token, '{"ttl":"2h"}')).json as { issue: number };
        await call(w, "DELETE", `/issues/${got.issue}/lease`, token);
      }
    }
    const warm = Math.max(args.clients * 4, 40);
    for (const w of worlds) await nextRound(w, warm, false);
    await claimRound(worlds[0]!, warm);

    const [main10k, one, hundred] = worlds as [World, World, World];
    const next: number[] = [];
    const claim: number[] = [];
    // GitHub reads made while answering (GETs and GraphQL queries; not the outbox's writes, nor installation tokens).
    const reads = { next: 0, claim: 0, calls: { next: 0, claim: 0 } };
    const readsDuring = async (kind: "next" | "claim", work: () => Promise<number>): Promise<number> => {
      const from = fake.requests.length;
      const perS = await work();
      reads[kind] += fake.requests.slice(from).filter((r) => (r.method === "GET" || r.path.endsWith("/graphql")) && !r.path.includes("/access_tokens")).length;
      reads.calls[kind] += Math.ceil(args.pairs / args.clients) * args.clients;
      return perS;
    };
    const at1k: number[] = [];
    const at100k: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      next.push(await readsDuring("next", () => nextRound(main10k, args.pairs, true)));
      claim.push(await readsDuring("claim", () => claimRound(main10k, args.pairs)));
      at1k.push(await nextRound(one, args.pairs, false));
      at100k.push(await nextRound(hundred, args.pairs, false));
    }
    const nextPerS = median(next);
    const claimPerS = median(claim);
    const ratio = nextPerS / claimPerS;
    const scale = median(at1k) / median(at100k);
    const p99 = percentile(nextMs, 99);
    table(
      log,
      ["", "pairs/s", "per pair (µs)"],
      [
        ["next + release (10k open)", nextPerS.toFixed(0), (1e6 / nextPerS).toFixed(0)],
        ["claim + release (10k open)", claimPerS.toFixed(0), (1e6 / claimPerS).toFixed(0)],
        ["next + release (1k open)", median(at1k).toFixed(0), (1e6 / median(at1k)).toFixed(0)],
        ["next + release (100k open)", median(at100k).toFixed(0), (1e6 / median(at100k)).toFixed(0)],
      ],
      { label: 30, value: 14 },
    );
    log(`ratio next/claim: ${ratio.toFixed(2)} (goal >= ${GOAL}: ${ratio >= GOAL ? "met" : "missed"})`);
    log(`cost at 100k open issues ÷ at 1k: ${scale.toFixed(2)} (goal <= ${SCALE_GOAL}: ${scale <= SCALE_GOAL ? "met" : "missed"})`);
    const readsPer = (kind: "next" | "claim") => reads[kind] / reads.calls[kind];
    log(`GitHub reads per call (identities and access cached): next ${readsPer("next").toFixed(2)}, claim ${readsPer("claim").toFixed(2)}`);
    log(`next latency: p50 ${percentile(nextMs, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${nextMs.length} calls, ${args.clients} at once)`);
    if (args.json) {
      console.log(
        JSON.stringify({
          bench: "next",
          next_per_s: round(nextPerS, 1),
          claim_per_s: round(claimPerS, 1),
          ratio: round(ratio, 3),
          goal: GOAL,
          p99_ms: round(p99, 2),
          github_reads_per_next: round(readsPer("next"), 2),
          github_reads_per_claim: round(readsPer("claim"), 2),
          per_s_1k: round(median(at1k), 1),
          per_s_100k: round(median(at100k), 1),
          scale_ratio: round(scale, 3),
          scale_goal: SCALE_GOAL,
          open_issues: main10k.open,
          held: HELD,
          clients: args.clients,
          pairs: args.pairs,
          rounds: args.rounds,
        }),
      );
    }
  } finally {
    agent.destroy();
    for (const w of worlds) await w.server?.stop();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
