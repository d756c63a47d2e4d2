/**
 * Issue 9: after any interleaving of claims, renewals, releases, maintainer
 * releases, expiries and labels removed by hand in one repository, every
 * issue's labels on GitHub are what the ledger says, and no stale holder or
 * token label is left in the repository.
 *
 * The real app runs in-process (Probot with throttling and retries off), on
 * each write path (GITHUB_WRITES=graphql and rest), against the stateful
 * fake GitHub on 127.0.0.1, on a real SQLite ledger and
 * an injected clock. Its drainer's loop is off: the steps drain the outbox by
 * hand, a pass of two effects at a time or all of it, so that several
 * commands queue before their effects are applied and the effects of
 * different issues overlap in one pass (a `claimed-by: alice` deleted from the
 * repository for one issue while it is added for another).
 *
 * Deliberately outside the property (by design, not checked here):
 * - a removal delivered late (its time before the live tenure began) changes
 *   nothing, so every removal here is delivered at once;
 * - `claimed`, deleted from the repository by hand, comes back when GitHub
 *   creates it on the next add, in GitHub's default grey: only names are
 *   compared, not colours;
 * - whether GitHub sends `issues.unlabeled` for each issue when a repository
 *   label is deleted is modelled as it does for a label taken off an issue.
 *
 * Set LABELS_SEED (and LABELS_RUNS) to explore other sequences; a failure
 * prints fast-check's seed, path and the shrunk sequence of steps.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newProbot } from "../../bench/support/probot.js";
import { issueLeases, type Runtime } from "../../src/app.js";
import { DEFAULT_CONFIG } from "../../src/config/config.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { desiredLabels, labelKind } from "../../src/github/labels.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import { commentPayload, issuesPayload, REPO, type UserSpec } from "../support/payloads.js";

const FULL = `${REPO.owner}/${REPO.name}`;
const ISSUES = [1, 2, 3, 4] as const;
const T0 = Date.parse("2026-12-01T12:00:00Z");
const templates = DEFAULT_CONFIG.labels;

// Three contributors (read permission, as anyone on a public repository) and a maintainer (write).
const PEOPLE: Record<string, UserSpec> = {
  alice: { login: "alice", id: 1001, association: "CONTRIBUTOR" },
  bob: { login: "bob", id: 1002, association: "CONTRIBUTOR" },
  carol: { login: "carol", id: 1005, association: "CONTRIBUTOR" },
  maint: { login: "maint", id: 1003, association: "MEMBER" },
};
type Person = keyof typeof PEOPLE;
const CONTRIBUTORS: Person[] = ["alice", "bob", "carol"];

type Step =
  | { op: "claim"; who: Person; issue: number; ttl: string }
  | { op: "renew"; who: Person; issue: number; ttl: string }
  | { op: "release"; who: Person; issue: number }
  /** The maintainer's `/release @holder` (the permission is asked of GitHub). */
  | { op: "forceRelease"; issue: number; target: Person }
  /** The clock moves on and the sweeper runs (expiries and reminders). */
  | { op: "expire"; ms: number }
  /** Someone deletes one of the app's labels from the repository: `pick` chooses among those there. */
  | { op: "deleteRepoLabel"; who: Person; pick: number }
  /** Someone takes one of the app's labels off one issue. */
  | { op: "removeIssueLabel"; who: Person; issue: number; pick: number }
  /** One pass of the drainer: up to its batch (two) effects, the oldest of each issue, applied together. */
  | { op: "drainSome"; passes: number }
  | { op: "drainAll" }
  /** A command or a removal by hand delivered while a drainer pass is applying effects (a real race, not a fixed order). */
  | { op: "during"; step: Step; passes: number };

const contributor = fc.constantFrom(...CONTRIBUTORS);
const anyone = fc.constantFrom<Person>("alice", "bob", "carol", "maint");
const issue = fc.constantFrom(...ISSUES);
const ttl = fc.constantFrom("2m", "10m", "1h");

