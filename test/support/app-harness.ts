/**
 * A Probot instance running the real app on a real SQLite ledger in a fresh
 * temporary folder, with an injected clock. Deliveries go through
 * `probot.receive`; GitHub is mocked with strict nock (see `githubMock`).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { type AppOptions, issueLeases, type Runtime } from "../../src/app.js";
import { SqliteLedger } from "../../src/ledger/sqlite.js";

export const APP_ID = 777;
export const T0 = Date.parse("2026-12-01T12:00:00Z");
export const API = "https://api.github.com";

export interface Harness {
  probot: Probot;
  ledger: SqliteLedger;
  runtime: Runtime;
  now(): number;
  advance(ms: number): void;
  receive(name: string, payload: Record<string, unknown>, id?: string): Promise<void>;
  /** Applies every due outbox effect (the drainer's loop is off in these tests). */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export async function startApp(opts: Partial<AppOptions> & { start?: number } = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-app-"));
  const ledger = new SqliteLedger(join(dir, "leases.db"));
  let now = opts.start ?? T0;
  let runtime: Runtime | undefined;
  const probot = new Probot({
    appId: APP_ID,
    githubToken: "test-token",
    // As in create-probot-app's template: no retries or throttling in tests.
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
    logLevel: "fatal",
  });
  await probot.load(
    issueLeases({
      ledger,
      clock: () => now,
      background: false,
      handleSignals: false,
      appId: APP_ID,
      ...opts,
      onReady: (r) => (runtime = r),
    }),
  );
  if (!runtime) throw new Error("app did not start");
  const rt = runtime;
  return {
    probot,
    ledger,
    runtime: rt,
    now: () => now,
    advance: (ms) => (now += ms),
    receive: (name, payload, id) => probot.receive({ id: id ?? randomUUID(), name, payload } as never),
    drain: () => rt.drainer.drainAll(),
    async close() {
      await rt.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Strict HTTP mocking: no real network, and every test ends with no pending and no unmatched request. */
export function strictNock(): { unmatched: string[]; verify(): void } {
  const unmatched: string[] = [];
  nock.disableNetConnect();
  nock.emitter.removeAllListeners("no match");
  nock.emitter.on("no match", (req: { method?: string; path?: string; options?: { method?: string; path?: string } }) => {
    unmatched.push(`${req.method ?? req.options?.method} ${req.path ?? req.options?.path}`);
  });
  return {
    unmatched,
    verify() {
      const pending = nock.pendingMocks();
      nock.cleanAll();
      if (pending.length > 0 || unmatched.length > 0) {
        throw new Error(`HTTP mocks: pending ${JSON.stringify(pending)}, unmatched ${JSON.stringify(unmatched)}`);
      }
      unmatched.length = 0;
    },
  };
}

/** No `.github/issue-leases.yml` in the repository nor in the organisation's `.github` repository. */
export function noConfigFile(owner = "Codertocat", repo = "Hello-World"): void {
  nock(API).get(`/repos/${owner}/${repo}/contents/.github%2Fissue-leases.yml`).reply(404, { message: "Not Found" });
  nock(API).get(`/repos/${owner}/.github/contents/.github%2Fissue-leases.yml`).reply(404, { message: "Not Found" });
}

export function configFile(yaml: string, owner = "Codertocat", repo = "Hello-World"): void {
  nock(API).get(`/repos/${owner}/${repo}/contents/.github%2Fissue-leases.yml`).reply(200, yaml, { "content-type": "text/plain" });
}
