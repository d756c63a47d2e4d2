/**
 * What does the whole app cost per delivery, against a bare Probot app?
 *
 *   npm run bench:webhooks [-- --json] [--rounds N] [--cycles N]
 *
 * Both apps run as real GitHub Apps (JWT, installation tokens) in this
 * process, take deliveries over real HTTP through Probot's webhook
 * middleware (signature check, parse, dispatch), and talk to the in-process
 * fake GitHub, which answers with no delay. Octokit throttling and retries
 * are off for both, so that the deliberate 1 s spacing of writes is not what
 * is measured.
 *
 * - bare: verifies the signature and posts one comment.
 * - bare, same writes: verifies the signature and makes the very writes
 *   issue-leases makes for each command (labels, assignee, reply), deciding
 *   from a Map in memory: no ledger, no outbox, no rendering. No app held to
 *   the same API budget can be faster; app ÷ this is what issue-leases costs
 *   on top of its GitHub calls.
 * - bare, same writes, durable: the same, and before its writes one commit
 *   to a SQLite file with the ledger's settings (one row upserted, WAL,
 *   synchronous=FULL: one fsync), as any app that records what it decided
 *   before acting must. app ÷ this leaves out the least that keeping leases
 *   on disk costs; the app commits twice a delivery (its command, and the
 *   outbox's take of the effect).
 * - app: issue-leases on a SQLite ledger in a temp folder with the ledger's
 *   own settings (WAL, synchronous=FULL), then `runtime.drainer.drainAll()`
 *   after every delivery, so that each delivery's labels, assignee and reply
 *   reach the fake before the next delivery is sent.
 *
 * The workload cycles over fresh issues in a repository with 100 live leases
 * (40 people): `/claim` (acquired), `/claim` by someone else (held),
 * `/release` by the holder (released). Deliveries are sent one at a time.
 * Rounds alternate bare and app, on the very same payload bytes, and
 * medians are reported. The goal is a cost ratio bare/s ÷ app/s <= 1.3.
 *
 * GitHub API calls per command are counted from the fake's request log:
 * reads (GET) and writes, without installation token requests; the config
 * file reads, made once per repository and then cached, are counted apart.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type Database from "better-sqlite3";
import type { Probot } from "probot";
import { issueLeases, type Runtime } from "../src/app.js";
import { openSqlite } from "../src/ledger/sqlite/open.js";
import { SqliteLedger } from "../src/ledger/sqlite/sqlite-ledger.js";
import { type FakeGitHub, type RecordedRequest, startFakeGitHub } from "../test/support/fake-github.js";
import { commentPayload, type UserSpec } from "../test/support/payloads.js";
import { type LedgerMeter, meteredLedger } from "./support/metered-ledger.js";
import { APP_ID, type Delivery, deliver, newProbot, serveWebhooks, signedDelivery } from "./support/probot.js";
import { benchArgs, usageExit } from "./support/args.js";
import { median, reporter, round, table } from "./support/report.js";

const GOAL = 1.3;
const PEOPLE = 40;
/** Leases held in the repository throughout (issues 1..BACKGROUND), so that releases meet a lived-in repository. */
const BACKGROUND = 100;
const KINDS = ["claim", "held", "release"] as const;
type Kind = (typeof KINDS)[number];

const USAGE = "node dist/bench/webhooks.js [--json] [--rounds N] [--cycles N]";

function parse() {
  const values = benchArgs(USAGE, {
    json: { type: "boolean", default: false },
    rounds: { type: "string", default: "5" },
    cycles: { type: "string", default: "150" },
  });
  const rounds = Number(values.rounds);
  const cycles = Number(values.cycles);
  if (!Number.isInteger(rounds) || rounds < 1 || !Number.isInteger(cycles) || cycles < 1) usageExit(USAGE);
  return { json: values.json === true, rounds, cycles };
}

// Collaborators: a few hundred commands each, and every one must be answered (the
// replies-per-hour limit, which exempts them, would otherwise silence most).
const people: UserSpec[] = Array.from({ length: PEOPLE }, (_, i) => ({ login: `dev${i + 1}`, id: 5001 + i, association: "COLLABORATOR" }));

