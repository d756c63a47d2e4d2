/**
 * The check run `issue-leases config`, end to end through `probot.receive`
 * with real push and pull request payloads, strict HTTP mocks and a real
 * SQLite ledger: the file read at the commit, the check run posted by the
 * outbox on that commit, every problem at its line and column (in the file
 * that has it, `_extends` followed), and no request for a push that does not
 * touch the file.
 */
import { describe, expect, it } from "vitest";
import { configCheckKey } from "../../src/leasing/handle-config-check.js";
import { configFile, useApp } from "../support/app-harness.js";
import { expectClosing } from "../support/check-mocks.js";
import {
  CONFIG_PATH,
  expectConfigCheck,
  expectFile,
  expectFileAt,
  expectNamedCheck,
  expectPullFiles,
  problemLines,
} from "../support/config-check-mocks.js";
import { alice, maintainer, pullRequestPayload, pushPayload, REPO } from "../support/payloads.js";

const SHA = "1".repeat(40);
const repoKey = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
const historyOf = async (h: ReturnType<typeof useApp>["h"], issue: number) =>
  (await h.ledger.history(repoKey(issue))).map((e) => [e.op, e.outcome, e.actor?.login]);
/** The config checks in an issue's history (a pull request's has its lease checks too). */
const configChecks = async (h: ReturnType<typeof useApp>["h"], issue: number) => (await historyOf(h, issue)).filter(([, outcome]) => String(outcome).startsWith("config_"));

const BROKEN = ["default_ttl: 3d", "labels:", "  holder: nope", "  claimd: x", "exempt_labels:", "  - pinned", '  - ""', "bots: yes", ""].join("\n");

