/**
 * The labels that mirror a lease and the notices of its end, on both write
 * paths (GITHUB_WRITES=graphql and rest): what test/app/labels.test.ts and
 * expiry.test.ts pin request by request on REST with strict mocks, asserted
 * here by what GitHub ends up showing. The real app runs in-process against the stateful fake GitHub
 * (which checks every GraphQL document against GitHub's schema), on a real
 * SQLite ledger and an injected clock, its outbox drained by hand.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { MAX_LABEL_LENGTH } from "../../src/github/labels.js";
import { DELETE_AT_ONCE } from "../../src/outbox/repo-labels.js";
import { commentPosts, FULL, isMutationDocument, isWrite, replies, repoLabelNames } from "../e2e/issue-view.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import { alice, bob, commentPayload, REPO, type UserSpec } from "../support/payloads.js";
import { APP_ID, type AppOnFake, startAppOnFake } from "../support/probot-on-fake.js";

const T0 = Date.parse("2026-12-01T12:00:00Z");
const HOUR = 3_600_000;

/**
 * GraphQL as it runs by default (holder and token labels no lease calls for
 * linger a day in the repository), GraphQL with LABEL_LINGER_S=0 (deleted at
 * once, as on REST), and REST.
 */
const PATHS = [
  { name: "graphql", writes: "graphql", linger: true },
  { name: "graphql, LABEL_LINGER_S=0", writes: "graphql", linger: false },
  { name: "rest", writes: "rest", linger: false },
] as const;