interface Step {
  kind: Kind;
  delivery: Delivery;
}

/** Claim, someone else's claim, release, on each of `cycles` fresh issues from `firstIssue`. */
async function workload(firstIssue: number, cycles: number, offset: number): Promise<Step[]> {
  const steps: Step[] = [];
  for (let c = 0; c < cycles; c++) {
    const issue = firstIssue + c;
    const holder = people[(offset + c) % PEOPLE]!;
    const other = people[(offset + c + 7) % PEOPLE]!;
    const comment = (body: string, author: UserSpec) => signedDelivery("issue_comment", commentPayload({ body, author, issue }));
    steps.push({ kind: "claim", delivery: await comment("/claim", holder) });
    steps.push({ kind: "held", delivery: await comment("/claim", other) });
    steps.push({ kind: "release", delivery: await comment("/release", holder) });
  }
  return steps;
}

interface Calls {
  reads: number;
  writes: number;
  config: number;
  lines: string[];
}

/** GitHub calls in a slice of the fake's log; token requests are never logged. */
function calls(log: RecordedRequest[]): Calls {
  const c: Calls = { reads: 0, writes: 0, config: 0, lines: [] };
  for (const r of log) {
    const isConfig = r.method === "GET" && /\/contents\//.test(r.path);
    if (isConfig) c.config++;
    else if (r.method === "GET" || r.method === "HEAD") c.reads++;
    else c.writes++;
    c.lines.push(`${r.method} ${r.path.replace(/^\/repos\/[^/]+\/[^/]+/, "/repos/:owner/:repo").replace(/\/issues\/\d+/, "/issues/:n")} ${r.status}`);
  }
  return c;
}

class AppUnderTest {
  private constructor(
    readonly probot: Probot,
    readonly runtime: Runtime,
    readonly url: string,
    readonly meter: LedgerMeter,
    readonly close: () => Promise<void>,
  ) {}

  static async start(fake: FakeGitHub, dbFile: string): Promise<AppUnderTest> {
    const probot = newProbot(fake.baseUrl, { kind: "off" });
    let runtime: Runtime | undefined;
    const { ledger, meter } = meteredLedger(new SqliteLedger(dbFile));
    await probot.load(
      issueLeases({
        ledger,
        background: false,
        handleSignals: false,
        appId: APP_ID,
        // GitHub's pacing is off (the bare Probot app has none either): its budget too.
        budget: null,
        // The bare app makes the app's writes as REST requests: the app writes on REST too, or the two would
        // not make the same writes (on GITHUB_WRITES=graphql, the default, a command is one document).
        writes: "rest",
        onReady: (r) => (runtime = r),
      }),
    );
    if (!runtime) throw new Error("issue-leases did not start");
    const rt = runtime;
    const endpoint = await serveWebhooks(probot, rt.webhookRoute);
    return new AppUnderTest(probot, rt, endpoint.url, meter, async () => {
      await endpoint.close();
      await rt.shutdown();
    });
  }

  /** One delivery, then its effects applied. */
  async run(step: Step): Promise<{ receive: number; drain: number; ledgerMs: number; commits: number }> {
    const { ms, commits } = this.meter;
    const t0 = performance.now();
    await deliver(this.url, step.delivery);
    const t1 = performance.now();
    await this.runtime.drainer.drainAll();
    const t2 = performance.now();
    return { receive: t1 - t0, drain: t2 - t1, ledgerMs: this.meter.ms - ms, commits: this.meter.commits - commits };
  }
}

async function bareApp(fake: FakeGitHub): Promise<{ url: string; close: () => Promise<void> }> {
  const probot = newProbot(fake.baseUrl, { kind: "off" });
  await probot.load((app) => {
    app.on("issue_comment.created", async (context) => {
      await context.octokit.rest.issues.createComment(context.issue({ body: "Noted." }));
    });
  });
  return serveWebhooks(probot);
}

/**
 * A bare Probot app that makes issue-leases's writes for each command, from
 * memory: `/claim` on a free issue adds the three labels and the assignee and
 * replies; on a held issue it replies; `/release` by the holder removes the
 * labels one by one and the assignee, and replies. With `durable`, each
 * delivery first commits one row to that database (its own transaction).
 */
