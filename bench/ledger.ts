/**
 * How fast is the ledger, against what the storage can do at all?
 *
 *   npm run bench:ledger [-- --json] [--ops N] [--rounds N] [--postgres]
 *
 * On a database file in a fresh temp folder, opened with the ledger's own
 * settings (WAL, synchronous=FULL: one fsync per commit):
 *
 *  1. mix: ops/s of a realistic mix (60% acquire, 25% renew, 15% release,
 *     random holders, a moving synthetic clock) over 10,000 issues;
 *  2. floor: ops/s of the cheapest durable write, one `INSERT ... ON CONFLICT
 *     DO UPDATE` per `BEGIN IMMEDIATE` transaction, on a file opened the same
 *     way; and mix ÷ floor (goal >= 0.8): what the ledger's rules cost on top
 *     of the commit every write pays anyway; and a floor that upserts into 4
 *     tables per transaction, as many b-trees as a new tenure writes, and
 *     mix ÷ that: the rules' cost with the pages set aside; and a floor
 *     upserting into 8 tables, as many b-trees as the mix writes per commit
 *     on average, over the one-upsert floor: the ceiling of `ratio`;
 *     The same mix on a ledger opened with `events: false`, and mix ÷ that
 *     (goal >= 0.9): what writing a lease event with each change costs;
 *  3. per-operation time with 1,000 and with 1,000,000 rows in the leases
 *     table (same op mix, same number of ops), and their ratio (goal <= 1.3):
 *     the ledger must not slow down as it grows, since rows are never deleted.
 *     In the big table the measured repository is a busy one (100,000 of the
 *     rows), so that a query reading a whole repository's rows shows here.
 *
 * The measurements run interleaved in rounds, and the medians are reported,
 * so that noise on a shared machine hits all of them alike. Each database is
 * warmed up until its WAL file has filled once (see warmUp).
 *
 * With --postgres, the same mix against PostgresLedger, its floor, and 4
 * concurrent clients instead: see ledger-postgres.ts. Both benches draw their
 * operations from ledger-mix.ts.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type Database from "better-sqlite3";
import { openSqlite } from "../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { HOLDERS, HOUR, median, MIX_ISSUES, Mix, outcomeShares, pad, REPO, T0 } from "./ledger-mix.js";
import { seededRandom } from "../test/support/seeded-random.js";
import { benchPostgres } from "./ledger-postgres.js";
import { benchArgs, usageExit } from "./support/args.js";

/** The issues of REPO the scale measurements work on; both tables hold rows for all of them. */
const SCALE_ISSUES = 1_000;
/** In the big table, REPO is a busy repository with this many rows; other repositories have SCALE_ISSUES each. */
const BIG_REPO_ROWS = 100_000;
/** Operations per turn of each measurement when interleaving. */
const CHUNK = 100;

const GOAL_RATIO = 0.8;
/** B-trees a new tenure writes (sqlite-pages.test.ts): the lease row, its two index entries, the history row. */
const LEDGER_PAGES = 4;
/**
 * B-trees the mix writes per commit on average (7.8 pages read from its WAL,
 * docs/benchmarks.md): a floor writing as many, over the one-upsert floor, is
 * the most `ratio` any ledger writing them can reach, its rules free.
 */
const MIX_PAGES = 8;
const GOAL_SCALE = 1.3;
/** Events on ÷ off (issue 23's `ledger_ratio`). */
const GOAL_EVENTS = 0.9;

const USAGE = "node dist/bench/ledger.js [--json] [--ops N] [--rounds N] [--postgres]";

function parse() {
  const values = benchArgs(USAGE, {
    json: { type: "boolean", default: false },
    ops: { type: "string", default: "3000" },
    rounds: { type: "string", default: "3" },
    postgres: { type: "boolean", default: false },
  });
  const ops = Number(values.ops);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(ops) || ops < 1 || !Number.isInteger(rounds) || rounds < 1) usageExit(USAGE);
  return { json: values.json === true, ops, rounds, postgres: values.postgres === true };
}

