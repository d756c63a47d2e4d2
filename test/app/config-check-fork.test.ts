/**
 * The config check of a pull request from a fork, end to end through
 * `probot.receive` with real pull request payloads (the head repository made
 * a fork's, or deleted), strict HTTP mocks and a real SQLite ledger. The
 * fork's file is anyone's to write and the check run is public: an
 * `_extends` into a repository that is not public is not read, and the check
 * run says the same whatever that repository holds (a file, none, a big one,
 * a value to bisect against); a public one, or another path of the base
 * repository itself, is still followed; the repository's own pull requests
 * follow every `_extends` as before.
 */
import nock from "nock";
import { describe, expect, it } from "vitest";
import { API, configFile, useApp } from "../support/app-harness.js";
import { expectClosing } from "../support/check-mocks.js";
import {
  CONFIG_PATH,
  type ConfigCheckBody,
  expectConfigCheck,
  expectFile,
  expectFileAt,
  expectNamedCheck,
  expectPullFiles,
  problemLines,
} from "../support/config-check-mocks.js";
import { alice, checkRunRerequestedPayload, pullRequestPayload, REPO } from "../support/payloads.js";
import { APP_ID } from "../support/app-harness.js";

const FORK_OWNER = "mallory";
/** The installation's private repository the fork's file names. */
const INFRA = "infra";
const PRIVATE_PATH = "deploy/prod.yml";
/** What the private file holds: a bound to bisect against, a key the schema lacks (its line), a secret. */
const PRIVATE_TEXT = "max_ttl: 3h\n\nsecret_key_17: hunter2\n";

/** A pull request opened from `mallory`'s fork (or from a deleted fork: `head: null`), at `sha`. */
function forkPullRequest(pull: number, sha: string, head: "fork" | null = "fork"): Record<string, any> {
  const p = pullRequestPayload("opened", { number: pull, author: alice, headSha: sha });
  if (head === null) {
    p.pull_request.head.repo = null;
    return p;
  }
  const base = p.pull_request.base.repo;
  p.pull_request.head.repo = {
    ...base,
    id: base.id + 1,
    node_id: "R_fork",
    full_name: `${FORK_OWNER}/${base.name}`,
    owner: { ...base.owner, login: FORK_OWNER, id: 9_999 },
    fork: true,
  };
  p.pull_request.head.label = `${FORK_OWNER}:main`;
  return p;
}

/** GitHub's answer to `GET /repos/{owner}/{repo}`: the repository, or 404 (not there, or not the token's to see). */
function expectRepo(owner: string, repo: string, seen: { private: boolean; visibility: string } | null): void {
  const scope = nock(API).get(`/repos/${owner}/${repo}`);
  if (seen === null) scope.reply(404, { message: "Not Found" });
  else scope.reply(200, { id: 555, name: repo, full_name: `${owner}/${repo}`, owner: { login: owner }, ...seen });
}

/** The private file, served if anyone asks (nock: optional), and whether anyone did. */
function offerPrivateFile(text: string | null): { read: boolean } {
  const asked = { read: false };
  nock(API)
    .get(`/repos/${REPO.owner}/${INFRA}/contents/${encodeURIComponent(PRIVATE_PATH)}`)
    .optionally()
    .reply(() => {
      asked.read = true;
      return text === null ? [404, { message: "Not Found" }] : [200, text, { "content-type": "text/plain" }];
    });
  return asked;
}