describe.each(PATHS)("labels and notices on GitHub (GITHUB_WRITES=$name)", ({ writes, linger }) => {
  let fake: FakeGitHub;
  let app: AppOnFake;
  let now = T0;

  beforeEach(async () => {
    fake = await startFakeGitHub({ appId: APP_ID, now: () => now });
    // The payloads' repository by its id: the node ids webhooks carry name the fake's records.
    fake.addRepo(FULL, { id: REPO.id });
    now = T0;
    app = await startAppOnFake(fake, { throttle: "off", writes, background: false, clock: () => now, ...(linger ? {} : { drainer: { labelLingerMs: 0 } }) });
  });
  afterEach(async () => {
    await app.close();
    expect(fake.unmatched).toEqual([]);
    // Each path wrote as it says: on GraphQL only in mutation documents, on REST never in one.
    const restWrites = fake.requests.filter((r) => isWrite(r) && !isMutationDocument(r)).map((r) => `${r.method} ${r.path}`);
    const documents = fake.requests.filter(isMutationDocument).length;
    if (writes === "graphql") expect([restWrites, documents > 0]).toEqual([[], true]);
    else expect([restWrites.length > 0, documents]).toEqual([true, 0]);
    await fake.close();
  });

  /** A command on an issue, and every effect it queued applied. */
  async function say(body: string, who: UserSpec, issue: number, labels?: string[]): Promise<void> {
    await app.receive("issue_comment", commentPayload({ body, author: who, issue, ...(labels ? { labels } : {}) }));
    await app.runtime.drainer.drainAll();
  }
  const labels = (issue: number) => fake.issueLabels(FULL, issue).sort();
  const repoLabels = () => repoLabelNames(fake).sort();
  /** The repository's labels: those live leases use, and those of leases that ended (lingering on the default GraphQL path, deleted otherwise). */
  const expectRepoLabels = (live: string[], ended: string[]) => expect(repoLabels()).toEqual([...live, ...(linger ? ended : [])].sort());

  it("fits a 39-character login in a holder label of at most 50 characters, unique for two logins sharing a prefix, and deletes it with the lease", async () => {
    const prefix = "a-very-long-github-login-shared-by-";
    const one: UserSpec = { login: `${prefix}0001`, id: 2001, association: "CONTRIBUTOR" };
    const two: UserSpec = { login: `${prefix}0002`, id: 2002, association: "CONTRIBUTOR" };
    await say("/claim", one, 1);
    await say("/claim", two, 2);
    const holderOf = (issue: number) => labels(issue).find((l) => l.startsWith("claimed-by: "))!;
    const [holderOne, holderTwo] = [holderOf(1), holderOf(2)];
    for (const name of [holderOne, holderTwo]) {
      expect(Array.from(name).length).toBeLessThanOrEqual(MAX_LABEL_LENGTH);
      expect(name.startsWith("claimed-by: a-very-long")).toBe(true);
    }
    expect(holderOne).not.toBe(holderTwo);
    expect(labels(1)).toEqual(["claimed", holderOne, "lease #1"].sort());
    // The reply shows the login in full.
    expect(replies(fake, 2)[0]).toMatchObject({ outcome: "acquired", holder: two.login });

    // The release recognises the shortened label as the holder's: off the issue, and out of the repository.
    await say("/release", one, 1);
    expect(labels(1)).toEqual([]);
    expectRepoLabels(["claimed", holderTwo, "lease #1"], [holderOne]);
    expect(fake.assignees(FULL, 1)).toEqual([]);
  });

  it("uses only the labels of custom templates (`claimed: false`, `wip: {holder}`, `tok-{token}`), and deletes them with the lease", async () => {
    fake.setConfigFile(FULL, ".github/issue-leases.yml", 'labels:\n  claimed: false\n  holder: "wip: {holder}"\n  token: "tok-{token}"\n');
    await say("/claim", alice, 1);
    expect(labels(1)).toEqual(["tok-1", "wip: alice"]);
    expect(repoLabels()).toEqual(["tok-1", "wip: alice"]);
    await say("/release", alice, 1);
    expect(labels(1)).toEqual([]);
    expectRepoLabels([], ["tok-1", "wip: alice"]);
    expect(replies(fake, 1).map((r) => r.outcome)).toEqual(["acquired", "released"]);
  });

  it("takes labels another live lease still uses off the issue only, and deletes them from the repository with the last lease", async () => {
    await say("/claim", alice, 1);
    await say("/claim", alice, 2);
    await say("/release", alice, 1);
    expect(labels(1)).toEqual([]);
    expect(labels(2)).toEqual(["claimed", "claimed-by: alice", "lease #1"]);
    expect(repoLabels()).toEqual(["claimed", "claimed-by: alice", "lease #1"]);
    await say("/release", alice, 2);
    expect(labels(2)).toEqual([]);
    expectRepoLabels(["claimed"], ["claimed-by: alice", "lease #1"]);
    expect(await app.ledger.list(REPO.id, now)).toEqual([]);
  });

  it("does not ask the ledger again about labels kept for other leases on a claim: the release of the last lease that uses them deletes them", async () => {
    await say("/claim", alice, 1);
    await say("/claim", alice, 2);
    await say("/release", alice, 1);
    const asked = vi.spyOn(app.ledger, "liveAmong");
    const listed = vi.spyOn(app.ledger, "list");
    await say("/claim", bob, 3);
    expect(labels(3)).toEqual(["claimed", "claimed-by: bob", "lease #1"]);
    expect([asked.mock.calls.length, listed.mock.calls.length]).toEqual([0, 0]);
    await say("/release", bob, 3);
    expect(asked.mock.calls.length).toBeGreaterThan(0);
    expectRepoLabels(["claimed", "claimed-by: alice", "lease #1"], ["claimed-by: bob"]);
    await say("/release", alice, 2);
    expectRepoLabels(["claimed"], ["claimed-by: alice", "claimed-by: bob", "lease #1"]);
  });

  it("ends many leases that share a label together (an expiry wave), deletes it once, and makes it again for the next first tenure", async () => {
    await say("/claim 1h", alice, 1);
    await say("/claim 1h", bob, 2);
    now += 2 * HOUR;
    await app.runtime.sweeper.sweep();
    await app.runtime.drainer.drainAll();
    expect([labels(1), labels(2)]).toEqual([[], []]);
    expectRepoLabels(["claimed"], ["claimed-by: alice", "claimed-by: bob", "lease #1"]);
    expect(fake.assignees(FULL, 1)).toEqual([]);
    expect([replies(fake, 1), replies(fake, 2)].map((r) => r.map((x) => x.op))).toEqual([["claim", "expire"], ["claim", "expire"]]);

    // The next claim of an expired issue is its second tenure; a new issue's first brings `lease #1` back.
    await say("/claim", bob, 1);
    await say("/claim", alice, 3);
    expect(labels(1)).toEqual(["claimed", "claimed-by: bob", "lease #2"]);
    expect(labels(3)).toEqual(["claimed", "claimed-by: alice", "lease #1"]);
    await say("/release", alice, 3);
    expectRepoLabels(["claimed", "claimed-by: bob", "lease #2"], ["claimed-by: alice", "lease #1"]);
  });

  it("lets another claim an expired lease before the sweeper ends it: token 2, the old holder's labels and assignee swapped for the new, one reply", async () => {
    await say("/claim 1h", alice, 1);
    now += 2 * HOUR;
    await say("/claim", bob, 1);
    expect(labels(1)).toEqual(["claimed", "claimed-by: bob", "lease #2"]);
    expect(fake.assignees(FULL, 1)).toEqual(["bob"]);
    expectRepoLabels(["claimed", "claimed-by: bob", "lease #2"], ["claimed-by: alice", "lease #1"]);
    expect(replies(fake, 1).map((r) => [r.outcome, r.token, r.holder])).toEqual([["acquired", 1, "alice"], ["acquired", 2, "bob"]]);
    expect(commentPosts(fake).get(1)).toBe(2);
  });

  it("adds only what an issue lacks, leaves other labels alone, and leaves a `claimed` it did not put there", async () => {
    // A `claimed` left over from before the app (or put there by hand), and a label of the maintainers'.
    fake.addIssue(FULL, 1, { labels: ["claimed", "bug"] });
    await say("/claim", bob, 1, ["claimed", "bug"]);
    expect(labels(1)).toEqual(["bug", "claimed", "claimed-by: bob", "lease #1"]);
    await say("/release", bob, 1);
    expect(labels(1)).toEqual(["bug", "claimed"]);
    expectRepoLabels(["bug", "claimed"], ["claimed-by: bob", "lease #1"]);
  });

  it("never deletes from the repository a holder or token label that existed before the app first used it: it only comes off the issue", async () => {
    // The maintainers had made `claimed-by: bob` and `lease #1` themselves (shown on an issue of theirs, then taken off).
    fake.addIssue(FULL, 9, { labels: ["claimed-by: bob", "lease #1"] });
    fake.addIssue(FULL, 9, { labels: [] });
    for (const issue of [1, 2]) {
      await say("/claim", bob, issue);
      expect(labels(issue)).toEqual(["claimed", "claimed-by: bob", "lease #1"]);
      await say("/release", bob, issue);
      expect(labels(issue)).toEqual([]);
      expect(repoLabels()).toEqual(["claimed", "claimed-by: bob", "lease #1"]);
    }
  });

  it("a holder's next claim finds its labels lingering (one document), and the repository's first effect a day after deletes them", async () => {
    await say("/claim", alice, 1);
    await say("/release", alice, 1);
    const documents = () => fake.requests.filter(isMutationDocument).length;
    const before = documents();
    // An agent's next issue, an hour on: its holder label and `lease #1` are in the repository (lingering) or made again.
    now += HOUR;
    await say("/claim", alice, 2);
    expect(labels(2)).toEqual(["claimed", "claimed-by: alice", "lease #1"]);
    if (writes === "graphql") expect(documents() - before).toBe(linger ? 1 : 2);
    await say("/release", alice, 2);
    expectRepoLabels(["claimed"], ["claimed-by: alice", "lease #1"]);

    // Less than a day on, nothing is deleted; a day after their last use, the repository's next effect deletes them.
    now += 23 * HOUR;
    await say("/claim", bob, 3);
    expectRepoLabels(["claimed", "claimed-by: bob", "lease #1"], ["claimed-by: alice"]);
    now += 2 * HOUR;
    const beforeBob = documents();
    await say("/renew", bob, 3);
    expect(repoLabels()).toEqual(["claimed", "claimed-by: bob", "lease #1"]);
    // On GraphQL the deletion rides in the renewal reply's document.
    if (writes === "graphql") expect(documents() - beforeBob).toBe(1);
    expect(labels(3)).toEqual(["claimed", "claimed-by: bob", "lease #1"]);
  });

  it.runIf(linger)("deletes at most DELETE_AT_ONCE lingering labels with one effect, the oldest first, and the rest with the next", async () => {
    const people: UserSpec[] = Array.from({ length: DELETE_AT_ONCE + 5 }, (_, k) => ({ login: `agent-${k}`, id: 5000 + k, association: "CONTRIBUTOR" }));
    for (const [k, who] of people.entries()) {
      await say("/claim", who, 100 + k);
      await say("/release", who, 100 + k);
      now += 1000;
    }
    const holders = (from: number, to: number) => people.slice(from, to).map((p) => `claimed-by: ${p.login}`);
    expectRepoLabels(["claimed"], [...holders(0, people.length), "lease #1"]);
    now += 25 * HOUR;
    await say("/claim", alice, 1);
    const lastFive = holders(DELETE_AT_ONCE, people.length);
    expect(repoLabels()).toEqual(["claimed", "claimed-by: alice", "lease #1", ...lastFive].sort());
    await say("/release", alice, 1);
    // alice's labels linger from now; the five left go.
    expect(repoLabels()).toEqual(["claimed", "claimed-by: alice", "lease #1"].sort());
  });

  it("with `reminder_before: 1h`, reminds the holder of a 2h lease once when less than 1h is left, across sweeps, mentioning them", async () => {
    fake.setConfigFile(FULL, ".github/issue-leases.yml", "reminder_before: 1h\n");
    await say("/claim 2h", alice, 1);
    const sweepAt = async (ms: number) => {
      now = T0 + ms;
      const swept = await app.runtime.sweeper.sweep();
      await app.runtime.drainer.drainAll();
      return swept;
    };
    for (const at of [30, 59]) expect(await sweepAt(at * 60_000)).toMatchObject({ reminded: 0 });
    expect(replies(fake, 1)).toHaveLength(1);
    expect(await sweepAt(61 * 60_000)).toMatchObject({ reminded: 1 });
    for (const at of [70, 90, 100]) expect(await sweepAt(at * 60_000)).toMatchObject({ expired: 0, reminded: 0 });
    const reminders = replies(fake, 1).filter((r) => r.op === "remind");
    expect(reminders.map((r) => [r.outcome, r.token, r.holder])).toEqual([["reminded", 1, "alice"]]);
    expect(reminders[0]!.body).toContain("@alice, your lease on this issue (token **1**) expires 2026-12-01 14:00 UTC (in 59 minutes).");
    expect(labels(1)).toEqual(["claimed", "claimed-by: alice", "lease #1"]);
    expect(commentPosts(fake).get(1)).toBe(2);
  });
});
