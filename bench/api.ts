/**
 * How fast is the HTTP API, against the ledger it stands on?
 *
 *   npm run bench:api [-- --json] [--pairs N] [--clients N] [--rounds N]
 *
 * - api: the real server (`npm start`, a child process, SQLite ledger in a
 *   temp folder, Probot's throttling and retries on as in production)
 *   against the in-process fake GitHub. `--clients` bots at once (default
 *   16), each with a token of its own, claim an issue (POST, a new tenure
 *   each time) and release it (DELETE), over keep-alive connections of
 *   Node's http client (fetch would cost the load four times the CPU, taken
 *   from the server on a 2-core machine). Every identity and access is
 *   cached before measuring (a warm-up of the same calls), as it is for a
 *   client making its second call within a minute; what a claim still asks
 *   of GitHub each time is the issue (state and labels). The outbox drainer
 *   runs meanwhile, as it would, its writes paced by Probot.
 * - ledger: the same operations straight on a SqliteLedger (a file in the
 *   same temp folder, the same settings: WAL, synchronous=FULL), with a
 *   reflect effect each, as the API's claims and releases write, in this
 *   process and one at a time: what the ledger alone does for one caller,
 *   every operation its own commit and fsync. `ratio` is api ÷ this.
 * - ledger, as many callers as clients: the same, `--clients` loops at once,
 *   so that the ledger's group commit puts the operations asked for together
 *   in one commit, as the server's does. Shown beside, not in the ratio.
 * - heartbeats: renewals (PATCH) by the same clients of a lease each holds:
 *   no GitHub read and no effect for the outbox, so api ÷ this is what a
 *   claim's GitHub read and its outbox effect cost, and this ÷ ledger what
 *   HTTP, the identity and access checks and the rules cost.
 *
 * 16 clients: where the server's throughput levels off on the project's
 * 2-core machine (docs/benchmarks.md has the sweep); with fewer, a client's
 * round trips, not the server, set the pace. Rounds alternate api,
 * heartbeats and the ledgers; medians are reported. `p99_ms` is the 99th
 * percentile of a claim's time as its client saw it, over all rounds.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder } from "../src/ledger/leases/lease-types.js";
import { REFLECT } from "../src/outbox/effects.js";
import { startFakeGitHub } from "../test/support/fake-github.js";
import { startServer } from "../test/support/server-process.js";
import { clientArgs } from "./support/args.js";
import { median, percentile, reporter, round, table } from "./support/report.js";
import { always } from "../src/ledger/leases/effect-cases.js";

const GOAL = 0.5;
const REPO = "bench/api";
const REPO_ID = 7_000_001;
const USAGE = "node dist/bench/api.js [--json] [--pairs N (claim+release pairs per round)] [--clients N] [--rounds N]";


async function main(): Promise<void> {
  const args = clientArgs(USAGE, { pairs: 800, clients: 16, rounds: 5 });
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-api-"));
  const fake = await startFakeGitHub();
  fake.addRepo(REPO, { id: REPO_ID });
  const tokens = Array.from({ length: args.clients }, (_, i) => `ghs_bench_client_${i}`);
  tokens.forEach((token, i) => fake.addToken(token, { login: `agent-${i}[bot]`, id: 9_000 + i }));
  const server = await startServer({
    fake,
    dbFile: join(dir, "server.db"),
    // A benchmark's bots are far over any sensible per-identity limit; the server's log lines would be measured too.
    env: { API_RATE_LIMIT: "0", LOG_LEVEL: "warn" },
  });
  const ledger = new SqliteLedger(join(dir, "ledger.db"));
  // The load comes through Node's http client over kept-alive sockets, not
  // fetch, which costs about four times the CPU per request: on a 2-core
  // machine the clients' CPU is taken from the server being measured.
  const agent = new Agent({ keepAlive: true, maxSockets: args.clients });
  try {
    log(`issue-leases API benchmark: the real server against the fake GitHub, SQLite in ${dir}`);
    log(`${args.clients} clients, ${args.pairs} claim+release pairs per round, ${args.rounds} interleaved rounds, medians`);

    let nextIssue = 1;
    const claimMs: number[] = [];
    const apiCall = (method: string, issue: number, token: string, body?: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const req = request(
          `${server.url}/api/v1/repos/${REPO}/issues/${issue}/lease`,
          { method, agent, headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () => (res.statusCode === 200 ? resolve() : reject(new Error(`${method} #${issue} answered ${res.statusCode}: ${text}`))));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    /** `pairs` claim+release pairs spread over the clients; returns operations per second. */
    const apiRound = async (pairs: number, record: boolean): Promise<number> => {
      const per = Math.ceil(pairs / args.clients);
      const start = performance.now();
      await Promise.all(
        tokens.map(async (token) => {
          for (let i = 0; i < per; i++) {
            const issue = nextIssue++;
            const t = performance.now();
            await apiCall("POST", issue, token, '{"ttl":"2h"}');
            if (record) claimMs.push(performance.now() - t);
            await apiCall("DELETE", issue, token);
          }
        }),
      );
      return (2 * per * args.clients) / ((performance.now() - start) / 1000);
    };

    /** `pairs * 2` renewals spread over the clients, each renewing the lease it holds on an issue of its own. */
    const held = new Map(tokens.map((token, i) => [token, 1_000_000 + i]));
    const heartbeatRound = async (ops: number): Promise<number> => {
      const per = Math.ceil(ops / args.clients);
      const start = performance.now();
      await Promise.all(tokens.map(async (token) => {
        for (let i = 0; i < per; i++) await apiCall("PATCH", held.get(token)!, token, '{"ttl":"2h"}');
      }));
      return (per * args.clients) / ((performance.now() - start) / 1000);
    };

    let ledgerIssue = 1;
    const effect = (reply: string) => [{ installation: 1, kind: REFLECT, payload: { owner: "bench", repo: "api", reconcile: true, reply } }];
    /** `pairs` acquire+release pairs on the ledger by `callers` holders at once; operations per second. */
    const ledgerRound = async (pairs: number, callers: number): Promise<number> => {
      const per = Math.ceil(pairs / callers);
      const start = performance.now();
      await Promise.all(
        Array.from({ length: callers }, async (_, c) => {
          const holder: Holder = { id: 9_000 + c, login: `agent-${c}[bot]` };
          for (let i = 0; i < per; i++) {
            const key = { repoId: REPO_ID, repo: REPO, issue: ledgerIssue++ };
            const now = Date.now();
            await ledger.acquire(key, holder, 7_200_000, now, { maxPerHolder: 0, remindBefore: 86_400_000, repliesPerHour: 20, effects: always(...effect("acquired")) });
            await ledger.release(key, holder, now, { repliesPerHour: 20, effects: always(...effect("released")) });
          }
        }),
      );
      return (2 * per * callers) / ((performance.now() - start) / 1000);
    };

    // Warm-up: identities, access, installations, associations and the config cached; statements prepared.
    await apiRound(Math.max(args.clients * 10, 40), false);
    await Promise.all(tokens.map((token) => apiCall("POST", held.get(token)!, token, '{"ttl":"2h"}')));
    await heartbeatRound(40);
    await ledgerRound(200, 1);
    await ledgerRound(200, args.clients);

    const api: number[] = [];
    const beats: number[] = [];
    const led: number[] = [];
    const grouped: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      api.push(await apiRound(args.pairs, true));
      beats.push(await heartbeatRound(2 * args.pairs));
      led.push(await ledgerRound(args.pairs, 1));
      grouped.push(await ledgerRound(args.pairs, args.clients));
    }
    const apiPerS = median(api);
    const beatsPerS = median(beats);
    const ledgerPerS = median(led);
    const groupedPerS = median(grouped);
    const ratio = apiPerS / ledgerPerS;
    const p99 = percentile(claimMs, 99);
    table(
      log,
      ["", "ops/s", "per op (µs)"],
      [
        ["api (claims and releases)", apiPerS.toFixed(0), (1e6 / apiPerS).toFixed(0)],
        ["api heartbeats (renewals)", beatsPerS.toFixed(0), (1e6 / beatsPerS).toFixed(0)],
        ["ledger (acquire and release)", ledgerPerS.toFixed(0), (1e6 / ledgerPerS).toFixed(0)],
        [`ledger, ${args.clients} callers at once`, groupedPerS.toFixed(0), (1e6 / groupedPerS).toFixed(0)],
      ],
      { label: 30, value: 14 },
    );
    log(`ratio api/ledger: ${ratio.toFixed(2)} (goal >= ${GOAL}: ${ratio >= GOAL ? "met" : "missed"}); heartbeats/ledger: ${(beatsPerS / ledgerPerS).toFixed(2)}`);
    log(`the ledger with ${args.clients} callers at once commits in groups: api ÷ that is ${(apiPerS / groupedPerS).toFixed(2)} (what HTTP and GitHub add beside a batched commit)`);
    log(`claim latency: p50 ${percentile(claimMs, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${claimMs.length} claims, ${args.clients} at once)`);
    const reads = fake.requests.filter((r) => r.method === "GET" && /\/issues\/\d+$/.test(r.path)).length;
    const graphql = fake.requests.filter((r) => r.path.endsWith("/graphql"));
    const identities = graphql.filter((r) => /viewer \{/.test(String((r.body as { query?: unknown } | undefined)?.query))).length;
    log(
      `GitHub asked: ${identities} identity look-ups (one per token), ${reads} issue reads (one per claim), ` +
        `${graphql.length - identities} moderation queries (one per token and issue, beside the issue read)`,
    );
    if (args.json) {
      console.log(
        JSON.stringify({
          bench: "api",
          api_per_s: round(apiPerS, 0),
          ledger_per_s: round(ledgerPerS, 0),
          ratio: round(ratio, 3),
          goal: GOAL,
          heartbeat_per_s: round(beatsPerS, 0),
          heartbeat_ratio: round(beatsPerS / ledgerPerS, 3),
          ledger_grouped_per_s: round(groupedPerS, 0),
          p99_ms: round(p99, 2),
          clients: args.clients,
          pairs: args.pairs,
          rounds: args.rounds,
        }),
      );
    }
  } finally {
    agent.destroy();
    await server.stop();
    await ledger.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
