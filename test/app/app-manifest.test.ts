/**
 * `app.yml`, the manifest Probot's setup page registers the app with: GitHub
 * sends an app only the events its registration subscribes to, so an event
 * the app handles but the manifest lacks is a feature that never runs (a
 * holder's reviews renewing the lease did not, for every app registered
 * from it). The events are those the real app registers with Probot when
 * loaded, not a list kept by hand.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { issueLeases, type Runtime } from "../../src/app.js";
import { SqliteLedger } from "../../src/ledger/sqlite/sqlite-ledger.js";
import { ROOT } from "../support/server-process.js";

/** GitHub sends these to every app, whatever it subscribes to; a manifest cannot list them. */
const ALWAYS_SENT = new Set(["installation", "installation_repositories"]);

/** The event names (without their actions) the app passes to `app.on`, as it loads. */
async function handledEvents(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-manifest-"));
  const probot = new Probot({ appId: 1, githubToken: "test-token", logLevel: "fatal" });
  const names = new Set<string>();
  const on = probot.on.bind(probot);
  probot.on = ((events: string | string[], handler: never) => {
    for (const e of [events].flat()) names.add(e.split(".")[0]!);
    return on(events as never, handler);
  }) as typeof probot.on;
  let runtime: Runtime | undefined;
  try {
    await probot.load(
      issueLeases({ ledger: new SqliteLedger(join(dir, "leases.db")), background: false, handleSignals: false, appId: 1, onReady: (r) => (runtime = r) }),
    );
  } finally {
    await runtime?.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
  return [...names].sort();
}

describe("app.yml", () => {
  const manifest = parse(readFileSync(join(ROOT, "app.yml"), "utf8")) as { default_events: string[]; default_permissions: Record<string, string> };

  it("subscribes to every event the app handles", async () => {
    const handled = await handledEvents();
    // The app's own routes, read as it loads: the list is not empty, and holds the reviews that renew a lease.
    expect(handled).toEqual(expect.arrayContaining(["issue_comment", "pull_request_review", "pull_request_review_comment"]));
    const missing = handled.filter((e) => !ALWAYS_SENT.has(e) && !manifest.default_events.includes(e));
    expect(missing).toEqual([]);
  });

  it("asks for the pull requests permission the review events need", () => {
    // GitHub sends pull_request_review and pull_request_review_comment to an app with pull requests access.
    expect(["read", "write"]).toContain(manifest.default_permissions["pull_requests"]);
  });
});
