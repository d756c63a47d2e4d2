/**
 * Does the board slow down as the ledger grows?
 *
 *   npm run bench:dashboard [-- --json] [--renders N] [--rounds N]
 *
 * Two SQLite ledgers (WAL, synchronous=FULL, the app's settings), filled
 * through the ledger's own operations: 10,000 live leases in 500
 * repositories (20 each, 500 holders), and 100 live leases in 5 (20 each,
 * 5 holders); in both, repositories seen public in a webhook, every issue's
 * title and labels remembered, expiries spread over 30 days (one lease in
 * 10 within the next 24 hours), and one issue in 10 with an earlier tenure
 * ended by a release: alike per repository (see fill). Then the time
 * to render the board's first page for an anonymous visitor, as the server
 * does for GET /leases: the ledger's reads (the page of 100 and the side
 * panels) and the HTML. Renders of the two alternate one by one, in rounds,
 * and the medians are reported: `ms_10k`, `ms_100`, and `scale_ratio` = ms_10k ÷
 * ms_100 (goal ≤ 1.5: the page reads what it shows, through indexes).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { loadBoard, type BoardFilters } from "../src/dashboard/queries.js";
import { renderBoard } from "../src/dashboard/render.js";
import { openSqlite } from "../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { seededRandom } from "../test/support/seeded-random.js";
import { benchArgs, usageExit } from "./support/args.js";
import { median, reporter, round } from "./support/report.js";

const USAGE = "node dist/bench/dashboard.js [--json] [--renders N] [--rounds N]";
const GOAL = 1.5;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = 1_800_000_000_000;
const PER_REPO = 20;
const LEASES_PER_HOLDER = 20;

function parse() {
  const values = benchArgs(USAGE, {
    json: { type: "boolean", default: false },
    renders: { type: "string", default: "200" },
    rounds: { type: "string", default: "5" },
  });
  const renders = Number(values.renders);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(renders) || renders < 1 || !Number.isInteger(rounds) || rounds < 1) usageExit(USAGE);
  return { json: values.json === true, renders, rounds };
}

const LABELS = ["bug", "enhancement", "documentation", "good first issue", "help wanted"];

/**
 * `leases` live leases in leases / PER_REPO public repositories, through the
 * ledger's operations (not timed). Every repository looks alike, so that
 * the first page and its panels are as full with 100 leases as with
 * 10,000: in each, 2 of its 20 leases expire within the next 24 hours, and
 * 2 issues had an earlier tenure that ended by a release.
 */
async function fill(file: string, leases: number): Promise<SqliteLedger> {
  const db = openSqlite(file);
  db.pragma("synchronous = OFF"); // seeding only; reopened below with the ledger's settings
  const seeding = new SqliteLedger(db);
  const rnd = seededRandom(leases);
  const repos = leases / PER_REPO;
  const holders = Math.max(1, leases / LEASES_PER_HOLDER);
  for (let r = 0; r < repos; r++) {
    const repoId = 1_000 + r;
    const repo = `bench-org/repo-${r}`;
    await seeding.rememberVisibility({ repoId, repo, installation: 1, private: false }, T0 - DAY);
    for (let i = 1; i <= PER_REPO; i++) {
      const id = 1 + Math.floor(rnd() * holders);
      const key = { repoId, repo, issue: i };
      const at = T0 - Math.floor(rnd() * 3 * DAY);
      const labels = [LABELS[Math.floor(rnd() * LABELS.length)]!, "claimed", `claimed-by: user${id}`];
      await seeding.rememberCard({ repoId, issue: i, title: `Issue ${i} of ${repo}: make the thing <faster>`, labels }, at, true);
      if (i === 3 || i === 4) {
        const earlier = { id: holders + id, login: `past${id}` };
        await seeding.acquire(key, earlier, DAY, at - 2 * HOUR);
        await seeding.release(key, earlier, at - HOUR);
      }
      const until = T0 + (i <= 2 ? HOUR + Math.floor(rnd() * 22 * HOUR) : DAY + HOUR + Math.floor(rnd() * 29 * DAY));
      await seeding.acquire(key, { id, login: `user${id}` }, until - at, at);
    }
  }
  await seeding.close();
  return new SqliteLedger(file);
}

