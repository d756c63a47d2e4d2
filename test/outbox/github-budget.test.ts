/**
 * GitHub's budget through the whole app: Probot's own Octokit (throttling
 * and retries on) against the fake GitHub on 127.0.0.1, which refuses any
 * content-creating request over its minute's or hour's limit (and counts it:
 * a test fails on any). The limits are shrunk to 10 a minute and 30 an hour,
 * and time runs 400 times faster (a minute is 150 ms, an hour 9 s).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commentPosts, FULL, replies } from "../e2e/issue-view.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import type { RecordedRequest } from "../support/fake-github/types.js";
import { commentPayload, REPO, type UserSpec } from "../support/payloads.js";
import { APP_ID, type AppOnFake, startAppOnFake } from "../support/probot-on-fake.js";
import { waitFor } from "../support/server-process.js";

const SCALE = 400;
const MINUTE = 60_000 / SCALE;
const HOUR = 3_600_000 / SCALE;
const PER_MINUTE = 10;
const PER_HOUR = 30;
const DAY = 24 * 3_600_000;

const person = (i: number): UserSpec => ({ login: `person-${i}`, id: 7000 + i, association: "CONTRIBUTOR" });

let fake: FakeGitHub;
let app: AppOnFake | undefined;
beforeEach(async () => {
  fake = await startFakeGitHub({ appId: APP_ID });
  // The payloads' repository by their id: the node ids they carry name the fake's records.
  fake.addRepo(FULL, { id: REPO.id });
  fake.setContentLimits([
    { max: PER_MINUTE, windowMs: MINUTE },
    { max: PER_HOUR, windowMs: HOUR },
  ]);
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  await fake.close();
});

/** Whether GitHub counted the request as content-creating: a POST (not a GraphQL query), or a GraphQL document of mutations. */
const creates = (r: RecordedRequest) =>
  r.method === "POST" && (r.path !== "/graphql" || /^\s*mutation\b/.test(String((r.body as { query?: unknown } | undefined)?.query)));

/** The most content-creating requests GitHub saw in any window of `windowMs` (they are the app's). */
function mostIn(windowMs: number): number {
  const at = fake.requests.filter((r) => creates(r) && r.status < 400).map((r) => r.at);
  let most = 0;
  for (let a = 0, b = 0; b < at.length; b++) {
    while (at[b]! - at[a]! >= windowMs) a++;
    most = Math.max(most, b - a + 1);
  }
  return most;
}

/** The order in which the app's replies were posted, by REST or in a GraphQL document: [issue, op]. */
function postedOrder(): Array<[number, string]> {
  const seen = new Map<number, number>();
  const out: Array<[number, string]> = [];
  for (const r of fake.requests) {
    if (r.status >= 400) continue;
    for (const where of r.posted ?? []) {
      const issue = Number(where.slice(where.indexOf("#") + 1));
      const k = seen.get(issue) ?? 0;
      seen.set(issue, k + 1);
      out.push([issue, replies(fake, issue)[k]!.op]);
    }
  }
  return out;
}

describe("GitHub's budget on the REST path (GITHUB_WRITES=rest)", () => {
  it("requests per command on the REST path, as the manual's \"GitHub's limits\" (docs/operators/github-limits.md) counts them", async () => {
    let offset = 0;
    app = await startAppOnFake(fake, { writes: "rest", throttle: { scale: SCALE }, clock: () => Date.now() + offset, sweepIntervalMs: 20, drainer: { pollMs: 10 } });
    const a = app;
    /** GitHub requests (reads included) and content-creating POSTs made for what `act` did. */
    const count = async (act: () => Promise<void>, done: () => boolean) => {
      const before = fake.requests.length;
      await act();
      await waitFor("the effect applied", done, 30_000, 5);
      await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
      const made = fake.requests.slice(before);
      return [made.length, made.filter((r) => r.method === "POST").length];
    };
    const claim = (n: number, who: UserSpec) => () => a.receive("issue_comment", commentPayload({ body: "/claim", author: who, issue: n }));
    // The first claim in a repository: its config files read (the repository's and its owner's `.github`), the
    // `claimed` label created, and for each new holder and token label a read (a label that existed before is never
    // the app's to delete).
    expect(await count(claim(1, person(1)), () => replies(fake, 1).length === 1)).toEqual([2 + 1 + 2 + 3, 4]);
    // Then: the new holder's label name looked up (`lease #1` is known: tokens count per issue), labels, assignee, reply.
    expect(await count(claim(2, person(2)), () => replies(fake, 2).length === 1)).toEqual([1 + 3, 3]);
    // A refused claim: the reply.
    expect(await count(claim(2, person(3)), () => replies(fake, 2).length === 2)).toEqual([1, 1]);
    // A release: the holder's and token's labels deleted from the repository (no other lease uses them), the `claimed` label taken off, the assignee, the reply.
    const release = () => a.receive("issue_comment", commentPayload({ body: "/release", author: person(2), issue: 2 }));
    expect(await count(release, () => replies(fake, 2).length === 3)).toEqual([5, 1]);
    // An expiry: the same five.
    offset = 30 * DAY;
    expect(await count(async () => undefined, () => replies(fake, 1).length === 2)).toEqual([5, 1]);
    expect(replies(fake, 1).map((r) => r.op)).toEqual(["claim", "expire"]);
    expect(fake.refused).toBe(0);
  });
});

