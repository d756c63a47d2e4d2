/**
 * The outbox at the throttle's pace (the `pace` part of `bench:drain`): N
 * claims on N issues of one installation, sent at once, drained through
 * Probot's own throttling plugin (its Bottleneck groups, `scale` times
 * faster than production) to the fake GitHub in a child process.
 *
 * The fake enforces GitHub's limits (80 content-creating requests a minute,
 * 500 an hour, 900 points a minute, scaled alike), and the app keeps its
 * budget (github/budget.ts) on the same scaled windows. Then a tenth of the
 * claims are released, to count a release's requests.
 *
 * Reported, measured in one run:
 * - `pace_floor_s`: the least time the plugin's pacing (writes `1 s / scale`
 *   apart, comments `3 s / scale` apart) and GitHub's content limits allow
 *   for the requests the app made;
 * - `drain_s`: from the first delivery to an empty outbox;
 * - `pace_ratio = pace_floor_s / drain_s` (goal >= 0.9);
 * - `timeouts`: requests the app aborted itself (its time limit), counted
 *   at `fetch` in this process (goal 0);
 * - `parked` (goal 0) and `duplicates`: replies posted more than once (goal 0);
 * - `requests_per_claim` and `requests_per_release`: GitHub requests per
 *   command, reads included; `requests_per_next_claim`: of an agent's claim
 *   after it claimed an issue and released it (its labels made before);
 *   `limit_hits`: requests GitHub refused (goal 0).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { issueLeases, type Runtime } from "../src/app.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { REQUEST_TIMEOUT_MS } from "../src/github/timed-fetch.js";
import { commentPayload, type UserSpec } from "../test/support/payloads.js";
import { startRemoteFake } from "./support/fake-process.js";
import { APP_ID, newProbot } from "./support/probot.js";
import { benchRepo, inRepo, known } from "./support/repos.js";

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
  requests_per_claim: number;
  requests_per_release: number;
  /** An agent's steady state: requests of its next claim, after it claimed an issue and let it go. */
  requests_per_next_claim: number;
  /** Requests the fake refused over a limit, claims and releases (goal 0). */
  limit_hits: number;
}

/** GitHub's documented secondary limits on content-creating requests. */
export const CONTENT_PER_MINUTE = 80;
export const CONTENT_PER_HOUR = 500;
/** GitHub's REST points a minute (a write 5, a read 1). */
export const POINTS_PER_MINUTE = 900;

/** The fake's limits, GitHub's, with windows `scale` times shorter. */
export function githubLimits(scale: number) {
  return {
    content: [
      { max: CONTENT_PER_MINUTE, windowMs: 60_000 / scale },
      { max: CONTENT_PER_HOUR, windowMs: 3_600_000 / scale },
    ],
    points: { max: POINTS_PER_MINUTE, windowMs: 60_000 / scale },
  };
}

/** The app's budget and least pause on the same scaled windows. */
export function scaledBudget(scale: number) {
  return { budget: { minuteMs: 60_000 / scale, hourMs: 3_600_000 / scale }, minPauseMs: 60_000 / scale };
}

/**
 * The least time, in production seconds, GitHub's content limits allow for
 * `n` content-creating requests, sent the moment each window lets them: the
 * k-th (from 0) no sooner than a minute after the (k − 80)-th and an hour
 * after the (k − 500)-th.
 */
