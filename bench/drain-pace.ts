/**
 * The outbox at the throttle's pace (the `pace` part of `bench:drain`): N
 * claims on N issues of one installation, sent at once, drained through
 * Probot's own throttling plugin (its Bottleneck groups, `scale` times
 * faster than production) to the fake GitHub in a child process.
 *
 * Reported, measured in one run:
 * - `pace_floor_s`: what the plugin's pacing alone needs for the requests
 *   the app made (writes `1 s / scale` apart, comments `3 s / scale` apart);
 * - `drain_s`: from the first delivery to an empty outbox;
 * - `pace_ratio = pace_floor_s / drain_s` (goal >= 0.9);
 * - `timeouts`: requests the app aborted itself (its time limit), counted
 *   at `fetch` in this process (goal 0);
 * - `parked` (goal 0) and `duplicates`: replies posted more than once (goal 0).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { issueLeases, type Runtime } from "../src/app.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { REQUEST_TIMEOUT_MS } from "../src/github/github-port.js";
import { commentPayload } from "../test/support/payloads.js";
import { startRemoteFake } from "./support/fake-process.js";
import { APP_ID, newProbot } from "./support/probot.js";
import { benchRepo, inRepo } from "./support/repos.js";

export interface PaceResult {
  effects: number;
  scale: number;
  pace_floor_s: number;
  drain_s: number;
  pace_ratio: number;
  timeouts: number;
  parked: number;
  duplicates: number;
  writes: number;
  comments: number;
}

/** Counts requests that the app's own time limit aborted, at the `fetch` every Octokit request goes through. */
function countTimeouts(): { count(): number; restore(): void } {
  const original = globalThis.fetch;
  let timeouts = 0;
  globalThis.fetch = (async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    try {
      return await original(input, init);
    } catch (error) {
      const name = (error as Error)?.name;
      if (name === "TimeoutError" || name === "AbortError") timeouts += 1;
      throw error;
    }
  }) as typeof fetch;
  return { count: () => timeouts, restore: () => (globalThis.fetch = original) };
}

export async function runPace(opts: { effects: number; scale: number; log: (line: string) => void }): Promise<PaceResult> {
  const { effects, scale, log } = opts;
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-pace-"));
  const fake = await startRemoteFake({ appId: APP_ID });
  const aborted = countTimeouts();
  let runtime: Runtime | undefined;
  try {
    const repo = benchRepo(0);
    const writeMs = 1000 / scale;
    log(`pace: ${effects} claims on ${effects} issues of one installation; Probot's throttling plugin ${scale}× faster (writes ${writeMs} ms apart, comments ${3 * writeMs} ms apart), retries on`);
    const ledger = new SqliteLedger(join(dir, "leases.db"));
    const probot = newProbot(fake.baseUrl, { kind: "plugin", scale });
    await probot.load(
      issueLeases({
        ledger,
        background: true,
        sweepIntervalMs: 60_000,
        handleSignals: false,
        appId: APP_ID,
        // The request time limit scaled with the pacing: queued requests would outlast it many times over.
        requestTimeoutMs: REQUEST_TIMEOUT_MS / scale,
        onReady: (r) => (runtime = r),
      }),
    );
    if (!runtime) throw new Error("issue-leases did not start");
    const rt = runtime;
    await fake.summary();

    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: effects }, (_, i) => {
        // 60 people, none over the replies-per-hour limit.
        const author = { login: `pacer-${i % 60}`, id: 3_000_000 + (i % 60), association: "CONTRIBUTOR" };
        const payload = inRepo(commentPayload({ body: "/claim", author, issue: i + 1 }), repo);
        return probot.receive({ id: randomUUID(), name: "issue_comment", payload } as never);
      }),
    );
    const deadline = t0 + Math.max(120_000, effects * 3 * 3 * writeMs * 4);
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      if ((await ledger.outboxStats()).pending === 0) break;
      if (performance.now() > deadline) throw new Error("pace: not drained in time");
    }
    const drainMs = performance.now() - t0;
    const stats = await ledger.outboxStats();
    await rt.shutdown();
    runtime = undefined;

    const calls = await fake.summary();
    const census = await fake.census([`${repo.owner}/${repo.name}`], effects);
    const acquired = census.replies.acquired ?? {};
    const duplicates = Object.entries(acquired).reduce((sum, [count, issues]) => sum + Math.max(0, Number(count) - 1) * issues, 0);
    const floorMs = Math.max(calls.writes * writeMs, calls.comments * 3 * writeMs);
    const result: PaceResult = {
      effects,
      scale,
      pace_floor_s: Math.round(floorMs / 100) / 10,
      drain_s: Math.round(drainMs / 100) / 10,
      pace_ratio: Math.round((floorMs / drainMs) * 1000) / 1000,
      timeouts: aborted.count(),
      parked: stats.parked,
      duplicates,
      writes: calls.writes,
      comments: calls.comments,
    };
    if ((acquired["1"] ?? 0) !== effects) throw new Error(`pace: replies per issue ${JSON.stringify(census.replies)}, expected one each`);
    log(
      `pace: floor ${result.pace_floor_s} s (${calls.writes} writes, ${calls.comments} comments), drained in ${result.drain_s} s: ` +
        `ratio ${result.pace_ratio} (goal >= 0.9); ${result.timeouts} aborted by the app, ${result.parked} parked, ${result.duplicates} replies twice`,
    );
    return result;
  } finally {
    await runtime?.shutdown();
    aborted.restore();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
