/**
 * How fast do lease events reach the stream's clients, and what do they cost
 * the ledger?
 *
 *   npm run bench:events [-- --json] [--pairs N] [--clients N] [--rounds N]
 *
 * - stream: the real server (`npm start`, a child process, SQLite ledger in
 *   a temp folder) against the in-process fake GitHub, with `--clients`
 *   (default 100) clients on GET /api/v1/events, each over a connection of
 *   its own, reading as an EventSource does. Four bots make `--pairs`
 *   claim+release pairs per round through the API (two events each), as fast
 *   as the server answers. `events_per_s`: events made ÷ the time from the
 *   round's first call to the last client receiving its last event (median
 *   of the rounds). Every client must get every event, in order.
 * - latency: one bot, one change at a time (a claim or a release, the next
 *   sent when the previous is answered, not when it is delivered). `p99_ms`:
 *   the 99th percentile, over every change of every round, of the time from
 *   sending the change's call (before its commit: an upper bound of the
 *   time from the commit) to the last of the clients receiving its event.
 *   `p99_loaded_ms`: the same over the stream rounds, with four bots at full
 *   speed.
 * - ledger: acquire+release pairs straight on two SqliteLedgers in this
 *   process (the same settings as the server's: WAL, synchronous=FULL), one
 *   writing events and one opened with `events: false`, one caller each,
 *   side by side: each round alternates slices of the two. `ledger_ratio`:
 *   operations per second with events ÷ without, the median of the rounds'
 *   (goal >= 0.9).
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
import { StreamClients } from "./support/stream-clients.js";
import { always } from "../src/ledger/leases/effect-cases.js";

const P99_GOAL_MS = 100;
const LEDGER_GOAL = 0.9;
const REPO = "bench/events";
const REPO_ID = 7_200_001;
const WRITERS = 4;
const USAGE = "node dist/bench/events.js [--json] [--pairs N (claim+release pairs per round)] [--clients N (stream clients)] [--rounds N]";

async function main(): Promise<void> {
  const args = clientArgs(USAGE, { pairs: 250, clients: 100, rounds: 5 });
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-events-"));
  const fake = await startFakeGitHub();
  fake.addRepo(REPO, { id: REPO_ID });
  const tokens = Array.from({ length: WRITERS }, (_, i) => `ghs_bench_events_${i}`);
  tokens.forEach((token, i) => fake.addToken(token, { login: `writer-${i}[bot]`, id: 9_300 + i }));
  const dbFile = join(dir, "server.db");
  // The repository is public, as a webhook would have shown it: anonymous clients get its events.
  const seed = new SqliteLedger(dbFile);
  await seed.rememberVisibility({ repoId: REPO_ID, repo: REPO, installation: 1, private: false }, Date.now());
  await seed.close();
  const server = await startServer({
    fake,
    dbFile,
    env: {
      API_RATE_LIMIT: "0",
      API_ADDRESS_RATE_LIMIT: "0",
      EVENTS_STREAMS_PER_ADDRESS: String(args.clients + 10),
      EVENTS_STREAMS_MAX: String(args.clients + 10),
      LOG_LEVEL: "warn",
    },
  });
  const withEvents = new SqliteLedger(join(dir, "with-events.db"));
  const withoutEvents = new SqliteLedger(join(dir, "without-events.db"), { events: false });
  const agent = new Agent({ keepAlive: true, maxSockets: WRITERS });
  const clients = new StreamClients(`${server.url}/api/v1/events`, args.clients);
  try {
    log(`issue-leases events benchmark: the real server against the fake GitHub, SQLite in ${dir}`);
    log(`${args.clients} stream clients, ${args.pairs} claim+release pairs per round by ${WRITERS} bots, ${args.rounds} interleaved rounds, medians`);
    await clients.open();

    let nextIssue = 1;
    /** When each change's call was sent, by `issue type`, to match the event the clients get. */
    const sent = new Map<string, number>();
    /** How long the paced calls took, sent to answered: the part of the latency that is the API's. */
    const callMs: number[] = [];
    let timing = false;
    const apiCall = (method: string, issue: number, token: string, body?: string): Promise<void> =>
      new Promise((resolve, reject) => {
        const type = method === "POST" ? "lease.acquired" : "lease.released";
        const t = performance.now();
        sent.set(`${issue} ${type}`, t);
        const req = request(
          `${server.url}/api/v1/repos/${REPO}/issues/${issue}/lease`,
          { method, agent, headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) } },
          (res) => {
            let text = "";
            res.setEncoding("utf8");
            res.on("data", (chunk: string) => (text += chunk));
            res.on("end", () => {
              if (timing) callMs.push(performance.now() - t);
              if (res.statusCode === 200) resolve();
              else reject(new Error(`${method} #${issue} answered ${res.statusCode}: ${text}`));
            });
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(body);
      });

    /** `pairs` claim+release pairs by `writers` bots at once; answers events per second, made to received by every client. */
    const streamRound = async (pairs: number, writers: number, latencies: number[] | null): Promise<number> => {
      const expected = clients.received + 2 * pairs;
      const per = Math.ceil(pairs / writers);
      const start = performance.now();
      let made = 0;
      await Promise.all(
        tokens.slice(0, writers).map(async (token) => {
          for (let i = 0; i < per && made < pairs; i++, made++) {
            const issue = nextIssue++;
            await apiCall("POST", issue, token, '{"ttl":"2h"}');
            await apiCall("DELETE", issue, token);
          }
        }),
      );
      await clients.allReceived(expected);
      let lastAt = start;
      for (const e of clients.drain()) {
        const t = sent.get(`${e.issue} ${e.type}`);
        if (t === undefined) throw new Error(`an event no call made: ${e.type} #${e.issue}`);
        latencies?.push(e.lastAt - t);
        lastAt = Math.max(lastAt, e.lastAt);
      }
      return (2 * pairs) / ((lastAt - start) / 1000);
    };

    let ledgerIssue = 1;
    const effect = (reply: string) => [{ installation: 1, kind: REFLECT, payload: { owner: "bench", repo: "events", reconcile: true, reply } }];
    /** `pairs` acquire+release pairs on `ledger`, one caller; the milliseconds they took. */
    const ledgerPairs = async (ledger: SqliteLedger, pairs: number): Promise<number> => {
      const holder: Holder = { id: 9_400, login: "ledger-bench[bot]" };
      const start = performance.now();
      for (let i = 0; i < pairs; i++) {
        const key = { repoId: REPO_ID, repo: REPO, issue: ledgerIssue++ };
        const now = Date.now();
        await ledger.acquire(key, holder, 7_200_000, now, { maxPerHolder: 0, remindBefore: 86_400_000, repliesPerHour: 20, effects: always(...effect("acquired")) });
        await ledger.release(key, holder, now, { repliesPerHour: 20, effects: always(...effect("released")) });
      }
      return performance.now() - start;
    };
    /**
     * One round of the two ledgers side by side: `pairs` pairs each, in ten
     * slices taken in turn (which goes first alternating), so that the
     * disk's moods (other processes' fsyncs) fall on both alike. Operations
     * per second of each.
     */
    const ledgerRound = async (pairs: number): Promise<{ on: number; off: number }> => {
      const slice = Math.max(1, Math.round(pairs / 10));
      let onMs = 0;
      let offMs = 0;
      for (let k = 0; k < 10; k++) {
        for (const ledger of k % 2 ? [withoutEvents, withEvents] : [withEvents, withoutEvents]) {
          const ms = await ledgerPairs(ledger, slice);
          if (ledger === withEvents) onMs += ms;
          else offMs += ms;
        }
      }
      return { on: (20 * slice) / (onMs / 1000), off: (20 * slice) / (offMs / 1000) };
    };

    // Warm-up: identities, access and the config cached; statements prepared.
    await streamRound(40, WRITERS, null);
    await streamRound(10, 1, null);
    await ledgerRound(100);

    const rates: number[] = [];
    const loaded: number[] = [];
    const paced: number[] = [];
    const on: number[] = [];
    const off: number[] = [];
    const ratios: number[] = [];
    for (let r = 0; r < args.rounds; r++) {
      rates.push(await streamRound(args.pairs, WRITERS, loaded));
      timing = true;
      await streamRound(Math.max(10, Math.round(args.pairs / 5)), 1, paced);
      timing = false;
      const ledgers = await ledgerRound(args.pairs);
      on.push(ledgers.on);
      off.push(ledgers.off);
      ratios.push(ledgers.on / ledgers.off);
    }
    const eventsPerS = median(rates);
    const p99 = percentile(paced, 99);
    const p99Loaded = percentile(loaded, 99);
    const ledgerOn = median(on);
    const ledgerOff = median(off);
    // The median of the rounds' ratios: each round's two figures were taken side by side.
    const ratio = median(ratios);
    table(
      log,
      ["", "value"],
      [
        [`events/s to ${args.clients} clients (${WRITERS} bots at full speed)`, eventsPerS.toFixed(0)],
        ["latency p50, one change at a time (ms)", percentile(paced, 50).toFixed(1)],
        ["latency p99, one change at a time (ms)", p99.toFixed(1)],
        ["  of which the API call itself, p99 (ms)", percentile(callMs, 99).toFixed(1)],
        [`latency p99, ${WRITERS} bots at full speed (ms)`, p99Loaded.toFixed(1)],
        ["ledger ops/s with events", ledgerOn.toFixed(0)],
        ["ledger ops/s without events", ledgerOff.toFixed(0)],
      ],
      { label: 52, value: 12 },
    );
    log(`p99 ${p99.toFixed(1)} ms (goal < ${P99_GOAL_MS}: ${p99 < P99_GOAL_MS ? "met" : "missed"}); ledger with/without events ${ratio.toFixed(3)} (goal >= ${LEDGER_GOAL}: ${ratio >= LEDGER_GOAL ? "met" : "missed"})`);
    log(`every client got every event, in order: ${clients.received} events each, none disconnected`);
    if (args.json) {
      console.log(
        JSON.stringify({
          bench: "events",
          events_per_s: round(eventsPerS, 0),
          p99_ms: round(p99, 2),
          goal_p99_ms: P99_GOAL_MS,
          p99_loaded_ms: round(p99Loaded, 2),
          call_p99_ms: round(percentile(callMs, 99), 2),
          ledger_ratio: round(ratio, 3),
          ledger_goal: LEDGER_GOAL,
          ledger_on_per_s: round(ledgerOn, 0),
          ledger_off_per_s: round(ledgerOff, 0),
          clients: args.clients,
          pairs: args.pairs,
          rounds: args.rounds,
        }),
      );
    }
  } finally {
    clients.close();
    agent.destroy();
    await server.stop();
    await withEvents.close();
    await withoutEvents.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
