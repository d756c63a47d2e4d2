/**
 * Ten thousand leases expiring at once: does every expiry reach GitHub,
 * within GitHub's content-creation limit, in bounded memory?
 *
 *   npm run bench:drain [-- --json] [--leases N] [--scale N]
 *
 * 1. Seed (not measured, in a child process): `/claim 10m` on N issues (5
 *    repositories, 1,000 people) through Probot and issue-leases, drained to
 *    the fake GitHub, so that labels, assignees and the drainer's memory of
 *    each issue exist as after real claims.
 * 2. Measure: the ledger's clock jumps past the expiry, and the app starts as
 *    in production (SQLite with WAL + synchronous=FULL, its own sweeper and
 *    drainer loops, the sweeper's default batch of 100 per pass, its budget
 *    of GitHub's limits) against the fake GitHub in a child process enforcing
 *    GitHub's secondary limits: 80 content-creating requests a minute and 500
 *    an hour, 900 points a minute. Everything runs `scale` times faster than
 *    in production: the limits' windows (60 s / scale, 3,600 s / scale), the
 *    app's budget alike, Probot's Octokit pacing (writes 1 s / scale apart, comments
 *    3 s / scale apart, per installation, with retries on as in production;
 *    the throttling plugin's logic, with drift-free groups: `pacer.ts`),
 *    the sweep interval (60 s / scale) and the drainer's idle poll.
 *    Once the sweeper has queued every expiry, someone `/claim`s another
 *    issue: how long does their reply wait behind the backlog?
 *    It stops when the sweeper has ended every lease and the outbox is empty.
 *
 * Reported: the time to drain (and the least it takes at production pacing),
 * requests made, requests the fake refused (must be 0), peak RSS and heap of
 * this process (the fake's memory is in its own process), and a census of
 * the issues afterwards: no lease label, no assignee, one expiry reply each.
 * In the JSON line: `requests_per_claim`, `requests_per_release` and
 * `requests_per_next_claim` (an agent's claim after it released its last
 * issue; the pace run), `requests_per_expiry`, `content_per_hour_max` (the most
 * content-creating requests GitHub saw in any of its hours, never above
 * 500), `limit_hits` (requests GitHub refused, goal 0), and `wave_s` (the
 * wave's time in production seconds) beside `wave_floor_s` (the least time
 * GitHub's content limits allow for one notice per lease), `wave_ratio` =
 * floor ÷ time (goal ≥ 0.9).
 */
import { fork } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { issueLeases, type Runtime } from "../src/app.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { commentPayload } from "../test/support/payloads.js";
import { type RemoteFake, startRemoteFake } from "./support/fake-process.js";
import { describeMeter, meteredLedger } from "./support/metered-ledger.js";
import { APP_ID, newProbot } from "./support/probot.js";
import { benchRepo, inRepo, known } from "./support/repos.js";
import { reporter, round } from "./support/report.js";
import type { SeedOptions, SeedReport } from "./support/seed-leases.js";
import { benchArgs, usageExit } from "./support/args.js";
import { contentFloorS, githubLimits, runPace, scaledBudget } from "./drain-pace.js";

const REPOS = 5;
const HOLDERS = 1_000;
const TTL = "10m";
const TTL_MS = 10 * 60_000;
const MB = 1024 * 1024;

const USAGE =
  "node dist/bench/drain.js [--json] [--leases N] [--scale N] [--batch N (drainer batch size; default the app's)] " +
  "[--pace-effects N (default 300)] [--pace-scale N (default 20)] [--pace-only]";

function parse() {
  const values = benchArgs(USAGE, {
    json: { type: "boolean", default: false },
    leases: { type: "string", default: "10000" },
    scale: { type: "string", default: "120" },
    batch: { type: "string" },
    "pace-effects": { type: "string", default: "300" },
    "pace-scale": { type: "string", default: "20" },
    "pace-only": { type: "boolean", default: false },
  });
  const leases = Number(values.leases);
  const scale = Number(values.scale);
  const batch = values.batch === undefined ? undefined : Number(values.batch);
  if (!Number.isInteger(leases) || leases < REPOS || !(scale >= 1)) usageExit(USAGE);
  if (batch !== undefined && !(Number.isInteger(batch) && batch >= 1)) usageExit(USAGE);
  const pace = { effects: Number(values["pace-effects"]), scale: Number(values["pace-scale"]), only: values["pace-only"] === true };
  if (!Number.isInteger(pace.effects) || pace.effects < 1 || !(pace.scale >= 1)) usageExit(USAGE);
  return { json: values.json === true, leases, scale, batch, pace };
}