async function sameWritesApp(fake: FakeGitHub, durable?: Database.Database): Promise<{ url: string; close: () => Promise<void> }> {
  const probot = newProbot(fake.baseUrl, { kind: "off" });
  const holders = new Map<number, { login: string; token: number }>();
  const tokens = new Map<number, number>();
  durable?.exec("CREATE TABLE decided (issue INTEGER PRIMARY KEY, n INTEGER NOT NULL)");
  const record = durable?.prepare("INSERT INTO decided (issue, n) VALUES (?, 1) ON CONFLICT (issue) DO UPDATE SET n = n + 1");
  const commit = record && durable?.transaction((issue: number) => record.run(issue));
  await probot.load((app) => {
    app.on("issue_comment.created", async (context) => {
      commit?.immediate(context.payload.issue.number);
      const gh = context.octokit.rest.issues;
      const issue = context.payload.issue.number;
      const login = context.payload.comment.user?.login ?? "";
      const held = holders.get(issue);
      const labels = (h: { login: string; token: number }) => ["claimed", `claimed-by: ${h.login}`, `lease #${h.token}`];
      if (context.payload.comment.body.startsWith("/claim")) {
        if (held && held.login !== login) {
          await gh.createComment(context.issue({ body: "Held." }));
          return;
        }
        const lease = { login, token: held?.token ?? (tokens.get(issue) ?? 0) + 1 };
        tokens.set(issue, lease.token);
        holders.set(issue, lease);
        await gh.addLabels(context.issue({ labels: labels(lease) }));
        await gh.addAssignees(context.issue({ assignees: [login] }));
        await gh.createComment(context.issue({ body: "Claimed." }));
      } else if (context.payload.comment.body.startsWith("/release") && held?.login === login) {
        holders.delete(issue);
        for (const name of labels(held)) await gh.removeLabel(context.issue({ name }));
        await gh.removeAssignees(context.issue({ assignees: [login] }));
        await gh.createComment(context.issue({ body: "Released." }));
      }
    });
  });
  return serveWebhooks(probot);
}

