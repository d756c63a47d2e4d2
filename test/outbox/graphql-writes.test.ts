/**
 * GITHUB_WRITES=graphql through the whole app: Probot's own Octokit
 * (throttling and retries on) against the fake GitHub on 127.0.0.1, which
 * checks every document against GitHub's published schema and runs it on
 * the state the REST routes change. Counted per command: GraphQL queries
 * (ids the app does not know yet), mutation documents, and REST requests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { commentPosts, FULL, isMutationDocument, replies } from "../e2e/issue-view.js";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import type { RecordedRequest } from "../support/fake-github/types.js";
import { commentPayload, REPO, type UserSpec } from "../support/payloads.js";
import { APP_ID, type AppOnFake, startAppOnFake } from "../support/probot-on-fake.js";
import { waitFor } from "../support/server-process.js";

const SCALE = 400;
const DAY = 24 * 3_600_000;
const person = (i: number): UserSpec => ({ login: `person-${i}`, id: 7000 + i, association: "CONTRIBUTOR" });

let fake: FakeGitHub;
let app: AppOnFake | undefined;
beforeEach(async () => {
  fake = await startFakeGitHub({ appId: APP_ID });
  // The payloads' repository, by the payloads' id: their node ids then name the fake's records.
  fake.addRepo(FULL, { id: REPO.id });
});
afterEach(async () => {
  await app?.close();
  app = undefined;
  expect(fake.unmatched).toEqual([]);
  await fake.close();
});

const isGraphql = (r: RecordedRequest) => r.method === "POST" && r.path === "/graphql";

/** What a slice of the fake's log holds: id queries, mutation documents, and REST requests. */
function kinds(requests: RecordedRequest[]): { queries: number; documents: number; rest: number } {
  const documents = requests.filter(isMutationDocument).length;
  const queries = requests.filter(isGraphql).length - documents;
  return { queries, documents, rest: requests.length - queries - documents };
}

const labels = (issue: number) => fake.issueLabels(FULL, issue).sort();

