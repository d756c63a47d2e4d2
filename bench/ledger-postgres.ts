/**
 * The ledger benchmark on PostgreSQL: `npm run bench:ledger -- --postgres
 * [--json] [--ops N] [--rounds N]`, against BENCH_DATABASE_URL (default the
 * local test database), in a schema of its own created for the run and
 * dropped at the end.
 *
 *  1. mix: ops/s of the SQLite bench's realistic mix (`ledger-mix.ts`), one
 *     client, sequential, through PostgresLedger with `clock: "database"`,
 *     the production setting (the synthetic clock of the mix is ignored, so
 *     no lease expires during the run);
 *  2. floor: ops/s of the cheapest durable write, BEGIN; one `INSERT ... ON
 *     CONFLICT DO UPDATE`; COMMIT, through the ledger's own pool (so the very
 *     same connection settings); and mix ÷ floor;
 *  3. 4 clients: ops/s of 4 loops sharing one ledger (pool of 4), first on
 *     disjoint issues (the mix, its 10,000 issues split four ways), then all
 *     on one issue (4 holders acquiring, renewing and releasing it, so every
 *     operation queues on the same row lock); with per-operation latency;
 *  4. the mix and the 4 clients on their own issues again, on a ledger opened
 *     with `events: false` in a second schema: what lease events cost
 *     (`events_ratio`, `concurrent_events_ratio`: events on ÷ off). Events
 *     make the transactions that write them commit one at a time
 *     (postgres/events.ts), which the concurrent one shows.
 *
 * As on SQLite, the measurements run interleaved in turns, in an order that
 * rotates, and the medians of the rounds are reported.
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { openPostgres, type PostgresLedger } from "../src/ledger/postgres/postgres-ledger.js";
import type { Holder } from "../src/ledger/leases/lease-types.js";
import { median, MIX_ISSUES, Mix, outcomeShares, pad, T0 } from "./ledger-mix.js";
import { seededRandom } from "../test/support/seeded-random.js";
import { percentile } from "./support/report.js";

const DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test";
/** Loops in the concurrent measurements, and the pool size of the ledger they share. */
const CLIENTS = 4;
/** Operations per turn of each measurement: large enough that the concurrent loops' last stragglers cost little. */
const TURN = 400;
const WARMUP = 200;
/** Repositories of the concurrent measurements: apart from the mix's, so that per-holder limits count only their own leases. */
const DISTINCT_REPO = { repoId: 2, repo: "bench/distinct" };
const CONTENDED_REPO = { repoId: 3, repo: "bench/contended" };

export interface PostgresBenchArgs {
  json: boolean;
  ops: number;
  rounds: number;
}

interface Workload {
  /** Runs `ops` operations; returns the wall time they took, in ms. */
  run(ops: number, latencies?: number[]): Promise<number>;
}

/** The floor: BEGIN; one upsert; COMMIT, one connection taken from the pool per transaction, as the ledger does. */
class Floor implements Workload {
  private readonly rnd = seededRandom(99);
  /** Upserts so far: each writes a value its row never had, as each ledger operation writes. */
  private n = 0;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly upsert: string,
  ) {}

  static async create(pool: pg.Pool, schema: string): Promise<Floor> {
    const table = `${pg.escapeIdentifier(schema)}.floor`;
    await pool.query(`CREATE TABLE ${table} (k bigint PRIMARY KEY, v bigint NOT NULL, t bigint NOT NULL)`);
    return new Floor(pool, `INSERT INTO ${table} (k, v, t) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = excluded.v, t = excluded.t`);
  }

  async run(ops: number, latencies?: number[]): Promise<number> {
    const start = performance.now();
    for (let i = 0; i < ops; i++) {
      const began = latencies ? performance.now() : 0;
      this.n++;
      const client = await this.pool.connect();
      try {
        await client.query("BEGIN");
        await client.query(this.upsert, [1 + Math.floor(this.rnd() * MIX_ISSUES), this.n, T0 + this.n]);
        await client.query("COMMIT");
      } finally {
        client.release();
      }
      if (latencies) latencies.push(performance.now() - began);
    }
    return performance.now() - start;
  }
}

/** Loops running at once against one ledger; `ops` is their total, shared evenly. */
class Concurrent implements Workload {
  constructor(readonly loops: readonly Mix[]) {}

  async run(ops: number, latencies?: number[]): Promise<number> {
    const n = this.loops.length;
    const start = performance.now();
    await Promise.all(this.loops.map((m, i) => m.run(Math.floor(ops / n) + (i < ops % n ? 1 : 0), latencies)));
    return performance.now() - start;
  }
}