/** Time spent in the ledger's reads, of the last render. */
let readMs = 0;

async function render(ledger: SqliteLedger): Promise<number> {
  const f: BoardFilters = { mine: false, page: 1 };
  const t = performance.now();
  const result = await loadBoard(ledger, f, null, T0);
  readMs = performance.now() - t;
  if (result.kind !== "board") throw new Error(`the board answered ${result.kind}`);
  const html = renderBoard(
    { now: T0, web: "https://github.com", viewer: null, signIn: true, here: "/leases" },
    f,
    { leases: result.page.leases, more: result.page.more, total: result.page.total, panels: result.panels!, repo: null },
  );
  return html.length;
}

async function main(): Promise<void> {
  const args = parse();
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-board-"));
  const opened: SqliteLedger[] = [];
  try {
    log(`issue-leases board benchmark: SQLite in ${dir} (WAL, synchronous=FULL)`);
    let t = performance.now();
    const big = await fill(join(dir, "10k.db"), 10_000);
    const small = await fill(join(dir, "100.db"), 100);
    opened.push(big, small);
    log(`filled 10,000 live leases in 500 repositories and 100 in 5, through the ledger, in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // What the first page shows, checked once: a full page, every panel, and the same page size for both.
    const bytes = { big: await render(big), small: await render(small) };
    const first = await loadBoard(big, { mine: false, page: 1 }, null, T0);
    if (first.kind !== "board" || first.page.leases.length !== 100 || !first.page.more || !first.panels?.holders.length || !first.panels.ended.length) {
      throw new Error("the 10,000-lease board does not show a full first page with its panels");
    }
    for (let i = 0; i < 50; i++) {
      await render(big);
      await render(small);
    }
    const times = { big: [] as number[], small: [] as number[] };
    const reads = { big: [] as number[], small: [] as number[] };
    // Renders alternate one by one, so that load from elsewhere on the machine falls on both alike.
    for (let r = 0; r < args.rounds; r++) {
      for (let i = 0; i < args.renders; i++) {
        for (const [name, ledger] of (i % 2 ? [["big", big], ["small", small]] : [["small", small], ["big", big]]) as Array<["big" | "small", SqliteLedger]>) {
          t = performance.now();
          await render(ledger);
          times[name].push(performance.now() - t);
          reads[name].push(readMs);
        }
      }
    }
    const ms10k = median(times.big);
    const ms100 = median(times.small);
    const ratio = ms10k / ms100;
    log(`${args.rounds} rounds of ${args.renders} renders each, medians:`);
    const r10k = median(reads.big);
    const r100 = median(reads.small);
    log(`  first page, 10,000 leases in 500 repositories: ${ms10k.toFixed(3)} ms, of which the ledger's reads ${r10k.toFixed(3)} ms (${bytes.big} bytes of HTML)`);
    log(`  first page, 100 leases in 5 repositories:      ${ms100.toFixed(3)} ms, of which the ledger's reads ${r100.toFixed(3)} ms (${bytes.small} bytes of HTML)`);
    log(`  scale_ratio ${ratio.toFixed(2)} (goal <= ${GOAL})${ratio <= GOAL ? "" : "  MISSED"}`);
    if (args.json) {
      console.log(
        JSON.stringify({
          ms_10k: round(ms10k, 3),
          ms_100: round(ms100, 3),
          scale_ratio: round(ratio, 2),
          reads_ms_10k: round(r10k, 3),
          reads_ms_100: round(r100, 3),
          goal: GOAL,
          met: ratio <= GOAL,
        }),
      );
    }
  } finally {
    for (const l of opened) await l.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
