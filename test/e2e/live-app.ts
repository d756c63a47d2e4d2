/**
 * What every e2e test needs, per test so that tests can run concurrently (they
 * spend their time waiting out GitHub's throttle, not computing): a fake
 * GitHub of its own, a fresh database folder, the servers it started killed
 * afterwards, and, when it fails, what GitHub saw and what the servers
 * logged.
 */
import { expect } from "vitest";
import { type FakeGitHub, type Layout, startFakeGitHub } from "../support/fake-github.js";
import { commentPayload, REPO, type UserSpec } from "../support/payloads.js";
import { type ServerProcess, startServer, waitFor } from "../support/server-process.js";
import { commentPosts, replies, runReport, tempDir } from "./issue-view.js";

/**
 * The path the app processes write on: E2E_GITHUB_WRITES, REST unless told
 * (CI runs the process tests once on each path). The tests tell a write, a
 * reply's post and a fault on either (./issue-view.ts).
 */
export const E2E_WRITES: "rest" | "graphql" = process.env.E2E_GITHUB_WRITES === "graphql" ? "graphql" : "rest";

export interface LiveApp {
  readonly fake: FakeGitHub;
  /** The test's database file; a restart on it continues the ledger. */
  readonly dbFile: string;
  /** Starts the real server on the test's database; `github` defaults to the fake (a proxy in front of it also works). */
  start(env?: Record<string, string>, github?: { host: string; layout?: Layout }): Promise<ServerProcess>;
  /** Delivers a comment and expects the delivery to be accepted (200). */
  comment(server: ServerProcess, body: string, author: UserSpec, issue?: number, id?: string): Promise<void>;
  /** Waits until /health reports no pending effect. */
  settled(server: ServerProcess, timeoutMs?: number): Promise<void>;
  /** Exactly `count` replies on the issue, each posted once (no marker ref twice, no second POST). */
  expectOneReplyEach(issue: number, count: number): void;
}

/** `layout`: GitHub's layout the fake serves (default FAKE_GITHUB_LAYOUT, else Enterprise Server's). */
export async function withLiveApp(test: (live: LiveApp) => Promise<void>, opts: { layout?: Layout } = {}): Promise<void> {
  const fake = await startFakeGitHub(opts.layout ? { layout: opts.layout } : {});
  // The payloads' repository by its id: the node ids webhooks carry (R_…, I_…) name the fake's records.
  fake.addRepo(`${REPO.owner}/${REPO.name}`, { id: REPO.id });
  const tmp = tempDir();
  const servers: ServerProcess[] = [];
  const live: LiveApp = {
    fake,
    dbFile: tmp.db,
    async start(env = {}, github = fake) {
      const server = await startServer({ fake: github, dbFile: tmp.db, env: { GITHUB_WRITES: E2E_WRITES, ...env } });
      servers.push(server);
      return server;
    },
    async comment(server, body, author, issue = 1, id) {
      expect(await server.send("issue_comment", commentPayload({ body, author, issue }), { id })).toBe(200);
    },
    async settled(server, timeoutMs = 60_000) {
      await waitFor("an empty outbox", async () => (await server.health()).body.outbox.pending === 0, timeoutMs);
    },
    expectOneReplyEach(issue, count) {
      const r = replies(fake, issue);
      expect(r).toHaveLength(count);
      expect(new Set(r.map((x) => x.ref)).size).toBe(count);
      expect(commentPosts(fake).get(issue) ?? 0).toBe(count);
    },
  };
  try {
    await test(live);
  } catch (error) {
    console.log(runReport(fake, servers));
    throw error;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await fake.close();
    tmp.remove();
  }
}