const claimArb = fc.record({ op: fc.constant("claim" as const), who: contributor, issue, ttl });
const releaseArb = fc.record({ op: fc.constant("release" as const), who: contributor, issue });
const deleteRepoLabelArb = fc.record({ op: fc.constant("deleteRepoLabel" as const), who: anyone, pick: fc.nat(20) });
const removeIssueLabelArb = fc.record({ op: fc.constant("removeIssueLabel" as const), who: anyone, issue, pick: fc.nat(5) });

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: claimArb },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("renew" as const), who: contributor, issue, ttl }) },
  { weight: 2, arbitrary: releaseArb },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("forceRelease" as const), issue, target: contributor }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("expire" as const), ms: fc.constantFrom(60_000, 5 * 60_000, 15 * 60_000, 2 * 60 * 60_000) }) },
  { weight: 3, arbitrary: deleteRepoLabelArb },
  { weight: 1, arbitrary: removeIssueLabelArb },
  { weight: 3, arbitrary: fc.record({ op: fc.constant("drainSome" as const), passes: fc.integer({ min: 1, max: 2 }) }) },
  { weight: 1, arbitrary: fc.constant({ op: "drainAll" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("during" as const),
      step: fc.oneof(claimArb, releaseArb, deleteRepoLabelArb, removeIssueLabelArb),
      passes: fc.integer({ min: 1, max: 2 }),
    }),
  },
);

const isApps = (name: string) => labelKind(templates, name) !== null;
const lower = (names: string[]) => names.map((n) => n.toLowerCase()).sort();