async function main(): Promise<void> {
  const args = parse();
  const log = reporter(args.json);
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-bench-"));
  const fake = await startFakeGitHub({ appId: APP_ID });
  let app: AppUnderTest | undefined;
  let bare: { url: string; close: () => Promise<void> } | undefined;
  let same: { url: string; close: () => Promise<void> } | undefined;
  let durable: { url: string; close: () => Promise<void> } | undefined;
  const durableDb = openSqlite(join(dir, "same-writes.db"));
  try {
    log(`issue-leases webhook benchmark: Probot over HTTP, SQLite in ${dir} (WAL, synchronous=FULL)`);
    log(`fake GitHub in this process, no delay; Octokit throttling and retries OFF for both apps; logging off`);
    log(`app: runtime.drainer.drainAll() after each delivery (each delivery's effects reach the fake before the next)`);

    app = await AppUnderTest.start(fake, join(dir, "leases.db"));
    bare = await bareApp(fake);
    same = await sameWritesApp(fake);
    durable = await sameWritesApp(fake, durableDb);

    // Setup, not measured: the background leases. The first delivery also
    // reads the config (cached afterwards) and creates the `claimed` label.
    const mark = fake.requests.length;
    for (let issue = 1; issue <= BACKGROUND; issue++) {
      const d = await signedDelivery("issue_comment", commentPayload({ body: "/claim", author: people[issue % PEOPLE]!, issue }));
      await app.run({ kind: "claim", delivery: d });
    }
    const firstClaim = calls(fake.requests.slice(mark)).config;

    // Warm-up (JIT, sockets, SQLite caches), then the measured rounds.
    let nextIssue = 1001;
    const warm = await workload(nextIssue, args.cycles, 0);
    nextIssue += warm.length / 3;
    for (const s of warm) {
      await deliver(bare.url, s.delivery);
      await deliver(same.url, s.delivery);
      await app.run(s);
    }
    // Its own pass: the two bare apps' releases would each take off labels the other's claim put on.
    for (const s of warm) await deliver(durable.url, s.delivery);

    const barePerS: number[] = [];
    const samePerS: number[] = [];
    const durablePerS: number[] = [];
    /** Writes per delivery, of the same-writes app and of the app: they must agree for the comparison to mean anything. */
    const sameWrites: number[] = [];
    const appWrites: number[] = [];
    const appPerS: number[] = [];
    const perKind = new Map<Kind, { perS: number[]; receive: number[]; drain: number[]; ledger: number[]; commits: number }>(
      KINDS.map((k) => [k, { perS: [], receive: [], drain: [], ledger: [], commits: 0 }]),
    );
    const seen = new Map<Kind, Map<string, { n: number; calls: Calls }>>(KINDS.map((k) => [k, new Map()]));
    const t = performance.now();
    for (let r = 0; r < args.rounds; r++) {
      const steps = await workload(nextIssue, args.cycles, r * 3);
      nextIssue += args.cycles;

      let start = performance.now();
      for (const s of steps) await deliver(bare.url, s.delivery);
      barePerS.push(steps.length / ((performance.now() - start) / 1000));

      const sameMark = fake.requests.length;
      start = performance.now();
      for (const s of steps) await deliver(same.url, s.delivery);
      samePerS.push(steps.length / ((performance.now() - start) / 1000));
      sameWrites.push(calls(fake.requests.slice(sameMark)).writes / steps.length);
      fake.requests.length = sameMark;

      start = performance.now();
      for (const s of steps) await deliver(durable.url, s.delivery);
      durablePerS.push(steps.length / ((performance.now() - start) / 1000));
      fake.requests.length = sameMark;

      const byKind = new Map<Kind, { n: number; receive: number; drain: number; ledger: number; commits: number }>(
        KINDS.map((k) => [k, { n: 0, receive: 0, drain: 0, ledger: 0, commits: 0 }]),
      );
      const appMark = fake.requests.length;
      start = performance.now();
      for (const s of steps) {
        const before = fake.requests.length;
        const one = await app.run(s);
        const k = byKind.get(s.kind)!;
        k.n++;
        k.receive += one.receive;
        k.drain += one.drain;
        k.ledger += one.ledgerMs;
        k.commits += one.commits;
        const c = calls(fake.requests.slice(before));
        const sig = `${c.reads}/${c.writes}/${c.config}`;
        const tally = seen.get(s.kind)!;
        const entry = tally.get(sig) ?? { n: 0, calls: c };
        entry.n++;
        tally.set(sig, entry);
      }
      appPerS.push(steps.length / ((performance.now() - start) / 1000));
      appWrites.push(calls(fake.requests.slice(appMark)).writes / steps.length);
      for (const [kind, k] of byKind) {
        const m = perKind.get(kind)!;
        m.perS.push(k.n / ((k.receive + k.drain) / 1000));
        m.receive.push(k.receive / k.n);
        m.drain.push(k.drain / k.n);
        m.ledger.push(k.ledger / k.n);
        m.commits = k.commits / k.n;
      }
      // The request log is only needed per delivery; keep memory flat.
      fake.requests.length = 0;
    }
    const measuredS = (performance.now() - t) / 1000;

    // A first claim in a repository the app has never seen: config reads and the `claimed` label's creation.
    const fresh = commentPayload({ body: "/claim", author: people[0]!, issue: 1 });
    fresh.repository = { ...fresh.repository, id: 999_001, name: "Fresh", full_name: `${fresh.repository.owner.login}/Fresh` };
    const before = fake.requests.length;
    await app.run({ kind: "claim", delivery: await signedDelivery("issue_comment", fresh) });
    const freshCalls = calls(fake.requests.slice(before));

    const appMed = median(appPerS);
    const bareMed = median(barePerS);
    const ratio = bareMed / appMed;
    const sameMed = median(samePerS);
    const durableMed = median(durablePerS);
    const fmt = (x: number) => x.toFixed(0);

    log("");
    log(`${args.rounds} rounds of ${args.cycles * 3} deliveries each (${args.cycles} cycles of claim, held claim, release), bare and app alternating`);
    table(
      log,
      ["deliveries/s", ...barePerS.map((_, i) => `round ${i + 1}`), "median"],
      [
        ["bare Probot (1 comment)", ...barePerS.map(fmt), fmt(bareMed)],
        ["bare, the app's writes", ...samePerS.map(fmt), fmt(sameMed)],
        ["  and one durable commit", ...durablePerS.map(fmt), fmt(durableMed)],
        ["issue-leases (all)", ...appPerS.map(fmt), fmt(appMed)],
        ...KINDS.map((k) => [`  ${k}`, ...perKind.get(k)!.perS.map(fmt), fmt(median(perKind.get(k)!.perS))]),
      ],
      { label: 28, value: 10 },
    );
    log("");
    const verdict = ratio <= GOAL ? "ok" : "MISSED";
    log(`${"cost ratio bare/s ÷ app/s".padEnd(28)}${ratio.toFixed(2).padStart(10)}   goal <= ${GOAL}   ${verdict}`);
    log(`writes per delivery: app ${median(appWrites).toFixed(2)}, bare with the app's writes ${median(sameWrites).toFixed(2)}, bare 1`);
    log(`${"bare with its writes ÷ app".padEnd(28)}${(sameMed / appMed).toFixed(2).padStart(10)}   (the app's cost on top of its GitHub calls)`);
    log(`${"and one commit each ÷ app".padEnd(28)}${(durableMed / appMed).toFixed(2).padStart(10)}   (what is left once one fsync a delivery is paid)`);
    log(`(app/s ÷ bare/s = ${(appMed / bareMed).toFixed(2)}; measured for ${measuredS.toFixed(1)} s)`);

    log("");
    log("per command (ms: medians over rounds): answering the webhook (its ledger transaction included), draining its");
    log("effects, and of both the time inside ledger calls and the number of SQLite commits (each one fsync, but the outbox's");
    log("reflections and completions: unsynced); GitHub calls");
    table(
      log,
      ["", "webhook ms", "drain ms", "ledger ms", "commits", "reads", "writes", "config"],
      KINDS.map((k) => {
        const m = perKind.get(k)!;
        const top = [...seen.get(k)!.values()].sort((a, b) => b.n - a.n)[0]!;
        return [
          k,
          median(m.receive).toFixed(2),
          median(m.drain).toFixed(2),
          median(m.ledger).toFixed(2),
          m.commits.toFixed(1),
          String(top.calls.reads),
          String(top.calls.writes),
          String(top.calls.config),
        ];
      }),
      { label: 20, value: 11 },
    );
    for (const k of KINDS) {
      const variants = [...seen.get(k)!.values()].sort((a, b) => b.n - a.n);
      log(`  ${k}: ${variants[0]!.calls.lines.join(", ")}`);
      for (const v of variants.slice(1)) log(`    also ${v.n}×: ${v.calls.reads} reads, ${v.calls.writes} writes: ${v.calls.lines.join(", ")}`);
    }
    log(
      `  config file reads: ${firstClaim} on the first command in a repository, then cached; ` +
        `a first claim in a new repository: ${freshCalls.config} config reads, ${freshCalls.reads} reads, ${freshCalls.writes} writes (${freshCalls.lines.filter((l) => !l.includes("/contents/")).join(", ")})`,
    );

    if (args.json) {
      const top = (k: Kind) => [...seen.get(k)!.values()].sort((a, b) => b.n - a.n)[0]!.calls;
      console.log(
        JSON.stringify({
          app_per_s: round(appMed, 1),
          bare_per_s: round(bareMed, 1),
          ratio: round(ratio, 3),
          same_writes_per_s: round(sameMed, 1),
          ratio_same_writes: round(sameMed / appMed, 3),
          durable_writes_per_s: round(durableMed, 1),
          ratio_durable_writes: round(durableMed / appMed, 3),
          api_calls: Object.fromEntries(KINDS.map((k) => [k, { reads: top(k).reads, writes: top(k).writes }])),
          config_reads_per_repo: firstClaim,
          per_kind_per_s: Object.fromEntries(KINDS.map((k) => [k, round(median(perKind.get(k)!.perS), 1)])),
          drain: "drainAll per delivery",
        }),
      );
    }
  } finally {
    await bare?.close();
    await same?.close();
    await durable?.close();
    durableDb.close();
    await app?.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
