/**
 * The real app in this process, authenticated as a GitHub App (JWT,
 * installation tokens) against the fake GitHub on 127.0.0.1, with its
 * background loops on and the real clock: for load and fault tests that
 * drive Probot's own Octokit, its throttling and retry plugins included.
 *
 * `throttle: { scale }` keeps the throttling plugin and its Bottleneck
 * groups, with GitHub's pacing (writes 1 s apart, notification-triggering
 * writes 3 s apart, per installation) run `scale` times faster; `off`
 * turns throttling and retries off, as create-probot-app's tests do.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Bottleneck from "bottleneck";
import { Probot, ProbotOctokit } from "probot";
import { type AppOptions, issueLeases, type Runtime } from "../../src/app.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import type { FakeGitHub } from "./fake-github.js";
import { privateKey } from "./server-process.js";

export const APP_ID = 777;

export type Throttle = { scale: number } | "off";

type OctokitOptions = Record<string, unknown> & { throttle?: Record<string, unknown> };

/** Probot merges its own throttle options over the class's defaults: a defaults function sees them and amends. */
export function pacedOctokit(throttle: Throttle): typeof ProbotOctokit {
  if (throttle === "off") {
    return ProbotOctokit.defaults((o: OctokitOptions) => ({ ...o, retry: { enabled: false }, throttle: { ...o.throttle, enabled: false } }));
  }
  // The plugin's own groups (maxConcurrent 1 and its minTime), keyed by installation as Probot does, scaled.
  const write = new Bottleneck.Group({ id: "octokit-write", maxConcurrent: 1, minTime: 1000 / throttle.scale });
  const notifications = new Bottleneck.Group({ id: "octokit-notifications", maxConcurrent: 1, minTime: 3000 / throttle.scale });
  return ProbotOctokit.defaults((o: OctokitOptions) => ({ ...o, throttle: { ...o.throttle, write, notifications } }));
}

export interface AppOnFake {
  probot: Probot;
  runtime: Runtime;
  ledger: SqliteLedger;
  /** Delivers one event through `probot.receive`, with a fresh delivery id unless given. */
  receive(name: string, payload: Record<string, unknown>, id?: string): Promise<void>;
  close(): Promise<void>;
}

export async function startAppOnFake(
  fake: FakeGitHub,
  opts: { throttle: Throttle } & Omit<Partial<AppOptions>, "ledger"> & { ledger?: SqliteLedger },
): Promise<AppOnFake> {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-onfake-"));
  // A ledger given is shared with another app (a replica); else one of its own.
  const ledger = (opts.ledger as SqliteLedger | undefined) ?? new SqliteLedger(join(dir, "leases.db"));
  const probot = new Probot({
    appId: APP_ID,
    privateKey: privateKey(),
    secret: "test-secret",
    baseUrl: fake.baseUrl,
    Octokit: pacedOctokit(opts.throttle),
    logLevel: "fatal",
  });
  let runtime: Runtime | undefined;
  const { throttle: _throttle, ...appOptions } = opts;
  // GitHub's budget at the throttle's pace: its windows (and the least pause after a secondary limit) scaled alike.
  const scale = opts.throttle === "off" ? null : opts.throttle.scale;
  await probot.load(
    issueLeases({
      appId: APP_ID,
      handleSignals: false,
      budget: scale === null ? null : { minuteMs: 60_000 / scale, hourMs: 3_600_000 / scale },
      ...appOptions,
      drainer: { ...(scale === null ? {} : { minPauseMs: 60_000 / scale }), ...appOptions.drainer },
      ledger,
      onReady: (r) => (runtime = r),
    }),
  );
  if (!runtime) throw new Error("app did not start");
  const rt = runtime;
  return {
    probot,
    runtime: rt,
    ledger,
    receive: (name, payload, id) => probot.receive({ id: id ?? randomUUID(), name, payload } as never),
    async close() {
      await rt.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