/** The URL without its password, for the report. */
function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || "5432"}${u.pathname}`;
  } catch {
    return "BENCH_DATABASE_URL";
  }
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  } finally {
    await client.end();
  }
}

class Interrupted extends Error {}

export async function benchPostgres(args: PostgresBenchArgs): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL ?? DEFAULT_URL;
  const schema = `bench_${randomBytes(6).toString("hex")}`;
  const log = (s: string) => console.log(s);

  // Ctrl-C finishes the current turn, so that the schema is still dropped; a second one quits at once.
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`interrupted: dropping schema ${schema} after the current turn (Ctrl-C again to leave it)`);
  };
  process.on("SIGINT", onSigint);

  let ledger: PostgresLedger | undefined;
  let quietLedger: PostgresLedger | undefined;
  const quietSchema = `${schema}_quiet`;
  try {
    try {
      ledger = await openPostgres({ connectionString: url, schema, poolSize: CLIENTS, clock: "database" });
    } catch (err) {
      console.error(
        `${(err as Error).message}\n(the benchmark connects to BENCH_DATABASE_URL, default ${DEFAULT_URL}, and needs the right to create a schema there)`,
      );
      process.exitCode = 1;
      return;
    }
    const setting = async (name: string) => (await ledger!.pool.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    const version = await setting("server_version");
    log(`issue-leases ledger benchmark: PostgreSQL ${version} at ${describeUrl(url)}, schema ${schema} (dropped at the end)`);
    log(
      `PostgresLedger, clock "database" (the production setting: each operation reads the server's clock), pool of ${CLIENTS}; ` +
        `synchronous_commit=${await setting("synchronous_commit")}, fsync=${await setting("fsync")}`,
    );
    log(`${args.ops} operations per measurement, ${args.rounds} interleaved rounds, medians`);

    quietLedger = await openPostgres({ connectionString: url, schema: quietSchema, poolSize: CLIENTS, clock: "database", events: false });
    const mix = new Mix(ledger, MIX_ISSUES, 1);
    const quietMix = new Mix(quietLedger, MIX_ISSUES, 1);
    const floor = await Floor.create(ledger.pool, schema);
    // The mix's 10,000 issues split four ways: each loop its own issues, as webhooks on different issues.
    const share = MIX_ISSUES / CLIENTS;
    const distinct = new Concurrent(
      Array.from({ length: CLIENTS }, (_, k) => new Mix(ledger!, share, 10 + k, { repo: DISTINCT_REPO, firstIssue: k * share })),
    );
    // One issue, four people each acting as themselves: every operation waits for the others' on the row lock.
    const people: Holder[] = Array.from({ length: CLIENTS }, (_, k) => ({ id: 1_000_001 + k, login: `rival${k + 1}` }));
    const quietDistinct = new Concurrent(
      Array.from({ length: CLIENTS }, (_, k) => new Mix(quietLedger!, share, 10 + k, { repo: DISTINCT_REPO, firstIssue: k * share })),
    );
    const same = new Concurrent(people.map((p, k) => new Mix(ledger!, 1, 20 + k, { repo: CONTENDED_REPO, holders: [p] })));

    const runs: Array<[string, Workload]> = [
      ["mix", mix],
      ["floor", floor],
      ["distinct", distinct],
      ["same", same],
      ["quiet", quietMix],
      ["quietDistinct", quietDistinct],
    ];
    // Warm-up: connections, plans, the first rows of each table.
    for (const [, w] of runs) await w.run(Math.min(WARMUP, args.ops));

    const results = new Map(runs.map(([name]) => [name, [] as number[]]));
    const latencies = new Map(runs.map(([name]) => [name, [] as number[]]));
    const t = performance.now();
    for (let round = 0; round < args.rounds; round++) {
      const ms = new Map(runs.map(([name]) => [name, 0]));
      for (let done = 0, turn = 0; done < args.ops; done += TURN, turn++) {
        const n = Math.min(TURN, args.ops - done);
        for (let i = 0; i < runs.length; i++) {
          if (interrupted) throw new Interrupted();
          const [name, w] = runs[(i + turn + round) % runs.length]!;
          ms.set(name, ms.get(name)! + (await w.run(n, latencies.get(name))));
        }
      }
      for (const [name] of runs) results.get(name)!.push(args.ops / (ms.get(name)! / 1000));
    }
    const measuredS = (performance.now() - t) / 1000;

    const ops = (name: string) => median(results.get(name)!);
    const p = (name: string, q: number) => percentile(latencies.get(name)!, q * 100);
    const mixOps = ops("mix");
    const floorOps = ops("floor");
    const ratio = mixOps / floorOps;

    const labels: Array<[string, string]> = [
      ["mix", "mix (ledger, 1 client), ops/s"],
      ["floor", "floor (one upsert), ops/s"],
      ["distinct", `${CLIENTS} clients, own issues, ops/s`],
      ["same", `${CLIENTS} clients, one issue, ops/s`],
      ["quiet", "mix, events off, ops/s"],
      ["quietDistinct", `${CLIENTS} clients, own issues, events off`],
    ];
    const w = 36;
    const head = ["", ...results.get("mix")!.map((_, i) => `round ${i + 1}`), "median"];
    log("");
    log([head[0]!.padEnd(w), ...head.slice(1).map((h) => pad(h, 10))].join(""));
    for (const [name, label] of labels) {
      log([label.padEnd(w), ...results.get(name)!.map((x) => pad(x.toFixed(0), 10)), pad(ops(name).toFixed(0), 10)].join(""));
    }
    log("");
    log(`${"ledger ÷ floor".padEnd(w)}${pad(ratio.toFixed(2), 10)}`);
    log(`${`${CLIENTS} clients, own issues ÷ 1 client`.padEnd(w)}${pad((ops("distinct") / mixOps).toFixed(2), 10)}`);
    log(`${`${CLIENTS} clients, one issue ÷ 1 client`.padEnd(w)}${pad((ops("same") / mixOps).toFixed(2), 10)}`);
    const eventsRatio = mixOps / ops("quiet");
    const concurrentEventsRatio = ops("distinct") / ops("quietDistinct");
    log(`${"events on ÷ off, 1 client".padEnd(w)}${pad(eventsRatio.toFixed(2), 10)}`);
    log(`${`events on ÷ off, ${CLIENTS} clients`.padEnd(w)}${pad(concurrentEventsRatio.toFixed(2), 10)}`);
    log("");
    log(`${"latency per operation, ms".padEnd(w)}${pad("p50", 10)}${pad("p99", 10)}`);
    for (const [name, label] of labels) {
      log(`${label.replace(/, ops\/s$/, "").padEnd(w)}${pad(p(name, 0.5).toFixed(2), 10)}${pad(p(name, 0.99).toFixed(2), 10)}`);
    }
    log("");
    log(`mix outcomes: ${outcomeShares([mix])}`);
    log(`${CLIENTS} clients, own issues, outcomes: ${outcomeShares(distinct.loops)}`);
    log(`${CLIENTS} clients, one issue, outcomes: ${outcomeShares(same.loops)}`);
    log(`(measured for ${measuredS.toFixed(1)} s)`);

    if (args.json) {
      // The last line of stdout, for scripts.
      const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
      console.log(
        JSON.stringify({
          clock: "database",
          mix_ops_per_s: round(mixOps, 1),
          floor_ops_per_s: round(floorOps, 1),
          ratio: round(ratio, 3),
          concurrent_distinct_ops_per_s: round(ops("distinct"), 1),
          concurrent_same_issue_ops_per_s: round(ops("same"), 1),
          mix_no_events_ops_per_s: round(ops("quiet"), 1),
          events_ratio: round(eventsRatio, 3),
          concurrent_no_events_ops_per_s: round(ops("quietDistinct"), 1),
          concurrent_events_ratio: round(concurrentEventsRatio, 3),
          mix_p50_ms: round(p("mix", 0.5), 3),
          mix_p99_ms: round(p("mix", 0.99), 3),
          floor_p50_ms: round(p("floor", 0.5), 3),
          floor_p99_ms: round(p("floor", 0.99), 3),
          concurrent_distinct_p50_ms: round(p("distinct", 0.5), 3),
          concurrent_distinct_p99_ms: round(p("distinct", 0.99), 3),
          concurrent_same_issue_p50_ms: round(p("same", 0.5), 3),
          concurrent_same_issue_p99_ms: round(p("same", 0.99), 3),
        }),
      );
    }
  } catch (err) {
    if (!(err instanceof Interrupted)) throw err;
    process.exitCode = 130;
  } finally {
    await ledger?.close();
    await quietLedger?.close();
    for (const name of [schema, quietSchema]) {
      await dropSchema(url, name).catch((err: unknown) => {
        // Nothing to drop when the server was never reached.
        if (ledger) console.error(`could not drop schema ${name} (${(err as Error).message}): drop it by hand, DROP SCHEMA ${name} CASCADE`);
      });
    }
    process.removeListener("SIGINT", onSigint);
  }
}