describe.each(["graphql", "rest"] as const)("GitHub's budget, through the whole app (GITHUB_WRITES=%s)", (writes) => {
  it("a 429 is not retried by Octokit within seconds: the installation pauses for its least pause, then the claim lands once", async () => {
    // Throttled 20 times faster: the least pause is 3 s; Octokit's retry plugin would retry after 1 s.
    app = await startAppOnFake(fake, { writes, throttle: { scale: 20 }, sweepIntervalMs: 60_000, drainer: { pollMs: 10 } });
    const a = app;
    fake.failNextWrites(1, 429);
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1 }));
    await waitFor("the reply", () => replies(fake, 1).length === 1, 30_000, 10);
    const sent = fake.requests.filter((r) => r.method !== "GET");
    const limited = sent.findIndex((r) => r.status === 429);
    expect(limited).toBeGreaterThanOrEqual(0);
    expect(sent.filter((r) => r.status === 429)).toHaveLength(1);
    expect(sent[limited + 1]!.at - sent[limited]!.at).toBeGreaterThanOrEqual(2900);
    expect(commentPosts(fake).get(1)).toBe(1);
  });

  it("more commands than an hour's budget: every reply lands once, no limit is passed, replies to commands go before expiry notices", async () => {
    let offset = 0;
    app = await startAppOnFake(fake, {
      writes,
      throttle: { scale: SCALE },
      // Reserves of 5 % and 10 % (the defaults are 1 % and 3 %): with limits this small, the tiers then differ.
      budget: { contentPerMinute: PER_MINUTE, contentPerHour: PER_HOUR, minuteMs: MINUTE, hourMs: HOUR, reserves: { 0: 0, 1: 0.05, 2: 0.1 } },
      clock: () => Date.now() + offset,
      sweepIntervalMs: 20,
      // Four effects in flight at most: notices waiting for the budget must not take the places of replies.
      drainer: { pollMs: 10, batchSize: 4 },
    });
    const a = app;
    // 28 content-creating requests, the hour's budget for notices (30 less its reserve). On REST, nine claims: the
    // `claimed` label, then labels, assignee and reply each. With GraphQL, fourteen: each a document creating its
    // new holder's label (the first also `claimed` and `lease #1`), and its own document.
    const first = Array.from({ length: writes === "rest" ? 9 : 14 }, (_, i) => i + 1);
    for (const n of first) await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(n), issue: n }));
    await waitFor("the first claims' replies", () => first.every((n) => replies(fake, n).length === 1), 60_000, 5);

    // Their terms end (the ledger's clock jumps), and the sweeper queues their expiry notices, which wait for the hour.
    offset = 30 * DAY;
    await waitFor("the expiry wave in the outbox", () => (a.ledger.db.prepare("SELECT COUNT(*) AS n FROM outbox WHERE priority = 1").get() as { n: number }).n === first.length, 10_000, 5);
    await waitFor("every term ended", async () => (await a.ledger.expiredSince(Date.now() + offset, 1)).length === 0, 10_000, 5);
    // More commands than the hour has room for: eight claims of free issues, and one of an issue whose term just ended.
    const second = Array.from({ length: 8 }, (_, i) => i + first.length + 1);
    for (const n of second) await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(n), issue: n }));
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(30), issue: 1 }));

    await waitFor("every reply", () => second.every((n) => replies(fake, n).length === 1) && replies(fake, 1).length === 2, 120_000, 10);
    await waitFor("the expiry notices", () => first.slice(1).every((n) => replies(fake, n).length === 2), 120_000, 10);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 10);

    // GitHub never refused a request, and the budget was what held the app back.
    expect(fake.refused).toBe(0);
    expect(mostIn(HOUR)).toBeLessThanOrEqual(PER_HOUR);
    expect(mostIn(HOUR)).toBeGreaterThanOrEqual(PER_HOUR - 2);
    expect(mostIn(MINUTE)).toBeLessThanOrEqual(PER_MINUTE);
    expect(fake.requests.filter((r) => r.status === 403 || r.status === 429)).toEqual([]);

    // Each reply once.
    const posts = commentPosts(fake);
    for (const n of second) expect(replies(fake, n).map((r) => [r.op, r.outcome, r.holder])).toEqual([["claim", "acquired", person(n).login]]);
    for (const n of first.slice(1)) {
      expect(replies(fake, n).map((r) => [r.op, r.outcome, r.holder])).toEqual([
        ["claim", "acquired", person(n).login],
        ["expire", "expired", person(n).login],
      ]);
    }
    for (const n of [...first, ...second]) expect(posts.get(n)).toBe(replies(fake, n).length);
    // Issue 1 changed hands while its notice waited over the hour's budget: the notice was folded into the new claim's reply.
    expect(replies(fake, 1).map((r) => [r.op, r.outcome, r.holder, r.token])).toEqual([
      ["claim", "acquired", person(1).login, 1],
      ["claim", "acquired", person(30).login, 2],
    ]);
    expect(fake.assignees(FULL, 1)).toEqual([person(30).login]);

    // Replies to the later commands went first: every one before any expiry notice.
    const order = postedOrder().filter(([issue]) => issue !== 1);
    const lastReply = Math.max(...order.flatMap(([issue], i) => (second.includes(issue) ? [i] : [])));
    const firstNotice = order.findIndex(([, op]) => op === "expire");
    expect(lastReply).toBeLessThan(firstNotice);
  }, 180_000);
});