/**
 * The floor: one upsert per IMMEDIATE transaction, on a file with the
 * ledger's settings. With `tables` > 1, one upsert into each of that many
 * tables per transaction: as many b-tree pages written per commit as a ledger
 * operation writes (the lease row, the history row, and an index entry or
 * two), with none of its reads or rules.
 */
class Floor {
  private readonly rnd = seededRandom(99);
  /** Upserts so far: each writes a value its row never had, as each ledger operation writes. */
  private n = 0;
  private readonly tx: (k: number, v: number, t: number) => void;

  constructor(
    readonly db: Database.Database,
    tables = 1,
  ) {
    const upserts = Array.from({ length: tables }, (_, i) => {
      const name = i === 0 ? "floor" : `floor_${i + 1}`;
      db.exec(`CREATE TABLE IF NOT EXISTS ${name} (k INTEGER PRIMARY KEY, v INTEGER NOT NULL, t INTEGER NOT NULL)`);
      return db.prepare(
        `INSERT INTO ${name} (k, v, t) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, t = excluded.t`,
      );
    });
    const tx = db.transaction((k: number, v: number, t: number) => {
      for (const upsert of upserts) upsert.run(k, v, t);
    });
    this.tx = (k, v, t) => tx.immediate(k, v, t);
  }

  async run(ops: number): Promise<number> {
    const start = performance.now();
    for (let i = 0; i < ops; i++) {
      // Not the loop's `i`, which starts again at 0 on every call: a row
      // given the value it already holds is not written, and that commit is
      // free (no page, no fsync).
      this.n++;
      // `await` as the ledger's calls do, so that both pay the same for being async.
      await Promise.resolve(this.tx(1 + Math.floor(this.rnd() * MIX_ISSUES), this.n, T0 + this.n));
    }
    return performance.now() - start;
  }
}

/**
 * Fills the leases table to `rows` rows (with one history row each): REPO,
 * whose first SCALE_ISSUES issues the scale mix works on, gets up to
 * BIG_REPO_ROWS of them (a busy repository: its rows are never deleted
 * either), other repositories SCALE_ISSUES each. Plain prepared INSERTs in
 * one transaction.
 */
