/**
 * What every e2e test needs, per test so that tests can run concurrently (they
 * spend their time waiting out GitHub's throttle, not computing): a fake
 * GitHub of its own, a fresh database folder, the servers it started killed
 * afterwards, and, when it fails, what GitHub saw and what the servers
 * logged.
 */
import { expect } from "vitest";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import { commentPayload, type UserSpec } from "../support/payloads.js";
import { type ServerProcess, startServer, waitFor } from "../support/server-process.js";
import { commentPosts, replies, runReport, tempDir } from "./issue-view.js";

export interface LiveApp {
  readonly fake: FakeGitHub;
  /** The test's database file; a restart on it continues the ledger. */
  readonly dbFile: string;
  /** Starts the real server on the test's database; `github` defaults to the fake (a proxy in front of it also works). */
  start(env?: Record<string, string>, github?: { host: string }): Promise<ServerProcess>;
  /** Delivers a comment and expects the delivery to be accepted (200). */
  comment(server: ServerProcess, body: string, author: UserSpec, issue?: number, id?: string): Promise<void>;
  /** Waits until /health reports no pending effect. */
  settled(server: ServerProcess, timeoutMs?: number): Promise<void>;
  /** Exactly `count` replies on the issue, each posted once (no marker ref twice, no second POST). */
  expectOneReplyEach(issue: number, count: number): void;
}

export async function withLiveApp(test: (live: LiveApp) => Promise<void>): Promise<void> {
  const fake = await startFakeGitHub();
  const tmp = tempDir();
  const servers: ServerProcess[] = [];
  const live: LiveApp = {
    fake,
    dbFile: tmp.db,
    async start(env = {}, github = fake) {
      // These tests watch GitHub's REST requests (a comment's POST, its 502): they run the REST path unless told
      // otherwise. The GraphQL path's faults are pinned in-process (test/outbox/graphql-writes.test.ts).
      // E2E_GITHUB_WRITES=graphql runs them on the GraphQL path: 29 of 39 pass; the others wait for REST's
      // comment POSTs and writes to fault or count, and are still to port.
      const server = await startServer({ fake: github, dbFile: tmp.db, env: { GITHUB_WRITES: process.env.E2E_GITHUB_WRITES ?? "rest", ...env } });
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