describe("the config check on a push", () => {
  const t = useApp();

  it("to any branch, changing the file: success on the pushed commit, with the config in force and its defaults marked", async () => {
    const { h } = t;
    expectFileAt(SHA, "default_ttl: 3d\nexempt_labels: [pinned]\n");
    await h.receive("push", pushPayload({ ref: "refs/heads/leases", modified: [CONFIG_PATH], after: SHA, sender: maintainer }));
    const checks = expectConfigCheck();
    await h.drain();

    expect(checks).toHaveLength(1);
    expect(checks[0]).toMatchObject({ name: "issue-leases config", head_sha: SHA, status: "completed", conclusion: "success" });
    expect(checks[0]!.output.title).toBe(".github/issue-leases.yml is valid");
    const summary = checks[0]!.output.summary;
    expect(summary).toMatch(/^default_ttl: 3 days$/m);
    expect(summary).toMatch(/^exempt_labels: \[ pinned \]$/m);
    expect(summary).toMatch(/^min_ttl: 1 minute +# default$/m);
    expect(summary).toMatch(/^bots: true +# default$/m);
    expect(checks[0]!.output.annotations).toBeUndefined();
    // Recorded in the repository's history (issue 0) by the pusher, under the commit's key.
    expect(await historyOf(h, 0)).toEqual([["note", "config_ok", "maint"]]);
    expect(await h.ledger.recorded(configCheckKey(REPO.id, SHA))).not.toBeNull();
  });

  it("with problems: a failure listing every one as FILE:LINE:COLUMN, each marked on its line", async () => {
    const { h } = t;
    expectFileAt(SHA, BROKEN);
    await h.receive("push", pushPayload({ added: [CONFIG_PATH], after: SHA }));
    const checks = expectConfigCheck();
    await h.drain();

    const check = checks[0]!;
    expect(check).toMatchObject({ name: "issue-leases config", head_sha: SHA, conclusion: "failure" });
    expect(check.output.title).toBe("4 problems in .github/issue-leases.yml");
    expect(problemLines(check.output.summary)).toEqual([
      '.github/issue-leases.yml:3:3: `labels.holder`: `nope` must contain `{holder}`, e.g. "claimed-by: {holder}".',
      ".github/issue-leases.yml:4:3: `labels.claimd`: unknown key; did you mean `claimed`?",
      '.github/issue-leases.yml:7:5: `exempt_labels.1`: is empty; write label names such as ["pinned"].',
      ".github/issue-leases.yml:8:1: `bots`: must be `true` or `false`, not `yes`.",
    ]);
    expect(check.output.annotations?.map((a) => [a.path, a.start_line, a.start_column, a.annotation_level])).toEqual([
      [CONFIG_PATH, 3, 3, "failure"],
      [CONFIG_PATH, 4, 3, "failure"],
      [CONFIG_PATH, 7, 5, "failure"],
      [CONFIG_PATH, 8, 1, "failure"],
    ]);
    expect(await historyOf(h, 0)).toEqual([["note", "config_invalid", "Codertocat"]]);
  });

  it("that `_extends` another file: the merged result is checked, and a problem of the other file names it at its line", async () => {
    const { h } = t;
    // A value of the other file is wrong: that file, its line and column, and the rule without the value.
    expectFileAt(SHA, "_extends: shared:conf/leases.yml\nmin_ttl: 2d\n");
    expectFile(REPO.owner, "shared", "conf/leases.yml", "assign: true\nclaimers: 'secret @alice'\n");
    await h.receive("push", pushPayload({ modified: [CONFIG_PATH], after: SHA }));
    let checks = expectConfigCheck();
    await h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
    expect(problemLines(checks[0]!.output.summary)).toEqual([
      "Codertocat/shared:conf/leases.yml:2:1: `claimers`: must be one of `anyone`, `collaborators`, `members`.",
    ]);
    expect(checks[0]!.output.summary).not.toContain("secret");
    // Only the file's own problems are marked on its lines: none here.
    expect(checks[0]!.output.annotations).toBeUndefined();

    // Two keys of two files that disagree: one line in each file, no duration of the other file shown.
    const next = "2".repeat(40);
    expectFileAt(next, "_extends: shared:conf/leases.yml\nmin_ttl: 2d\n");
    expectFile(REPO.owner, "shared", "conf/leases.yml", "assign: true\nmax_ttl: 13h\n");
    await h.receive("push", pushPayload({ modified: [CONFIG_PATH], after: next }));
    checks = expectConfigCheck();
    await h.drain();
    const message = "`min_ttl`: is longer than `max_ttl`; make `min_ttl` shorter or `max_ttl` longer.";
    expect(problemLines(checks[0]!.output.summary)).toEqual([
      `.github/issue-leases.yml:2:1: ${message}`,
      `Codertocat/shared:conf/leases.yml:2:1: ${message}`,
    ]);
    expect(checks[0]!.output.summary).not.toMatch(/13|hours/);

    // Valid once merged: the other file's values are in force but not shown.
    const good = "3".repeat(40);
    expectFileAt(good, "_extends: shared:conf/leases.yml\nmin_ttl: 2d\n");
    expectFile(REPO.owner, "shared", "conf/leases.yml", "max_ttl: 13d\n");
    await h.receive("push", pushPayload({ modified: [CONFIG_PATH], after: good }));
    checks = expectConfigCheck();
    await h.drain();
    expect(checks[0]?.conclusion).toBe("success");
    expect(checks[0]!.output.summary).toMatch(/^min_ttl: 2 days$/m);
    // Commented out, so that the block pasted into a file is still valid config (issue 40).
    expect(checks[0]!.output.summary).toMatch(/^# max_ttl: … +# from Codertocat\/shared:conf\/leases\.yml$/m);
    expect(checks[0]!.output.summary).not.toContain("13");
  });

  it("not touching the file makes no request and writes nothing", async () => {
    const { h } = t;
    // Strict mocks with none set: any request fails the test.
    await h.receive("push", pushPayload({ modified: ["README.md", "docs/.github/issue-leases.yml"], after: SHA }));
    await h.receive("push", pushPayload({ ref: "refs/heads/feature", added: ["src/app.ts"], after: SHA }));
    const deleted = pushPayload({ ref: "refs/heads/old", after: "0".repeat(40) });
    deleted.deleted = true;
    deleted.commits = [];
    await h.receive("push", deleted);
    await h.drain();
    expect(await h.ledger.recorded(configCheckKey(REPO.id, SHA))).toBeNull();
    expect(await historyOf(h, 0)).toEqual([]);
  });

  it("whose commit no longer has the file (removed by a later commit): nothing is posted", async () => {
    const { h } = t;
    expectFileAt(SHA, null);
    await h.receive("push", pushPayload({ modified: [CONFIG_PATH], after: SHA }));
    await h.drain();
    expect(await historyOf(h, 0)).toEqual([]);
  });
});

describe("the config check on a pull request", () => {
  const t = useApp();

  /** The lease check the same event posts: its config read (`first`: then cached), what the pull request closes (nothing), its check run. */
  const leaseCheck = (pull: number, first = true) => {
    if (first) configFile("");
    expectClosing(pull, {});
    return expectNamedCheck("issue-leases");
  };

  it("whose files include it (on the second page): checked at the pull request's head", async () => {
    const { h } = t;
    const head = "b".repeat(40);
    const lease = leaseCheck(2);
    const others = Array.from({ length: 100 }, (_, i): [string, string] => [`src/file-${i}.ts`, "modified"]);
    expectPullFiles(2, [others, [[CONFIG_PATH, "modified"]]]);
    expectFileAt(head, "claimers: everyone\n");
    const checks = expectConfigCheck();
    await h.receive("pull_request", pullRequestPayload("opened", { number: 2, author: alice, headSha: head, changedFiles: 101 }));
    await h.drain();

    expect(checks[0]).toMatchObject({ name: "issue-leases config", head_sha: head, conclusion: "failure" });
    expect(problemLines(checks[0]!.output.summary)).toEqual([
      ".github/issue-leases.yml:1:1: `claimers`: must be one of `anyone`, `collaborators`, `members`, not `everyone`.",
    ]);
    expect(lease[0]?.conclusion).toBe("neutral");
    // Recorded in the pull request's history, beside its lease check.
    expect(await configChecks(h, 2)).toEqual([["note", "config_invalid", "alice"]]);
  });

  it("whose files do not include it (or only remove it): one page of files read, no config check", async () => {
    const { h } = t;
    for (const [pull, status] of [[2, "modified"], [3, "removed"]] as const) {
      const lease = leaseCheck(pull, pull === 2);
      expectPullFiles(pull, [[["README.md", "modified"], [CONFIG_PATH, status === "removed" ? "removed" : "unchanged"]]]);
      await h.receive("pull_request", pullRequestPayload("opened", { number: pull, author: alice, headSha: String(pull).repeat(40) }));
      await h.drain();
      expect(lease).toHaveLength(1);
      expect(await configChecks(h, pull)).toEqual([]);
    }
  });

  it("after a push of the same head: checked once, and the pull request's event costs no request for it", async () => {
    const { h } = t;
    const head = "c".repeat(40);
    expectFileAt(head, "default_ttl: 2d\n");
    const push = pushPayload({ ref: "refs/heads/feature", modified: [CONFIG_PATH], after: head });
    await h.receive("push", push, "delivery-1");
    // The same delivery again: nothing more.
    await h.receive("push", push, "delivery-1");
    const checks = expectConfigCheck();
    await h.drain();
    expect(checks).toHaveLength(1);

    // No files read, no file read: only the lease check's requests are mocked.
    const lease = leaseCheck(4);
    await h.receive("pull_request", pullRequestPayload("synchronize", { number: 4, author: alice, headSha: head }));
    await h.drain();
    expect(lease).toHaveLength(1);
    expect(await configChecks(h, 4)).toEqual([]);
    expect(await configChecks(h, 0)).toEqual([["note", "config_ok", "Codertocat"]]);
  });
});