describe("the config check of a pull request from a fork", () => {
  const t = useApp();

  /** The same event's lease check: the base repository's config (none), what the pull request closes, its run. */
  const leaseCheck = (pull: number, first: boolean) => {
    if (first) configFile("");
    expectClosing(pull, {});
    return expectNamedCheck("issue-leases");
  };

  /** Opens fork pull request `pull` whose file is `text` at its head, and returns its config check run. */
  const openFork = async (pull: number, text: string, opts: { first?: boolean; head?: "fork" | null } = {}): Promise<ConfigCheckBody> => {
    const sha = String(pull % 10).repeat(40);
    leaseCheck(pull, opts.first ?? pull === 2);
    expectPullFiles(pull, [[[CONFIG_PATH, "modified"]]]);
    expectFileAt(sha, text);
    const checks = expectConfigCheck();
    await t.h.receive("pull_request", forkPullRequest(pull, sha, opts.head ?? "fork"));
    await t.h.drain();
    expect(checks).toHaveLength(1);
    return checks[0]!;
  };

  it("whose file extends a repository that is not public: nothing of it is read, and the check run is the same whatever it holds", async () => {
    const own = `_extends: ${INFRA}:${PRIVATE_PATH}\nmin_ttl: 4h\n`;
    const big = `# ${"x".repeat(70 * 1024)}\nmax_ttl: 3h\n`;
    // A private repository with the file (a value to bisect, a key the schema lacks), with a big one, with none;
    // an internal one; one GitHub does not show the installation (or that does not exist).
    const cases: Array<{ repo: { private: boolean; visibility: string } | null; file: string | null }> = [
      { repo: { private: true, visibility: "private" }, file: PRIVATE_TEXT },
      { repo: { private: true, visibility: "private" }, file: big },
      { repo: { private: true, visibility: "private" }, file: null },
      { repo: { private: true, visibility: "internal" }, file: PRIVATE_TEXT },
      { repo: null, file: null },
    ];
    const outputs: Array<ConfigCheckBody["output"]> = [];
    for (const [i, c] of cases.entries()) {
      expectRepo(REPO.owner, INFRA, c.repo);
      const asked = offerPrivateFile(c.file);
      const check = await openFork(2 + i, own);
      expect(asked.read).toBe(false);
      expect(check.conclusion).toBe("success");
      outputs.push(check.output);
    }
    // One answer for all: it tells neither the file's existence, its size, its keys' lines nor its values.
    for (const output of outputs) expect(output).toEqual(outputs[0]);
    const output = outputs[0]!;
    expect(output.title).toBe(".github/issue-leases.yml is valid on its own (_extends not checked)");
    expect(output.summary).toMatch(/^min_ttl: 4 hours$/m);
    expect(output.summary).toMatch(/^max_ttl: 30 days +# default$/m);
    expect(output.summary).toContain(
      "`_extends: infra:deploy/prod.yml` was not checked: on a pull request from a fork, the check reads another repository's file only when that repository is public",
    );
    expect(JSON.stringify(output)).not.toMatch(/secret|hunter2|3 hours|3h|KiB|:3:|deploy\/prod\.yml:\d/);
    expect(output.annotations).toBeUndefined();
  });

  it("whose head repository was deleted: checked as a fork's", async () => {
    expectRepo(REPO.owner, INFRA, { private: true, visibility: "private" });
    const asked = offerPrivateFile(PRIVATE_TEXT);
    const check = await openFork(2, `_extends: ${INFRA}:${PRIVATE_PATH}\nmin_ttl: 4h\n`, { head: null });
    expect(asked.read).toBe(false);
    expect(check.output.title).toBe(".github/issue-leases.yml is valid on its own (_extends not checked)");
    expect(JSON.stringify(check.output)).not.toMatch(/secret|hunter2|3 hours/);
  });

  it("whose file extends a public repository: followed, its problems told; its own `_extends` into a private one is not", async () => {
    expectRepo("octo-org", "shared", { private: false, visibility: "public" });
    expectFile("octo-org", "shared", CONFIG_PATH, `_extends: ${INFRA}:${PRIVATE_PATH}\nclaimers: everyone\n`);
    expectRepo(REPO.owner, INFRA, { private: true, visibility: "private" });
    const asked = offerPrivateFile(PRIVATE_TEXT);
    const check = await openFork(2, "_extends: octo-org/shared\nmin_ttl: 4h\n");
    expect(asked.read).toBe(false);
    expect(check.conclusion).toBe("failure");
    expect(problemLines(check.output.summary)).toEqual([
      "octo-org/shared:.github/issue-leases.yml:2:1: `claimers`: must be one of `anyone`, `collaborators`, `members`.",
    ]);
    expect(check.output.summary).toContain("`_extends: infra:deploy/prod.yml` was not checked");
    expect(JSON.stringify(check.output)).not.toMatch(/secret|hunter2|3 hours/);
  });

  it("whose file extends another path of the base repository: followed without asking GitHub, even when private", async () => {
    // Whoever can open a pull request on the repository can read it: no visibility asked (strict mocks: none is mocked).
    expectFile(REPO.owner, REPO.name, "conf/base.yml", "max_ttl: 3h\n");
    const check = await openFork(2, `_extends: ${REPO.name}:conf/base.yml\nmin_ttl: 4h\n`);
    expect(check.conclusion).toBe("failure");
    expect(problemLines(check.output.summary)).toEqual([
      ".github/issue-leases.yml:2:1: `min_ttl`: is longer than `max_ttl`; make `min_ttl` shorter or `max_ttl` longer.",
      `${REPO.owner}/${REPO.name}:conf/base.yml:1:1: \`min_ttl\`: is longer than \`max_ttl\`; make \`min_ttl\` shorter or \`max_ttl\` longer.`,
    ]);
  });

  it("Re-run on a fork's commit (its suite's head branch null) reads it with the fork's gate again", async () => {
    const sha = "7".repeat(40);
    expectFileAt(sha, `_extends: ${INFRA}:${PRIVATE_PATH}\nmin_ttl: 4h\n`);
    expectRepo(REPO.owner, INFRA, { private: true, visibility: "private" });
    const asked = offerPrivateFile(PRIVATE_TEXT);
    const checks = expectConfigCheck();
    const rerun = checkRunRerequestedPayload({ name: "issue-leases config", appId: APP_ID, headSha: sha, sender: alice });
    rerun.check_run.check_suite.head_branch = null;
    await t.h.receive("check_run", rerun, "rerun-fork");
    await t.h.drain();
    expect(asked.read).toBe(false);
    expect(checks[0]?.output.title).toBe(".github/issue-leases.yml is valid on its own (_extends not checked)");
  });
});

describe("the config check of the repository's own pull request", () => {
  const t = useApp();

  it("follows an `_extends` into a private repository as before, asking GitHub nothing about it", async () => {
    const sha = "d".repeat(40);
    configFile("");
    expectClosing(2, {});
    expectNamedCheck("issue-leases");
    expectPullFiles(2, [[[CONFIG_PATH, "modified"]]]);
    expectFileAt(sha, `_extends: ${INFRA}:${PRIVATE_PATH}\nmin_ttl: 4h\n`);
    expectFile(REPO.owner, INFRA, PRIVATE_PATH, PRIVATE_TEXT);
    const checks = expectConfigCheck();
    await t.h.receive("pull_request", pullRequestPayload("opened", { number: 2, author: alice, headSha: sha }));
    await t.h.drain();
    expect(checks[0]?.conclusion).toBe("failure");
    // Its lines, as a push's check tells them (never its values, nor the unknown key's name).
    expect(problemLines(checks[0]!.output.summary).map((l) => l.split(": ")[0])).toEqual([
      ".github/issue-leases.yml:2:1",
      `${REPO.owner}/${INFRA}:${PRIVATE_PATH}:1:1`,
      `${REPO.owner}/${INFRA}:${PRIVATE_PATH}:3:1`,
    ]);
  });
});