describe("GITHUB_WRITES=graphql: one document per command", () => {
  it("counts per command, and leaves the issues as the REST path does", async () => {
    let offset = 0;
    app = await startAppOnFake(fake, { writes: "graphql", throttle: { scale: SCALE }, clock: () => Date.now() + offset, sweepIntervalMs: 20, drainer: { pollMs: 10 } });
    const a = app;
    const count = async (act: () => Promise<void>, done: () => boolean) => {
      const before = fake.requests.length;
      await act();
      await waitFor("the effect applied", done, 30_000, 5);
      await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
      return kinds(fake.requests.slice(before));
    };
    const claim = (n: number, who: UserSpec) => () => a.receive("issue_comment", commentPayload({ body: "/claim", author: who, issue: n }));

    // The first claim in a repository: its two config files (REST); the three labels created in one document (the
    // repository's, the issue's and the claimant's ids are the webhook's), then the claim's own document.
    expect(await count(claim(1, person(1)), () => replies(fake, 1).length === 1)).toEqual({ rest: 2, queries: 0, documents: 2 });
    expect(labels(1)).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);
    expect(fake.assignees(FULL, 1)).toEqual(["person-1"]);

    // A second issue by someone new: the holder's label created (`lease #1` exists), then the document.
    expect(await count(claim(2, person(2)), () => replies(fake, 2).length === 1)).toEqual({ rest: 0, queries: 0, documents: 2 });
    expect(labels(2)).toEqual(["claimed", "claimed-by: person-2", "lease #1"]);

    // A refused claim: its reply, one document.
    expect(await count(claim(2, person(3)), () => replies(fake, 2).length === 2)).toEqual({ rest: 0, queries: 0, documents: 1 });

    // A release: the labels taken off (the holder's lingers in the repository, LABEL_LINGER_S), the assignee, the
    // reply: one document.
    const release = () => a.receive("issue_comment", commentPayload({ body: "/release", author: person(2), issue: 2 }));
    expect(await count(release, () => replies(fake, 2).length === 3)).toEqual({ rest: 0, queries: 0, documents: 1 });
    expect(labels(2)).toEqual([]);
    expect(fake.repoLabels(FULL).map((l) => l.name).sort()).toEqual(["claimed", "claimed-by: person-1", "claimed-by: person-2", "lease #1"]);
    expect(fake.assignees(FULL, 2)).toEqual([]);

    // The holder's next issue (an agent's steady state): every label it calls for is there, one document.
    expect(await count(claim(3, person(2)), () => replies(fake, 3).length === 1)).toEqual({ rest: 0, queries: 0, documents: 1 });
    expect(labels(3)).toEqual(["claimed", "claimed-by: person-2", "lease #1"]);

    // A claim of a known issue by a known holder: its new token's label created, then the document.
    expect(await count(claim(2, person(2)), () => replies(fake, 2).length === 4)).toEqual({ rest: 0, queries: 0, documents: 2 });
    expect(labels(2)).toEqual(["claimed", "claimed-by: person-2", "lease #2"]);

    // An expiry: one document each; the labels no lease uses any more linger in the repository.
    offset = 30 * DAY;
    const expired = () => replies(fake, 1).length === 2 && replies(fake, 2).length === 5 && replies(fake, 3).length === 2;
    expect(await count(async () => undefined, expired)).toEqual({ rest: 0, queries: 0, documents: 3 });
    expect(replies(fake, 1).map((r) => r.op)).toEqual(["claim", "expire"]);
    expect([labels(1), labels(2), labels(3)]).toEqual([[], [], []]);
    const lingering = ["claimed", "claimed-by: person-1", "claimed-by: person-2", "lease #1", "lease #2"];
    expect(fake.repoLabels(FULL).map((l) => l.name).sort()).toEqual(lingering);

    // A day on, the repository's next document deletes them: a claim whose labels are there but its holder's.
    offset = 32 * DAY;
    expect(await count(claim(4, person(3)), () => replies(fake, 4).length === 1)).toEqual({ rest: 0, queries: 0, documents: 2 });
    expect(fake.repoLabels(FULL).map((l) => l.name).sort()).toEqual(["claimed", "claimed-by: person-3", "lease #1"]);
    // Every reply went in a document: no REST comment.
    expect(fake.requests.filter((r) => r.method === "POST" && r.path.endsWith("/comments"))).toEqual([]);
    expect([...commentPosts(fake).values()]).toEqual([2, 5, 2, 1]);
    expect(fake.refused).toBe(0);
  });

  it("a 502 after GitHub ran the document: one reply, the labels right, and a label made in a failed attempt still the app's", async () => {
    // Labels no lease calls for are deleted at once (no lingering), to show which the app deletes as its own.
    const drainer = { pollMs: 10, backoffMs: 20, labelLingerMs: 0 };
    app = await startAppOnFake(fake, { writes: "graphql", throttle: { scale: SCALE }, sweepIntervalMs: 60_000, drainer });
    const a = app;
    // The first document (the labels created) runs, and its answer is lost.
    fake.failNextWritesAfterApplying(1, 502);
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1 }));
    await waitFor("the reply", () => replies(fake, 1).length === 1, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    expect(labels(1)).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);

    // The claim's own document runs, and its answer is lost: the next attempt finds the reply among the app's comments.
    fake.failNextWritesAfterApplying(1, 502);
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 2 }));
    await waitFor("the reply", () => replies(fake, 2).length === 1, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    expect(fake.comments(FULL, 2)).toHaveLength(1);
    expect(labels(2)).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);
    expect(fake.assignees(FULL, 2)).toEqual(["person-1"]);

    // Both released: the labels the app made (the first in the attempt whose answer was lost) leave the repository.
    for (const n of [1, 2]) await a.receive("issue_comment", commentPayload({ body: "/release", author: person(1), issue: n }));
    await waitFor("the replies", () => replies(fake, 1).length === 2 && replies(fake, 2).length === 2, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    expect(fake.repoLabels(FULL).map((l) => l.name)).toEqual(["claimed"]);
    expect(fake.comments(FULL, 1)).toHaveLength(2);
  });

  it("one mutation of a document fails (a label deleted by hand meanwhile): the rest is read, the next attempt completes it, one reply", async () => {
    app = await startAppOnFake(fake, { writes: "graphql", throttle: { scale: SCALE }, sweepIntervalMs: 60_000, drainer: { pollMs: 10, backoffMs: 20 } });
    const a = app;
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1 }));
    await waitFor("the reply", () => replies(fake, 1).length === 1, 30_000, 5);
    // Deleted on GitHub without the app hearing of it: its id, which the app kept, finds nothing now.
    const deleted = await fetch(`${fake.baseUrl}/repos/${FULL}/labels/${encodeURIComponent("claimed-by: person-1")}`, { method: "DELETE", headers: { authorization: "token by-hand" } });
    expect(deleted.status).toBe(204);
    const mark = fake.requests.length;
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 2 }));
    await waitFor("the reply", () => replies(fake, 2).length === 1, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    const documents = fake.requests.slice(mark).filter(isMutationDocument);
    // The document whose addLabelsToLabelable met NOT_FOUND; then the label made again; then the effect's document again.
    expect(documents.length).toBe(3);
    expect(fake.comments(FULL, 2)).toHaveLength(1);
    expect(labels(2)).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);
    expect(fake.assignees(FULL, 2)).toEqual(["person-1"]);
  });

  it("a GraphQL rate limit (200 with RATE_LIMITED) pauses the installation for its least pause, never retried at once", async () => {
    // Throttled 20 times faster: the least pause is 3 s; Probot would retry a primary limit at once.
    const limited: number[] = [];
    app = await startAppOnFake(fake, {
      writes: "graphql", throttle: { scale: 20 }, sweepIntervalMs: 60_000, drainer: { pollMs: 10 },
      metrics: null,
    });
    const a = app;
    fake.rateLimitNextGraphql(1);
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1 }));
    await waitFor("the reply", () => replies(fake, 1).length === 1, 30_000, 10);
    const documents = fake.requests.filter(isMutationDocument);
    for (const d of documents) limited.push(d.at);
    // The refused document, then (at least the least pause later) the labels created and the claim's document.
    expect(documents).toHaveLength(3);
    expect(documents[1]!.at - documents[0]!.at).toBeGreaterThanOrEqual(2900);
    expect(fake.comments(FULL, 1)).toHaveLength(1);
    expect(labels(1)).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);
  });

  it("ids a webhook showed that GitHub does not find (the repository's, the issue's) are asked again within the attempt", async () => {
    app = await startAppOnFake(fake, { writes: "graphql", throttle: { scale: SCALE }, sweepIntervalMs: 60_000, drainer: { pollMs: 10, backoffMs: 60_000 } });
    const a = app;
    // Another repository of the owner, by an id the fake does not give it: the payload's node ids name nothing there.
    const other = { id: 555, name: "other" };
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1, repo: other }));
    await waitFor("the reply", () => fake.comments("Codertocat/other", 1).length === 1, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    expect(fake.issueLabels("Codertocat/other", 1).sort()).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);
    expect(fake.assignees("Codertocat/other", 1)).toEqual(["person-1"]);
    // One attempt (a retry would wait a minute here), and no document ran twice.
    const attempts = a.ledger.db.prepare("SELECT attempts FROM outbox WHERE repo_id = ?").all(other.id) as Array<{ attempts: number }>;
    expect(attempts).toEqual([{ attempts: 1 }]);
    // The labels' document meets the unknown repository; the query; the labels again; the claim's document meets the
    // unknown issue; the query; the claim's document again.
    expect(kinds(fake.requests.filter((r) => r.path === "/graphql"))).toEqual({ rest: 0, queries: 2, documents: 4 });
  });

  it("after a restart, an expiry is one document: the issue's and the assignee's ids were kept with the issue", async () => {
    const dir = mkdtempSync(join(tmpdir(), "issue-leases-graphql-"));
    try {
      let offset = 0;
      const opts = { writes: "graphql" as const, throttle: { scale: SCALE }, clock: () => Date.now() + offset, sweepIntervalMs: 20, drainer: { pollMs: 10 } };
      const first = await startAppOnFake(fake, { ...opts, ledger: new SqliteLedger(join(dir, "leases.db")) });
      await first.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1 }));
      await waitFor("the reply", () => replies(fake, 1).length === 1, 30_000, 5);
      await waitFor("an empty outbox", async () => (await first.ledger.outboxStats()).pending === 0, 30_000, 5);
      await first.close();

      // Another process (nothing in memory) on the same ledger, once the term is over.
      const mark = fake.requests.length;
      offset = 30 * DAY;
      app = await startAppOnFake(fake, { ...opts, ledger: new SqliteLedger(join(dir, "leases.db")) });
      await waitFor("the expiry notice", () => replies(fake, 1).length === 2, 30_000, 5);
      await waitFor("an empty outbox", async () => (await app!.ledger.outboxStats()).pending === 0, 30_000, 5);
      // (Besides the inventory's read of the open issues, which a start makes.)
      expect(fake.requests.slice(mark).filter((r) => !isGraphql(r)).map((r) => `${r.method} ${r.path}`)).toEqual([`GET /repos/${FULL}/issues`]);
      expect(kinds(fake.requests.slice(mark))).toMatchObject({ queries: 0, documents: 1 });
      expect(fake.assignees(FULL, 1)).toEqual([]);
      expect(labels(1)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("GITHUB_WRITES=graphql: an issue's waiting effects coalesce", () => {
  /** The app with issue 1 claimed by person-1 and applied; its drainer stopped, so that the next commands' effects wait. */
  async function claimedThenWaiting(drainer: Record<string, number> = {}) {
    app = await startAppOnFake(fake, { writes: "graphql", throttle: { scale: SCALE }, sweepIntervalMs: 60_000, drainer: { pollMs: 10, ...drainer } });
    const a = app;
    await a.receive("issue_comment", commentPayload({ body: "/claim", author: person(1), issue: 1 }));
    await waitFor("the reply", () => replies(fake, 1).length === 1, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    await a.runtime.drainer.stop();
    return a;
  }
  const command = (a: AppOnFake, body: string, who: UserSpec) => a.receive("issue_comment", commentPayload({ body, author: who, issue: 1 }));

  it("three replies waiting on one issue: one document, each reply its own comment with its own marker, in order", async () => {
    const a = await claimedThenWaiting();
    await command(a, "/renew", person(1));
    await command(a, "/claim", person(2));
    await command(a, "/claim", person(3));
    expect((await a.ledger.outboxStats()).pending).toBe(3);
    const mark = fake.requests.length;
    a.runtime.drainer.start();
    await waitFor("the replies", () => replies(fake, 1).length === 4, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    expect(kinds(fake.requests.slice(mark))).toEqual({ rest: 0, queries: 0, documents: 1 });
    const r = replies(fake, 1);
    expect(r.map((x) => [x.op, x.outcome])).toEqual([["claim", "acquired"], ["renew", "renewed"], ["claim", "held"], ["claim", "held"]]);
    expect(new Set(r.map((x) => x.ref)).size).toBe(4);
    expect(labels(1)).toEqual(["claimed", "claimed-by: person-1", "lease #1"]);
  });

  it("a release and a claim waiting: labels and assignee end as the ledger says now, in one document after the new labels'", async () => {
    const a = await claimedThenWaiting();
    await command(a, "/release", person(1));
    await command(a, "/claim", person(2));
    await command(a, "/claim", person(3));
    const mark = fake.requests.length;
    a.runtime.drainer.start();
    await waitFor("the replies", () => replies(fake, 1).length === 4, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    // The new holder's and token's labels created, then one document: person-1's labels off, person-2's on,
    // the assignee changed, three replies.
    expect(kinds(fake.requests.slice(mark))).toEqual({ rest: 0, queries: 0, documents: 2 });
    expect(replies(fake, 1).map((x) => [x.op, x.outcome, x.holder])).toEqual([
      ["claim", "acquired", "person-1"],
      ["release", "released", "person-1"],
      ["claim", "acquired", "person-2"],
      ["claim", "held", "person-2"],
    ]);
    expect(labels(1)).toEqual(["claimed", "claimed-by: person-2", "lease #2"]);
    expect(fake.assignees(FULL, 1)).toEqual(["person-2"]);
    // person-1's labels linger in the repository (LABEL_LINGER_S).
    const lingering = ["claimed-by: person-1", "lease #1"];
    expect(fake.repoLabels(FULL).map((l) => l.name).sort()).toEqual(["claimed", "claimed-by: person-2", "lease #2", ...lingering].sort());
  });

  it("a 502 after GitHub ran the coalesced document: each reply looked for, none posted twice", async () => {
    const a = await claimedThenWaiting({ backoffMs: 20 });
    await command(a, "/renew", person(1));
    await command(a, "/claim", person(2));
    await command(a, "/claim", person(3));
    fake.failNextWritesAfterApplying(1, 502);
    a.runtime.drainer.start();
    await waitFor("the replies", () => replies(fake, 1).length === 4, 30_000, 5);
    await waitFor("an empty outbox", async () => (await a.ledger.outboxStats()).pending === 0, 30_000, 5);
    expect(fake.comments(FULL, 1)).toHaveLength(4);
    // Every effect of the group took a second attempt, which found its reply.
    const attempts = a.ledger.db.prepare("SELECT attempts FROM outbox WHERE issue = 1 ORDER BY id").all() as Array<{ attempts: number }>;
    expect(attempts.map((x) => x.attempts)).toEqual([1, 2, 2, 2]);
  });
});
