/**
 * What a delivery past its deadline says and logs, in this process with the
 * log captured: what it was waiting for (GitHub, or the ledger, and only then
 * the database), one line per failed handler with the delivery's id and event
 * and never the payload, and how the work ended once it does.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { issueLeases, type Runtime } from "../../src/app.js";
import type { Ledger } from "../../src/ledger/ledger.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { restUrlFor, startFakeGitHub } from "../support/fake-github.js";
import { startGitHubProxy } from "../support/github-proxy.js";
import { alice, commentPayload, issuesPayload } from "../support/payloads.js";
import { pacedOctokit } from "../support/probot-on-fake.js";
import { privateKey, waitFor } from "../support/server-process.js";

const MARKER = "PAYLOAD-MARKER-31";

interface Started {
  probot: Probot;
  lines: Array<Record<string, any>>;
  /** Everything logged, as written. */
  text(): string;
}

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The app on a real SQLite ledger (seen through `wrap`), logging into memory. */
async function start(o: { baseUrl?: string; deadlineMs: number; wrap?: (l: Ledger) => Ledger }): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-delivery-errors-"));
  const sqlite = new SqliteLedger(join(dir, "leases.db"));
  const written: string[] = [];
  // Info, as in production: Probot's own receive() (what these tests call, where GitHub's deliveries come through the middleware) logs the whole event at debug.
  const log = pino({ level: "info" }, { write: (s: string) => void written.push(s) });
  const probot = new Probot({
    appId: 1,
    privateKey: privateKey(),
    secret: "test-secret",
    ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}),
    Octokit: pacedOctokit("off"),
    log,
  });
  let runtime: Runtime | undefined;
  await probot.load(
    issueLeases({
      ledger: o.wrap ? o.wrap(sqlite) : sqlite,
      background: false,
      handleSignals: false,
      appId: 1,
      deliveryDeadlineMs: o.deadlineMs,
      onReady: (r) => (runtime = r),
    }),
  );
  cleanups.push(async () => {
    await runtime?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    probot,
    get lines() {
      return written.map((s) => JSON.parse(s) as Record<string, any>);
    },
    text: () => written.join(""),
  };
}

/** The delivery's rejection, as Probot's receive gives it. */
async function failing(p: Promise<unknown>): Promise<AggregateError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AggregateError);
  return error as AggregateError;
}

describe("a delivery past its deadline", () => {
  it("waiting for GitHub says so, naming the request; when GitHub fails it later, that is logged once with the delivery, no payload", async () => {
    const fake = await startFakeGitHub();
    const proxy = await startGitHubProxy(fake);
    cleanups.push(() => fake.close(), () => proxy.close());
    // GitHub takes the request and never answers, until the test lets it drop the connection.
    let drop!: () => void;
    const dropped = new Promise<void>((resolve) => (drop = resolve));
    proxy.onResponse = async () => {
      await dropped;
      return "drop" as const;
    };
    const app = await start({ baseUrl: restUrlFor(proxy.host, proxy.layout), deadlineMs: 1_500 });
    // Run before the app's shutdown, which waits for the delivery's work.
    cleanups.push(() => drop());
    const id = randomUUID();
    const error = await failing(app.probot.receive({ id, name: "issue_comment", payload: commentPayload({ body: `/claim\n\n${MARKER}`, author: alice }) } as never));

    // Only the command's handler waited for GitHub; the others (the ledger's) were done.
    expect(error.errors).toHaveLength(1);
    const [failed] = error.errors as Array<Error & Record<string, unknown>>;
    expect(failed!.message).toMatch(
      new RegExp(`^not handled within 1500 ms, waiting for GitHub to answer POST ${restUrlFor(proxy.host, proxy.layout).replace(/\./g, "\\.")}/app/installations/\\d+/access_tokens; GitHub may redeliver$`),
    );
    expect(failed!.message).not.toMatch(/database/);
    expect(failed).toMatchObject({ status: 500, delivery: id, webhook: "issue_comment.created" });
    // What Probot's error handler logged of it: one line, with the delivery id.
    const atDeadline = app.lines.filter((l) => l.level >= 50);
    expect(atDeadline).toHaveLength(1);
    expect(atDeadline[0]).toMatchObject({ id, msg: failed!.message, err: { type: "DeliveryFailed", delivery: id } });

    drop();
    const late = await waitFor("the late failure's line", () => app.lines.find((l) => /failed after its deadline/.test(String(l.msg))));
    expect(late).toMatchObject({
      level: 50,
      delivery: id,
      webhook: "issue_comment.created",
      github: expect.stringMatching(/^POST http:\/\/127\.0\.0\.1:\d+\/api\/v3\/app\/installations\/\d+\/access_tokens$/),
      code: "UND_ERR_SOCKET",
    });
    expect(late.msg).toBe(`delivery ${id} (issue_comment.created) failed after its deadline: other side closed`);
    expect(app.lines.filter((l) => l.level >= 50)).toHaveLength(2);
    expect(app.text()).not.toContain(MARKER);
  });

  it("waiting for the ledger says so, and only then asks whether the database answers; the work finishing later is noted", async () => {
    let open!: () => void;
    let gate: Promise<void> | null = null;
    // Every ledger operation waits at the gate once it is shut: a database that stopped answering.
    const gated = (inner: Ledger): Ledger =>
      new Proxy(inner, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver) as unknown;
          if (typeof value !== "function") return value;
          return async (...args: unknown[]) => {
            if (gate) await gate;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    const app = await start({ deadlineMs: 300, wrap: gated });
    gate = new Promise<void>((resolve) => (open = resolve));
    cleanups.push(() => open());
    const id = randomUUID();
    const payload = issuesPayload("edited", { sender: alice });
    payload.issue.title = MARKER;
    const error = await failing(app.probot.receive({ id, name: "issues", payload } as never));

    // Three handlers ask the ledger about an edited issue (who the sender is, the board's view of it, the inventory): each waited.
    expect(error.errors).toHaveLength(3);
    for (const failed of error.errors as Array<Error & Record<string, unknown>>) {
      expect(failed.message).toMatch(/^not handled within 300 ms, waiting for the ledger \([a-zA-Z, ]+\): is the database answering\?; GitHub may redeliver$/);
      expect(failed).toMatchObject({ delivery: id, webhook: "issues.edited" });
    }
    open();
    await waitFor("the work done after the deadline", () =>
      app.lines.filter((l) => /done after its deadline/.test(String(l.msg))).length === error.errors.length,
    );
    expect(app.lines.filter((l) => l.level >= 50)).toHaveLength(error.errors.length);
    expect(app.text()).not.toContain(MARKER);
  });
});