export function contentFloorS(n: number): number {
  const at: number[] = [];
  for (let k = 0; k < n; k++) {
    at.push(Math.max(k >= CONTENT_PER_MINUTE ? at[k - CONTENT_PER_MINUTE]! + 60 : 0, k >= CONTENT_PER_HOUR ? at[k - CONTENT_PER_HOUR]! + 3600 : 0));
  }
  return at[n - 1] ?? 0;
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
    const agents = 20;
    await fake.know(known([repo]), [...Array.from({ length: 60 }, (_, i) => `pacer-${i}`), ...Array.from({ length: agents }, (_, k) => `agent-${k}`)]);
    const writeMs = 1000 / scale;
    log(`pace: ${effects} claims on ${effects} issues of one installation; Probot's throttling plugin ${scale}× faster (writes ${writeMs} ms apart, comments ${3 * writeMs} ms apart), retries on`);
    const ledger = new SqliteLedger(join(dir, "leases.db"));
    const probot = newProbot(fake.baseUrl, { kind: "plugin", scale });
    const limits = githubLimits(scale);
    await fake.setLimits(limits.content, limits.points);
    const { budget, minPauseMs } = scaledBudget(scale);
    await probot.load(
      issueLeases({
        ledger,
        background: true,
        sweepIntervalMs: 60_000,
        handleSignals: false,
        appId: APP_ID,
        // The request time limit scaled with the pacing: queued requests would outlast it many times over.
        requestTimeoutMs: REQUEST_TIMEOUT_MS / scale,
        budget,
        drainer: { minPauseMs },
        onReady: (r) => (runtime = r),
      }),
    );
    if (!runtime) throw new Error("issue-leases did not start");
    const rt = runtime;
    await fake.summary();

    // 60 people, none over the replies-per-hour limit.
    const author = (i: number) => ({ login: `pacer-${i % 60}`, id: 3_000_000 + (i % 60), association: "CONTRIBUTOR" });
    const send = (body: string, who: UserSpec, issue: number) =>
      probot.receive({ id: randomUUID(), name: "issue_comment", payload: inRepo(commentPayload({ body, author: who, issue }), repo) } as never);
    const command = (body: string, i: number) => send(body, author(i), i + 1);
    const drained = async (deadline: number) => {
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        if ((await ledger.outboxStats()).pending === 0) return;
        if (performance.now() > deadline) throw new Error("pace: not drained in time");
      }
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: effects }, (_, i) => command("/claim", i)));
    // Far beyond the pacing's and the content limits' least time.
    await drained(t0 + Math.max(120_000, effects * 3 * 3 * writeMs * 4, ((contentFloorS(effects * 3) * 1000) / scale) * 3));
    const drainMs = performance.now() - t0;
    const calls = await fake.summary();

    // A tenth of them released by their holders, to count a release's requests.
    const releases = Math.max(1, Math.floor(effects / 10));
    const r0 = performance.now();
    await Promise.all(Array.from({ length: releases }, (_, i) => command("/release", i)));
    await drained(r0 + Math.max(120_000, releases * 5 * 3 * writeMs * 4));
    const releaseCalls = await fake.summary();

    // An agent's steady state: twenty agents each claim an issue and let it go; their next claims are counted.
    const agent = (k: number): UserSpec => ({ login: `agent-${k}`, id: 3_100_000 + k, association: "CONTRIBUTOR" });
    const each = async (body: string, issue: (k: number) => number) => {
      const a0 = performance.now();
      await Promise.all(Array.from({ length: agents }, (_, k) => send(body, agent(k), issue(k))));
      await drained(a0 + Math.max(120_000, agents * 5 * 3 * writeMs * 4));
    };
    await each("/claim", (k) => effects + 1 + k);
    await each("/release", (k) => effects + 1 + k);
    await fake.summary();
    await each("/claim", (k) => effects + 1 + agents + k);
    const nextCalls = await fake.summary();
    const stats = await ledger.outboxStats();
    await rt.shutdown();
    runtime = undefined;

    const census = await fake.census([`${repo.owner}/${repo.name}`], effects);
    const acquired = census.replies.acquired ?? {};
    const duplicates = Object.entries(acquired).reduce((sum, [count, issues]) => sum + Math.max(0, Number(count) - 1) * issues, 0);
    const floorMs = Math.max(calls.writes * writeMs, calls.comments * 3 * writeMs, (contentFloorS(calls.content) * 1000) / scale);
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
      requests_per_claim: Math.round((calls.requests / effects) * 100) / 100,
      requests_per_release: Math.round((releaseCalls.requests / releases) * 100) / 100,
      requests_per_next_claim: Math.round((nextCalls.requests / agents) * 100) / 100,
      limit_hits: releaseCalls.refused + nextCalls.refused,
    };
    if ((acquired["1"] ?? 0) !== effects) throw new Error(`pace: replies per issue ${JSON.stringify(census.replies)}, expected one each`);
    log(
      `pace: floor ${result.pace_floor_s} s (${calls.writes} writes, ${calls.comments} comments, ${calls.content} content-creating), ` +
        `drained in ${result.drain_s} s: ratio ${result.pace_ratio} (goal >= 0.9); ${result.timeouts} aborted by the app, ` +
        `${result.parked} parked, ${result.duplicates} replies twice, ${result.limit_hits} refused over GitHub's limits`,
    );
    log(
      `pace: GitHub requests per claim ${result.requests_per_claim}, per release ${result.requests_per_release}, ` +
        `per agent's next claim ${result.requests_per_next_claim} (reads included)`,
    );
    return result;
  } finally {
    await runtime?.shutdown();
    aborted.restore();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