function seed(o: SeedOptions): Promise<SeedReport> {
  const child = fork(new URL("./support/seed-leases.js", import.meta.url), [JSON.stringify(o)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    let report: SeedReport | undefined;
    child.on("message", (m: SeedReport) => (report = m));
    child.once("error", reject);
    child.once("exit", (code) => (report && code === 0 ? resolve(report) : reject(new Error(`seeding exited with ${code}`))));
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const hms = (ms: number) => {
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, "0")}m${String(s % 60).padStart(2, "0")}s`;
};

async function main(): Promise<void> {
  const args = parse();
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-"));
  const dbFile = join(dir, "leases.db");
  const repos = Array.from({ length: REPOS }, (_, i) => benchRepo(i));
  const perRepo = Math.ceil(args.leases / REPOS);
  const leases = perRepo * REPOS;
  let fake: RemoteFake | undefined;
  let runtime: Runtime | undefined;
  // First, a burst for one installation at the throttle's own pace.
  const pace = await runPace({ effects: args.pace.effects, scale: args.pace.scale, log });
  const paceJson = { pace_floor_s: pace.pace_floor_s, drain_s: pace.drain_s, pace_ratio: pace.pace_ratio, timeouts: pace.timeouts, duplicates: pace.duplicates, pace_parked: pace.parked, pace_effects: pace.effects, pace_scale: pace.scale, pace_limit_hits: pace.limit_hits };
  const perCommand = {
    requests_per_claim: pace.requests_per_claim,
    requests_per_release: pace.requests_per_release,
    requests_per_next_claim: pace.requests_per_next_claim,
  };
  if (args.pace.only) {
    if (args.json) console.log(JSON.stringify({ ...perCommand, ...paceJson, parked: pace.parked }));
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  try {
    log("");
    log(`issue-leases drain benchmark: ${leases} leases (${REPOS} repositories, ${HOLDERS} holders) expiring at once`);
    log(`SQLite in ${dir} (WAL, synchronous=FULL); fake GitHub in a child process; everything ${args.scale}× faster than production`);
    fake = await startRemoteFake({ appId: APP_ID });

    // 1. Seed.
    await fake.know(known(repos), [...Array.from({ length: HOLDERS }, (_, h) => `holder${h}`), "latecomer"]);
    const at = Date.now();
    const seeded = await seed({ baseUrl: fake.baseUrl, dbFile, repos: REPOS, issuesPerRepo: perRepo, holders: HOLDERS, ttl: TTL, at });
    const seedCalls = await fake.summary();
    if (seeded.pending !== 0 || seeded.parked !== 0) throw new Error(`seeding left ${seeded.pending} pending, ${seeded.parked} parked effects`);
    log(`seeded ${seeded.seeded} claims through the app in ${(seeded.ms / 1000).toFixed(1)} s (${seedCalls.requests} GitHub requests, pacing off)`);

    // 2. Measure.
    const limits = githubLimits(args.scale);
    await fake.setLimits(limits.content, limits.points);
    const hourMs = 3_600_000 / args.scale;
    const { budget, minPauseMs } = scaledBudget(args.scale);
    const writeMs = 1000 / args.scale;
    log(
      `limits: ${limits.content.map((l) => `${l.max} content-creating requests per ${l.windowMs.toFixed(0)} ms`).join(", ")}, ` +
        `${limits.points.max} points per ${limits.points.windowMs.toFixed(0)} ms; Octokit: writes ${writeMs.toFixed(1)} ms apart, ` +
        `comments ${(3 * writeMs).toFixed(1)} ms apart, retries on; sweep every ${(60_000 / args.scale).toFixed(0)} ms`,
    );
    const realStart = Date.now();
    const clock = () => at + TTL_MS + 1000 + (Date.now() - realStart);
    const probot = newProbot(fake.baseUrl, { kind: "scaled", scale: args.scale });

    const base = process.memoryUsage();
    const peak = { rss: base.rss, heap: base.heapUsed };
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      peak.rss = Math.max(peak.rss, m.rss);
      peak.heap = Math.max(peak.heap, m.heapUsed);
    }, 20);
    sampler.unref();

    const sqlite = new SqliteLedger(dbFile);
    const { ledger, meter } = meteredLedger(sqlite);
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    await probot.load(
      issueLeases({
        ledger,
        clock,
        background: true,
        sweepIntervalMs: 60_000 / args.scale,
        handleSignals: false,
        appId: APP_ID,
        budget,
        drainer: { pollMs: Math.max(1, 1000 / args.scale), minPauseMs, ...(args.batch ? { batchSize: args.batch } : {}) },
        onReady: (r) => (runtime = r),
      }),
    );
    if (!runtime) throw new Error("issue-leases did not start");
    const rt = runtime;
    // Far beyond what the pacing and the content limits need for five writes and a notice per lease, and than the app takes on a busy machine.
    const deadline = t0 + Math.max(120_000, leases * 5 * writeMs * 4, leases * 100, ((contentFloorS(leases) * 1000) / args.scale) * 3);
    let sweptMs: number | null = null;
    let progress = t0;
    // Someone claims another issue once every expiry is queued: how long until the reply is on GitHub?
    const probe = { repo: benchRepo(0), issue: perRepo + 1, sentAt: 0, doneAt: 0 };
    const probeDone = sqlite.db.prepare<[number, number], { n: number }>(
      "SELECT COUNT(*) AS n FROM outbox WHERE repo_id = ? AND issue = ? AND state = 'done'",
    );
    for (;;) {
      // Counting the outbox scans it (a few ms at 10,000 pending), on the app's event loop: look
      // often at first, then about a hundred times over the run, to disturb it by ~1%.
      await sleep(Math.min(500, Math.max(25, (performance.now() - t0) / 100)));
      const now = performance.now();
      // The bare ledger: the meter counts the app's own calls only.
      const expired = (await sqlite.expiredSince(clock(), 1)).length;
      if (expired === 0 && sweptMs === null && rt.sweeper.lastSweep) {
        sweptMs = now - t0;
        const claim = inRepo(commentPayload({ body: "/claim", author: { login: "latecomer", id: 4_000_001 }, issue: probe.issue }), probe.repo);
        probe.sentAt = performance.now();
        await probot.receive({ id: randomUUID(), name: "issue_comment", payload: claim } as never);
      }
      if (probe.sentAt > 0 && probe.doneAt === 0 && probeDone.get(probe.repo.id, probe.issue)!.n > 0) probe.doneAt = performance.now();
      const stats = await sqlite.outboxStats();
      if (sweptMs !== null && stats.pending === 0 && probe.doneAt > 0) break;
      if (now > deadline) throw new Error(`not drained after ${((now - t0) / 1000).toFixed(0)} s: ${stats.pending} effects pending`);
      if (!args.json && now - progress > 10_000) {
        progress = now;
        log(`  … ${((now - t0) / 1000).toFixed(0)} s: ${stats.pending} effects pending, ${stats.parked} parked`);
      }
    }
    const drainMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const busy = (cpu.user + cpu.system) / 1000 / drainMs;
    const inLedger = { ...meter, top: describeMeter(meter) };
    const stats = await sqlite.outboxStats();
    clearInterval(sampler);
    await rt.shutdown();
    runtime = undefined;

    const calls = await fake.summary(hourMs);
    const census = await fake.census(repos.map((r) => `${r.owner}/${r.name}`), perRepo, ["claimed-by: latecomer", "lease #1"]);
    const replies = (outcome: string) => census.replies[outcome] ?? {};
    const exactlyOnce = (replies("expired")["1"] ?? 0) === leases && Object.keys(replies("expired")).length === 1;
    // Writes are spaced by the write lane; comments also by the notification lane (3× as far apart).
    const pacedMs = Math.max(calls.writes * writeMs, calls.comments * 3 * writeMs, (contentFloorS(calls.content) * 1000) / args.scale);
    const waveS = (drainMs * args.scale) / 1000;
    const waveFloorS = contentFloorS(leases);
    const productionMs = pacedMs * args.scale;

    log("");
    const row = (label: string, value: string, note = "") => log(`${label.padEnd(34)}${value.padStart(14)}   ${note}`);
    row("time to drain, ms", drainMs.toFixed(0), `${(leases / (drainMs / 1000)).toFixed(0)} leases/s at ${args.scale}× speed`);
    row("  this process's CPU, busy", `${(busy * 100).toFixed(0)}%`, "(user + system time ÷ wall time: the rest is waiting)");
    row("  sweeper done after, ms", (sweptMs ?? 0).toFixed(0), "(ledger: every lease ended, its effect queued)");
    row(
      "  pacing alone would take, ms",
      pacedMs.toFixed(0),
      `${calls.writes} writes × ${writeMs.toFixed(1)} ms, ${calls.comments} comments × ${(3 * writeMs).toFixed(1)} ms` +
        (drainMs > 1.2 * pacedMs ? ": the app, not the pacing, set the pace here" : ""),
    );
    row(
      "at production pacing, at least",
      hms(productionMs),
      "writes 1 s apart per installation (Probot's throttling); this run × scale: " + hms(drainMs * args.scale),
    );
    const probeMs = probe.doneAt - probe.sentAt;
    row(
      "a /claim sent once all are queued",
      `${probeMs.toFixed(0)} ms`,
      // It waits for the effects queued before it, which at production pacing take their writes' seconds.
      `until its labels and reply were applied: behind the backlog; at production pacing ≈ ${hms((productionMs * probeMs) / drainMs)}`,
    );
    row(
      "  inside ledger calls, ms",
      inLedger.ms.toFixed(0),
      `${inLedger.commits} commits (${(inLedger.commits / leases).toFixed(1)} per lease), ${(inLedger.ms / Math.max(1, inLedger.commits)).toFixed(2)} ms per commit`,
    );
    log(`${"".padEnd(34)}${"".padStart(14)}   ${inLedger.top}`);
    row("GitHub requests", String(calls.requests), `${calls.reads} reads (the late claim's config), ${calls.writes} writes, ${calls.content} content-creating (${calls.comments} comments)`);
    row("  per lease", (calls.requests / leases).toFixed(2), `errors: ${JSON.stringify(calls.errors)} (404: label already deleted)`);
    row("refused by GitHub's limits", String(calls.refused), calls.refused === 0 ? "ok" : "MISSED: must be 0");
    row("content-creating in any hour, most", String(calls.contentWindowMax), calls.contentWindowMax <= 500 ? "ok (GitHub: 500)" : "MISSED: over 500");
    row(
      "the wave, production time",
      hms(waveS * 1000),
      `GitHub's content limits allow no less than ${hms(waveFloorS * 1000)} for one notice per lease: ratio ${(waveFloorS / waveS).toFixed(3)} (goal >= 0.9)`,
    );
    row("requests per expiry", (calls.requests / leases).toFixed(2), `per claim ${pace.requests_per_claim} (an agent's next ${pace.requests_per_next_claim}), per release ${pace.requests_per_release} (the pace run; goal 1 each)`);
    row("peak RSS, MB", (peak.rss / MB).toFixed(1), `at start ${(base.rss / MB).toFixed(1)}`);
    row("peak heap used, MB", (peak.heap / MB).toFixed(1), `at start ${(base.heapUsed / MB).toFixed(1)}`);
    row("effects parked (failed)", String(stats.parked), stats.parked === 0 ? "ok" : "MISSED");
    row(
      "issues left labelled / assigned",
      `${census.labelled} / ${census.assigned}`,
      `of ${census.issues}; app labels left in repos (besides \`claimed\` and the late claim's): ${census.repoLabels}` +
        " (on GraphQL they linger a day, LABEL_LINGER_S)",
    );
    row("expiry replies", exactlyOnce ? "1 per issue" : JSON.stringify(replies("expired")), exactlyOnce ? "ok" : "MISSED: exactly one each");

    if (args.json) {
      console.log(
        JSON.stringify({
          ...perCommand,
          requests_per_expiry: round(calls.requests / leases, 2),
          content_per_hour_max: calls.contentWindowMax,
          limit_hits: calls.refused + pace.limit_hits,
          wave_s: Math.round(waveS),
          wave_floor_s: waveFloorS,
          wave_ratio: round(waveFloorS / waveS, 3),
          drain_ms: Math.round(drainMs),
          leases,
          requests: calls.requests,
          refused: calls.refused,
          peak_rss_mb: round(peak.rss / MB, 1),
          peak_heap_mb: round(peak.heap / MB, 1),
          scale: args.scale,
          production_pacing_s: Math.round(productionMs / 1000),
          writes: calls.writes,
          content_requests: calls.content,
          claim_during_drain_ms: Math.round(probeMs),
          expiry_replies_exactly_once: exactlyOnce,
          ...paceJson,
          // Parked effects of both runs (each goal 0).
          parked: stats.parked + pace.parked,
          wave_parked: stats.parked,
        }),
      );
    }
  } finally {
    await runtime?.shutdown();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
