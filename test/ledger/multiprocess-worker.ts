/**
 * One of the processes of multiprocess.test.ts: opens the shared database with
 * the real SqliteLedger, waits for "go", then races acquire, release, renew
 * and the odd sweep on a few issues with the real clock, and reports back
 * over IPC. Run as JavaScript transpiled by the test (no build needed).
 */
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { Holder, IssueKey } from "../../src/ledger/leases/lease-types.js";
import { seededRandom } from "../support/seeded-random.js";

export interface WorkerConfig {
  file: string;
  repo: { repoId: number; repo: string };
  worker: number;
  ops: number;
  issues: number[];
  seed: number;
}

export interface WorkerError {
  op: string;
  code: string | null;
  message: string;
}

export interface WorkerReport {
  worker: number;
  /** Outcomes seen, as `op:outcome` -> count. */
  outcomes: Record<string, number>;
  /** Calls that returned (a sweep that found nothing expired is one call and no outcome). */
  completed: number;
  /** Every new tenure this process was handed. */
  tenures: Array<{ issue: number; token: number; holderId: number }>;
  errors: WorkerError[];
}

export type ToWorker = { type: "start"; config: WorkerConfig } | { type: "go" };
export type FromWorker = { type: "ready" } | { type: "done"; report: WorkerReport } | { type: "failed"; error: WorkerError };

function describeError(op: string, err: unknown): WorkerError {
  const e = err as { code?: unknown; message?: unknown };
  return { op, code: typeof e?.code === "string" ? e.code : null, message: String(e?.message ?? err) };
}

async function race(ledger: SqliteLedger, config: WorkerConfig): Promise<WorkerReport> {
  const rnd = seededRandom(config.seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  // Two holders per process, so a process also races itself across calls.
  const holders: Holder[] = [0, 1].map((k) => ({ id: config.worker * 10 + k, login: `w${config.worker}h${k}` }));
  const report: WorkerReport = { worker: config.worker, outcomes: {}, completed: 0, tenures: [], errors: [] };
  const count = (name: string) => (report.outcomes[name] = (report.outcomes[name] ?? 0) + 1);

  for (let i = 0; i < config.ops; i++) {
    const key: IssueKey = { ...config.repo, issue: pick(config.issues) };
    const holder = pick(holders);
    // Short ttls against the real clock, so that leases expire mid-race.
    const ttl = 1 + Math.floor(rnd() * 15);
    const roll = rnd();
    const op = roll < 0.5 ? "acquire" : roll < 0.8 ? "release" : roll < 0.95 ? "renew" : "sweep";
    try {
      switch (op) {
        case "acquire": {
          const r = await ledger.acquire(key, holder, ttl, Date.now());
          count(`acquire:${r.outcome}`);
          if (r.outcome === "acquired" && r.newTenure) {
            report.tenures.push({ issue: key.issue, token: r.lease.token, holderId: r.lease.holder.id });
          }
          break;
        }
        case "release":
          count(`release:${(await ledger.release(key, holder, Date.now())).outcome}`);
          break;
        case "renew":
          count(`renew:${(await ledger.renew(key, holder, ttl, Date.now())).outcome}`);
          break;
        case "sweep":
          for (const l of await ledger.expiredSince(Date.now(), 10)) {
            count(`expire:${(await ledger.markExpired(l, l.token, Date.now())).outcome}`);
          }
          break;
      }
      report.completed++;
    } catch (err) {
      report.errors.push(describeError(op, err));
    }
  }
  return report;
}

function send(message: FromWorker): Promise<void> {
  return new Promise((resolve, reject) => process.send!(message, undefined, {}, (err) => (err ? reject(err) : resolve())));
}

let ledger: SqliteLedger | undefined;
let config: WorkerConfig | undefined;

process.on("message", (message: ToWorker) => {
  void (async () => {
    try {
      if (message.type === "start") {
        config = message.config;
        // All processes open (and migrate) the fresh file at once: that races too.
        ledger = new SqliteLedger(config.file);
        await send({ type: "ready" });
      } else {
        const report = await race(ledger!, config!);
        await ledger!.close();
        await send({ type: "done", report });
        process.disconnect();
      }
    } catch (err) {
      await send({ type: "failed", error: describeError(message.type, err) });
      process.disconnect();
    }
  })();
});