function bulkLoad(db: Database.Database, rows: number): void {
  const rnd = seededRandom(rows);
  const lease = db.prepare(
    `INSERT INTO leases (repo_id, issue, repo, holder_id, holder_login, token, acquired_at, expires_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const history = db.prepare(
    `INSERT INTO history (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at)
     VALUES (?, ?, ?, 'acquire', 'acquired', ?, ?, ?, ?, ?, ?, ?)`,
  );
  db.transaction(() => {
    const own = Math.min(rows, BIG_REPO_ROWS);
    for (let n = 0; n < rows; n++) {
      const repoId = n < own ? REPO.repoId : 2 + Math.floor((n - own) / SCALE_ISSUES);
      const issue = n < own ? 1 + n : 1 + ((n - own) % SCALE_ISSUES);
      const repo = repoId === REPO.repoId ? REPO.repo : `bench/filler-${repoId}`;
      const id = 1 + Math.floor(rnd() * HOLDERS * 50);
      const login = `user${id}`;
      const token = 1 + Math.floor(rnd() * 5);
      const at = T0 - Math.floor(rnd() * 24 * HOUR);
      const expires = at + HOUR + Math.floor(rnd() * 24 * HOUR);
      // Half held (some expired, unswept), half free after earlier tenures.
      const held = rnd() < 0.5;
      lease.run(repoId, issue, repo, held ? id : null, held ? login : null, token, at, held ? expires : null, at);
      history.run(repoId, repo, issue, id, login, id, login, token, expires, at);
    }
  })();
  db.pragma("wal_checkpoint(TRUNCATE)");
}

/** Runs `m` until the WAL file of `file` has reached the size at which SQLite checkpoints, and a little more. */
async function warmUp(m: { run(ops: number): Promise<number> }, db: Database.Database, file: string): Promise<void> {
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  const frames = db.pragma("wal_autocheckpoint", { simple: true }) as number;
  const full = 32 + frames * (24 + pageSize);
  const size = () => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
  while (size() < full) await m.run(CHUNK);
  await m.run(2 * CHUNK);
}

async function main(): Promise<void> {
  const args = parse();
  if (args.postgres) {
    await benchPostgres(args);
    return;
  }

  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-"));
  const opened: Array<{ close(): unknown }> = [];
  const open = (name: string, events = true) => {
    const l = new SqliteLedger(join(dir, name), { events });
    opened.push(l);
    return l;
  };
  try {
    const log = (s: string) => console.log(s);
    log(`issue-leases ledger benchmark: SQLite in ${dir} (WAL, synchronous=FULL)`);
    log(`${args.ops} operations per measurement, ${args.rounds} interleaved rounds, medians`);

    const mixLedger = open("mix.db");
    const quietLedger = open("mix-no-events.db", false);
    const floorDb = openSqlite(join(dir, "floor.db"));
    opened.push(floorDb);
    const pagesDb = openSqlite(join(dir, "floor-pages.db"));
    opened.push(pagesDb);
    const mixPagesDb = openSqlite(join(dir, "floor-mix-pages.db"));
    opened.push(mixPagesDb);
    const small = open("rows-1k.db");
    const big = open("rows-1m.db");

    let t = performance.now();
    bulkLoad(small.db, 1_000);
    bulkLoad(big.db, 1_000_000);
    const loadS = ((performance.now() - t) / 1000).toFixed(1);
    log(`bulk-loaded 1,000 and 1,000,000 lease rows (${BIG_REPO_ROWS.toLocaleString("en")} in the measured repository), + as many history rows, in ${loadS} s`);

    const mix = new Mix(mixLedger, MIX_ISSUES, 1);
    // Same seed: the very operations of the mix, writing no events.
    const quiet = new Mix(quietLedger, MIX_ISSUES, 1);
    const floor = new Floor(floorDb);
    const floorPages = new Floor(pagesDb, LEDGER_PAGES);
    const floorMixPages = new Floor(mixPagesDb, MIX_PAGES);
    // Same seed: the two scale runs perform the very same operations.
    const scaleSmall = new Mix(small, SCALE_ISSUES, 2);
    const scaleBig = new Mix(big, SCALE_ISSUES, 2);
    // Warm-up: caches, statement preparation, and the WAL file filled up once.
    // Until its first checkpoint a WAL file grows, and an fsync that grows a
    // file writes its metadata too; afterwards commits overwrite frames in
    // place, as in a server that has been running. The floor, writing a
    // quarter of the pages per commit, would otherwise spend most of its
    // measurement in the slow first cycle.
    await warmUp(mix, mixLedger.db, join(dir, "mix.db"));
    await warmUp(quiet, quietLedger.db, join(dir, "mix-no-events.db"));
    await warmUp(floor, floorDb, join(dir, "floor.db"));
    await warmUp(floorPages, pagesDb, join(dir, "floor-pages.db"));
    await warmUp(floorMixPages, mixPagesDb, join(dir, "floor-mix-pages.db"));
    await warmUp(scaleSmall, small.db, join(dir, "rows-1k.db"));
    await warmUp(scaleBig, big.db, join(dir, "rows-1m.db"));

    const results = { mix: [] as number[], quiet: [] as number[], floor: [] as number[], pages: [] as number[], mixPages: [] as number[], small: [] as number[], big: [] as number[] };
    const runs: Array<[keyof typeof results, Mix | Floor]> = [
      ["mix", mix],
      ["quiet", quiet],
      ["floor", floor],
      ["pages", floorPages],
      ["mixPages", floorMixPages],
      ["small", scaleSmall],
      ["big", scaleBig],
    ];
    t = performance.now();
    for (let round = 0; round < args.rounds; round++) {
      // Interleaved in small chunks, in an order that rotates, so that a burst
      // of load on the machine hits every measurement alike.
      const ms = new Map(runs.map(([name]) => [name, 0]));
      for (let done = 0, chunk = 0; done < args.ops; done += CHUNK, chunk++) {
        const n = Math.min(CHUNK, args.ops - done);
        for (let i = 0; i < runs.length; i++) {
          const [name, m] = runs[(i + chunk + round) % runs.length]!;
          ms.set(name, ms.get(name)! + (await m.run(n)));
        }
      }
      for (const [name] of runs) results[name].push(args.ops / (ms.get(name)! / 1000));
    }
    const measuredS = (performance.now() - t) / 1000;

    const mixOps = median(results.mix);
    const quietOps = median(results.quiet);
    const floorOps = median(results.floor);
    const pagesOps = median(results.pages);
    const mixPagesOps = median(results.mixPages);
    const us = (opsPerS: number) => 1e6 / opsPerS;
    const us1k = median(results.small.map(us));
    const us1m = median(results.big.map(us));
    const ratio = mixOps / floorOps;
    const scale = us1m / us1k;

    const rows: Array<[string, number[], number, (x: number) => string]> = [
      ["mix (ledger), ops/s", results.mix, mixOps, (x) => x.toFixed(0)],
      ["mix, events off, ops/s", results.quiet, quietOps, (x) => x.toFixed(0)],
      ["floor (one upsert), ops/s", results.floor, floorOps, (x) => x.toFixed(0)],
      [`floor, ${LEDGER_PAGES} b-trees, ops/s`, results.pages, pagesOps, (x) => x.toFixed(0)],
      [`floor, ${MIX_PAGES} b-trees, ops/s`, results.mixPages, mixPagesOps, (x) => x.toFixed(0)],
      ["per op, 1k rows, µs", results.small.map(us), us1k, (x) => x.toFixed(1)],
      ["per op, 1M rows, µs", results.big.map(us), us1m, (x) => x.toFixed(1)],
    ];
    const head = ["", ...results.mix.map((_, i) => `round ${i + 1}`), "median"];
    log("");
    log([head[0]!.padEnd(28), ...head.slice(1).map((h) => pad(h, 10))].join(""));
    for (const [label, xs, med, fmt] of rows) log([label.padEnd(28), ...xs.map((x) => pad(fmt(x), 10)), pad(fmt(med), 10)].join(""));
    log("");
    const verdict = (ok: boolean) => (ok ? "ok" : "MISSED");
    log(`${"ledger ÷ floor".padEnd(28)}${pad(ratio.toFixed(2), 10)}   goal >= ${GOAL_RATIO}   ${verdict(ratio >= GOAL_RATIO)}`);
    log(`${`ledger ÷ ${LEDGER_PAGES}-b-tree floor`.padEnd(28)}${pad((mixOps / pagesOps).toFixed(2), 10)}   (the rules' cost, pages aside)`);
    log(`${`${MIX_PAGES}-b-tree floor ÷ floor`.padEnd(28)}${pad((mixPagesOps / floorOps).toFixed(2), 10)}   (the most ratio a ledger writing the mix's pages can reach)`);
    const eventsRatio = mixOps / quietOps;
    log(`${"events on ÷ off".padEnd(28)}${pad(eventsRatio.toFixed(2), 10)}   goal >= ${GOAL_EVENTS}   ${verdict(eventsRatio >= GOAL_EVENTS)}`);
    log(`${"1M rows ÷ 1k rows, per op".padEnd(28)}${pad(scale.toFixed(2), 10)}   goal <= ${GOAL_SCALE}   ${verdict(scale <= GOAL_SCALE)}`);
    log(`mix outcomes: ${outcomeShares([mix])}`);
    log(`(measured for ${measuredS.toFixed(1)} s)`);

    if (args.json) {
      // The last line of stdout, for scripts.
      const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
      console.log(
        JSON.stringify({
          mix_ops_per_s: round(mixOps, 1),
          floor_ops_per_s: round(floorOps, 1),
          ratio: round(ratio, 3),
          floor_pages_ops_per_s: round(pagesOps, 1),
          ratio_same_pages: round(mixOps / pagesOps, 3),
          floor_mix_pages_ops_per_s: round(mixPagesOps, 1),
          ceiling_ratio: round(mixPagesOps / floorOps, 3),
          mix_no_events_ops_per_s: round(quietOps, 1),
          events_ratio: round(eventsRatio, 3),
          op_us_1k: round(us1k, 1),
          op_us_1m: round(us1m, 1),
          scale_ratio: round(scale, 3),
        }),
      );
    }
  } finally {
    for (const l of opened) await l.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
