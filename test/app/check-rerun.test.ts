/**
 * "Re-run" on the app's check runs (check_run.rerequested), through
 * probot.receive with real payloads, strict HTTP mocks and a real SQLite
 * ledger: the config check reads the file at the commit again and posts a
 * new run, once per delivery; the lease check of the pull requests the run
 * names is queued again; another app's run, or a run of another name, costs
 * no request.
 */
import { describe, expect, it } from "vitest";
import { APP_ID, configFile, useApp } from "../support/app-harness.js";
import { expectCheck, expectClosing, expectComment } from "../support/check-mocks.js";
import { CONFIG_PATH, expectConfigCheck, expectFileAt, expectPullFilesWithoutConfig } from "../support/config-check-mocks.js";
import { alice, bob, checkRunRerequestedPayload, commentPayload, maintainer, pullRequestPayload, pushPayload, REPO } from "../support/payloads.js";

const SHA = "1".repeat(40);
const QUIET = "assign: false\nlabels:\n  claimed: false\n  holder: false\n  token: false\n  in_review: false\n";

describe("Re-run on the app's check runs", () => {
  const t = useApp();

  it("the config check: the file read at the commit again and a new run posted; a redelivery of the same re-run posts none", async () => {
    const { h } = t;
    expectFileAt(SHA, "default_ttl: 3d\n");
    await h.receive("push", pushPayload({ modified: [CONFIG_PATH], after: SHA, sender: maintainer }));
    let checks = expectConfigCheck();
    await h.drain();
    expect(checks[0]).toMatchObject({ head_sha: SHA, conclusion: "success" });

    // The same push again changes nothing: one check per commit.
    await h.receive("push", pushPayload({ modified: [CONFIG_PATH], after: SHA, sender: maintainer }));
    await h.drain();

    // Re-run: read again (the file now fails), posted again.
    expectFileAt(SHA, "default_ttl: forever\n");
    checks = expectConfigCheck();
    const rerun = checkRunRerequestedPayload({ name: "issue-leases config", appId: APP_ID, headSha: SHA, sender: maintainer });
    await h.receive("check_run", rerun, "rerun-1");
    await h.drain();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: "issue-leases config", head_sha: SHA, conclusion: "failure" });
    expect(checks[0]!.output.summary).toContain("default_ttl");

    // GitHub delivering the same re-run again: nothing more.
    await h.receive("check_run", rerun, "rerun-1");
    await h.drain();
    // Another re-run (the file fixed in the repository it reads): read and posted again.
    expectFileAt(SHA, "default_ttl: 2d\n");
    checks = expectConfigCheck();
    await h.receive("check_run", rerun, "rerun-2");
    await h.drain();
    expect(checks[0]).toMatchObject({ head_sha: SHA, conclusion: "success" });
    const history = await h.ledger.history({ repoId: REPO.id, issue: 0 });
    expect(history.map((e) => [e.outcome, e.actor?.login])).toEqual([
      ["config_ok", "maint"],
      ["config_invalid", "maint"],
      ["config_ok", "maint"],
    ]);
  });

  it("the lease check: each pull request the run names is checked again, on what the app saw of it", async () => {
    const { h } = t;
    configFile(QUIET);
    expectComment(1, "acquired");
    await h.receive("issue_comment", commentPayload({ body: "/claim", author: alice, issue: 1 }));
    await h.drain();
    let checks = expectCheck();
    expectClosing(2, { linked: [1] });
    expectPullFilesWithoutConfig(2);
    const head = "b".repeat(40);
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, body: "Fixes #1", author: bob, headSha: head }));
    await h.drain();
    expect(checks[0]).toMatchObject({ name: "issue-leases", head_sha: head, conclusion: "failure" });

    // Re-run by Bob: checked again (the issues it closes read from GitHub again), posted again.
    checks = expectCheck();
    expectClosing(2, { linked: [1] });
    const rerun = checkRunRerequestedPayload({ name: "issue-leases", appId: APP_ID, headSha: head, pulls: [2], sender: bob });
    await h.receive("check_run", rerun, "rerun-2");
    await h.drain();
    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: "issue-leases", head_sha: head, conclusion: "failure" });
    expect(checks[0]?.output.summary).toContain("**alice**");
    // Its redelivery: nothing more.
    await h.receive("check_run", rerun, "rerun-2");
    await h.drain();
  });

  it("another app's run, or a run of another name: no request, nothing recorded", async () => {
    const { h } = t;
    await h.receive("check_run", checkRunRerequestedPayload({ name: "issue-leases config", appId: APP_ID + 1, headSha: SHA }), "other-app");
    await h.receive("check_run", checkRunRerequestedPayload({ name: "build", appId: APP_ID, headSha: SHA, pulls: [2] }), "other-name");
    await h.drain();
    expect(await h.ledger.history({ repoId: REPO.id, issue: 0 })).toEqual([]);
    expect(await h.ledger.history({ repoId: REPO.id, issue: 2 })).toEqual([]);
  });
});