/** One run's app, on its own ledger, against the shared fake GitHub (reset per run). */
interface Run {
  runtime: Runtime;
  ledger: SqliteLedger;
  receive(name: string, payload: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

let fake: FakeGitHub;
let now = T0;

/** A write path, and how long labels no lease calls for linger in the repository (0: deleted at once). */
interface Path {
  writes: "graphql" | "rest";
  lingerMs: number;
}

async function startRun({ writes, lingerMs }: Path): Promise<Run> {
  fake.reset();
  now = T0;
  fake.setPermission(FULL, "maint", "write");
  // The payloads' repository by their id: the node ids they carry name the fake's records (GITHUB_WRITES=graphql).
  fake.addRepo(FULL, { id: REPO.id });
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-labels-"));
  const ledger = new SqliteLedger(join(dir, "leases.db"));
  const probot = newProbot(fake.baseUrl, { kind: "off" });
  let runtime: Runtime | undefined;
  await probot.load(
    issueLeases({
      ledger,
      clock: () => now,
      background: false,
      handleSignals: false,
      appId: 777,
      // GitHub's pacing is off: its budget too.
      budget: null,
      writes,
      drainer: { batchSize: 2, labelLingerMs: lingerMs },
      onReady: (r) => (runtime = r),
    }),
  );
  if (!runtime) throw new Error("the app did not start");
  const rt = runtime;
  return {
    runtime: rt,
    ledger,
    receive: (name, payload) => probot.receive({ id: randomUUID(), name, payload } as never),
    async close() {
      await rt.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The app's labels the fake shows in the repository, in a stable order. */
function appRepoLabels(): string[] {
  return fake.repoLabels(FULL).map((l) => l.name).filter(isApps).sort();
}

/**
 * A person removing a label by hand, as GitHub does it: the label goes (from
 * the repository, or from one issue) and each issue that carried it gets an
 * `issues.unlabeled` delivery from that person. The fake sends no webhooks,
 * so the test delivers them.
 */
async function removeByHand(run: Run, who: Person, name: string, issues: number[], path: string): Promise<void> {
  const res = await fetch(`${fake.baseUrl}/repos/${FULL}/${path}`, { method: "DELETE" });
  expect(res.status, `DELETE ${path}`).toBeLessThan(300);
  await res.arrayBuffer();
  for (const n of issues) {
    const labels = fake.issueLabels(FULL, n);
    await run.receive("issues", issuesPayload("unlabeled", { issue: n, sender: PEOPLE[who], label: name, labels, at: now }));
  }
}

async function apply(run: Run, step: Step): Promise<void> {
  const { runtime } = run;
  switch (step.op) {
    case "claim":
      await run.receive("issue_comment", commentPayload({ body: `/claim ${step.ttl}`, author: PEOPLE[step.who], issue: step.issue }));
      return;
    case "renew":
      await run.receive("issue_comment", commentPayload({ body: `/renew ${step.ttl}`, author: PEOPLE[step.who], issue: step.issue }));
      return;
    case "release":
      await run.receive("issue_comment", commentPayload({ body: "/release", author: PEOPLE[step.who], issue: step.issue }));
      return;
    case "forceRelease":
      await run.receive("issue_comment", commentPayload({ body: `/release @${step.target}`, author: PEOPLE.maint, issue: step.issue }));
      return;
    case "expire":
      now += step.ms;
      await runtime.sweeper.sweep();
      return;
    case "deleteRepoLabel": {
      const names = appRepoLabels();
      if (names.length === 0) return;
      const name = names[step.pick % names.length]!;
      const carriers = ISSUES.filter((n) => lower(fake.issueLabels(FULL, n)).includes(name.toLowerCase()));
      await removeByHand(run, step.who, name, carriers, `labels/${encodeURIComponent(name)}`);
      return;
    }
    case "removeIssueLabel": {
      const names = fake.issueLabels(FULL, step.issue).filter(isApps).sort();
      if (names.length === 0) return;
      const name = names[step.pick % names.length]!;
      await removeByHand(run, step.who, name, [step.issue], `issues/${step.issue}/labels/${encodeURIComponent(name)}`);
      return;
    }
    case "drainSome":
      for (let i = 0; i < step.passes; i++) await runtime.drainer.drainOnce();
      return;
    case "drainAll":
      await runtime.drainer.drainAll();
      return;
    case "during":
      await Promise.all([apply(run, step.step), apply(run, { op: "drainSome", passes: step.passes })]);
      return;
  }
}

async function check(run: Run, lingerMs: number): Promise<void> {
  const { runtime, ledger } = run;
  // Leases past their expiry are ended by the sweeper; then everything queued is applied.
  await runtime.sweeper.sweep();
  await runtime.drainer.drainAll();

  const stats = await ledger.outboxStats();
  expect(stats, "outbox after draining everything").toMatchObject({ pending: 0, parked: 0 });
  expect(fake.unmatched, "requests the fake did not know").toEqual([]);
  expect(fake.requests.filter((r) => r.status >= 500), "fake GitHub errors").toEqual([]);

  for (const n of ISSUES) {
    const lease = await ledger.current({ repoId: REPO.id, repo: FULL, issue: n }, now);
    const want = desiredLabels(templates, lease).map((d) => d.name);
    const shown = fake.issueLabels(FULL, n).filter(isApps);
    expect(lower(shown), `issue #${n}'s labels (lease: ${lease ? `${lease.holder.login} #${lease.token}` : "none"})`).toEqual(lower(want));
  }
  // Then every lease ends (the longest term is an hour). Labels no live lease
  // uses may linger in the repository (GITHUB_WRITES=graphql); once they have
  // lingered that long, the repository's next effect (a claim of another
  // issue) deletes them.
  now += 2 * 3_600_000;
  await runtime.sweeper.sweep();
  await runtime.drainer.drainAll();
  now += lingerMs;
  await run.receive("issue_comment", commentPayload({ body: "/claim 1h", author: PEOPLE.alice, issue: 5 }));
  await runtime.drainer.drainAll();
  expect(await ledger.outboxStats(), "outbox after the last claim").toMatchObject({ pending: 0, parked: 0 });
  expect(fake.issueLabels(FULL, 5).filter(isApps).sort(), "issue #5's labels").toEqual(["claimed", "claimed-by: alice", "lease #1"]);
  // Only the app makes labels in this repository (no one creates one by hand
  // here), so every holder and token label in it is the app's: each must be
  // used by a live lease. `claimed` stays once created, by design.
  const inUse = new Set((await ledger.list(REPO.id, now)).flatMap((l) => desiredLabels(templates, l)).map((d) => d.name.toLowerCase()));
  const stale = appRepoLabels().filter((name) => labelKind(templates, name) !== "claimed" && !inUse.has(name.toLowerCase()));
  expect(stale, "holder and token labels no live lease uses").toEqual([]);
}

/**
 * The shrunk counterexamples of the bugs this property found, tried first on
 * every run. Each passed the other checks and failed one assertion.
 */
const FOUND: Step[][] = [
  // A label taken off by hand ended the lease, and was still counted as on the
  // issue: the lease claimed again before the drain never got `claimed` back.
  // Later, on GraphQL, once every lease ends: `lease #2`, created in the flush
  // whose `addLabels` then met the deleted `claimed`, was found again by the
  // query that followed and taken for a label that was there before the app:
  // never deleted.
  [
    { op: "claim", who: "alice", issue: 4, ttl: "2m" },
    { op: "drainSome", passes: 1 },
    { op: "removeIssueLabel", who: "alice", issue: 4, pick: 0 },
    { op: "claim", who: "alice", issue: 4, ttl: "2m" },
    { op: "deleteRepoLabel", who: "alice", pick: 0 },
  ],
  // `lease #2` was kept in the repository for #2's second tenure, which ended
  // before #2 ever showed it: left in the repository, used by no lease.
  [
    { op: "claim", who: "alice", issue: 2, ttl: "2m" },
    { op: "claim", who: "carol", issue: 4, ttl: "2m" },
    { op: "forceRelease", issue: 4, target: "carol" },
    { op: "claim", who: "alice", issue: 4, ttl: "2m" },
    { op: "drainSome", passes: 1 },
    { op: "expire", ms: 7_200_000 },
    { op: "claim", who: "alice", issue: 2, ttl: "2m" },
    { op: "claim", who: "alice", issue: 1, ttl: "2m" },
    { op: "drainSome", passes: 1 },
    { op: "deleteRepoLabel", who: "alice", pick: 0 },
    { op: "claim", who: "alice", issue: 2, ttl: "2m" },
  ],
  // #2's expiry deleted `claimed-by: alice` from the repository (no live lease
  // used it), which took it off #3 too; #3, claimed again by alice before its
  // own expiry was drained, still counted it as shown and never got it back.
  [
    { op: "claim", who: "alice", issue: 3, ttl: "2m" },
    { op: "claim", who: "alice", issue: 2, ttl: "2m" },
    { op: "drainAll" },
    { op: "expire", ms: 7_200_000 },
    { op: "claim", who: "bob", issue: 1, ttl: "2m" },
    { op: "drainSome", passes: 1 },
    { op: "claim", who: "alice", issue: 3, ttl: "2m" },
  ],
];

// On GraphQL by default labels linger a day; here 10 minutes, so that the steps' clock passes it within a run.
const PATHS: Array<Path & { name: string }> = [
  { name: "graphql, labels lingering 10 minutes", writes: "graphql", lingerMs: 600_000 },
  { name: "graphql, LABEL_LINGER_S=0", writes: "graphql", lingerMs: 0 },
  { name: "rest", writes: "rest", lingerMs: 0 },
];

describe.each(PATHS)("labels on GitHub follow the ledger (issue 9; GITHUB_WRITES=$name)", (path) => {
  beforeAll(async () => {
    fake = await startFakeGitHub({ appId: 777, installationId: 4242, now: () => now });
  });
  afterAll(async () => {
    await fake?.close();
  });

  it("after any interleaving of claims, releases, expiries, labels removed by hand and partial drains", async () => {
    const seed = Number(process.env.LABELS_SEED ?? 20_260_901);
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 25, size: "max" }), async (steps) => {
        const run = await startRun(path);
        try {
          for (const step of steps) await apply(run, step);
          await check(run, path.lingerMs);
        } finally {
          await run.close();
        }
      }),
      { numRuns: Number(process.env.LABELS_RUNS ?? 100), seed, examples: FOUND.map((steps) => [steps] as [Step[]]) },
    );
    // About 50 ms a run (a fresh ledger and app, 25 steps over HTTP): 5 s in all.
  }, 300_000);
});
