/**
 * Seeds leases for the drain benchmark through the app itself, in a process
 * of its own so that its memory is not the benchmark's: `/claim` deliveries
 * go through Probot and issue-leases into the ledger, and the drainer applies
 * them to the fake GitHub (labels, assignee, reply), so that the labels exist
 * there and in the drainer's memory of each issue, as they would after real
 * claims. Seeding is not measured, so GitHub pacing is off and the ledger
 * skips fsync while seeding (the file is reopened with the ledger's own
 * settings afterwards).
 *
 *   node dist/bench/support/seed-leases.js '<SeedOptions as JSON>'
 *
 * Reports `{ seeded, ms, pending, parked }` to the parent over IPC.
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { issueLeases, type Runtime } from "../../src/app.js";
import { openSqlite } from "../../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { commentPayload } from "../../test/support/payloads.js";
import { APP_ID, newProbot } from "./probot.js";
import { benchRepo, inRepo } from "./repos.js";

export interface SeedOptions {
  baseUrl: string;
  dbFile: string;
  /** How many repositories (`benchRepo(0..)`); issues 1..issuesPerRepo in each. */
  repos: number;
  issuesPerRepo: number;
  holders: number;
  /** The claim's duration, as typed: `/claim <ttl>`. */
  ttl: string;
  /** The ledger clock while seeding. */
  at: number;
}

export interface SeedReport {
  seeded: number;
  ms: number;
  pending: number;
  parked: number;
}

async function main(): Promise<void> {
  const o = JSON.parse(process.argv[2]!) as SeedOptions;
  const db = openSqlite(o.dbFile);
  db.pragma("synchronous = OFF");
  const probot = newProbot(o.baseUrl, { kind: "off" });
  let runtime: Runtime | undefined;
  await probot.load(
    issueLeases({
      ledger: new SqliteLedger(db),
      clock: () => o.at,
      background: false,
      handleSignals: false,
      appId: APP_ID,
      // Seeding with GitHub's pacing off: its budget too.
      budget: null,
      onReady: (r) => (runtime = r),
    }),
  );
  if (!runtime) throw new Error("issue-leases did not start");
  const t = performance.now();
  let n = 0;
  const chunk: Array<Promise<void>> = [];
  for (let r = 0; r < o.repos; r++) {
    for (let issue = 1; issue <= o.issuesPerRepo; issue++, n++) {
      const h = n % o.holders;
      const payload = inRepo(
        commentPayload({
          body: `/claim ${o.ttl}`,
          author: { login: `holder${h}`, id: 3_000_000 + h, association: "CONTRIBUTOR" },
          issue,
        }),
        benchRepo(r),
      );
      chunk.push(probot.receive({ id: randomUUID(), name: "issue_comment", payload } as never));
      if (chunk.length === 250) {
        await Promise.all(chunk.splice(0));
        await runtime.drainer.drainAll();
      }
    }
  }
  await Promise.all(chunk);
  await runtime.drainer.drainAll();
  const stats = await runtime.ledger.outboxStats();
  const report: SeedReport = { seeded: n, ms: performance.now() - t, pending: stats.pending, parked: stats.parked };
  await runtime.shutdown();
  process.send?.(report, () => process.exit(0));
}

await main();
