/**
 * The GitHub Action as the runner runs it: the committed bundles
 * (action/dist/, what action.yml names) started with `node`, with every
 * input as `INPUT_*`, the event's payload at `GITHUB_EVENT_PATH`, and the
 * step's `GITHUB_OUTPUT` and `GITHUB_STATE` files, against the real server
 * (built, in a child process) and the fake GitHub. The post step gets the
 * main step's state as `STATE_*`, as the runner gives it, also after a later
 * step failed or the main step was killed.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LeaseClient } from "@issue-leases/client";
import { commentPayload, maintainer, pullRequestPayload, REPO } from "../support/payloads.js";
import { ensureBuilt, type ServerProcess, waitFor } from "../support/server-process.js";
import { FULL, replies } from "../e2e/issue-view.js";
import { history } from "../e2e/ledger-file.js";
import { type LiveApp, withLiveApp } from "../e2e/live-app.js";
import { job, type Job, runStep, startStep, workflowCommands } from "./actions-runner.js";

const BOT_TOKEN = "ghs_workflow_token_e2e";
const BOT = { login: "deploy-bot", id: 5001 };
const OTHER_TOKEN = "ghp_other_bot_e2e";
const OTHER = { login: "other-bot", id: 5002 };

beforeAll(async () => {
  await ensureBuilt();
}, 300_000);

const jobs: Job[] = [];
afterAll(() => {
  for (const j of jobs) j.remove();
});

/** A job started by a comment on `issue`, whose GITHUB_TOKEN is the bot's. */
function commentJob(issue: number): Job {
  const j = job({ event: { name: "issue_comment", payload: commentPayload({ body: "please fix", issue }) }, githubToken: BOT_TOKEN, repository: FULL });
  jobs.push(j);
  return j;
}

async function start(live: LiveApp): Promise<ServerProcess> {
  live.fake.addRepo(FULL, { id: REPO.id });
  live.fake.addToken(BOT_TOKEN, BOT);
  live.fake.addToken(OTHER_TOKEN, OTHER);
  live.fake.setPermission(FULL, maintainer.login, "write");
  live.fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\n");
  return live.start();
}

const errors = (stdout: string) => workflowCommands(stdout).filter((c) => c.command === "error").map((c) => c.message);

describe.concurrent("the action, run as the runner runs it", () => {
  it("claims the event's issue in main (outputs, state, the token masked); post releases it after a later step failed", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const j = commentJob(6);
      const main = await runStep(j, "main", { url: server.url, ttl: "10m" });
      expect(main.stderr).toBe("");
      expect(main.code).toBe(0);
      // The workflow's token is masked before anything else is printed.
      expect(main.stdout.split("\n")[0]).toBe(`::add-mask::${BOT_TOKEN}`);
      expect(errors(main.stdout)).toEqual([]);
      expect(main.outputs).toEqual({
        token: "1",
        expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/),
        issue: `${FULL}#6`,
        instance: expect.stringMatching(new RegExp(`^gha-${j.runId}-1-[0-9a-f]{8}$`)),
      });
      expect(main.state).toEqual({ issue: `${FULL}#6`, instance: main.outputs.instance });
      expect(main.stdout).toContain(`issue-leases: ${FULL}#6 is yours (instance ${main.outputs.instance}): token 1, until `);

      const client = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      expect(await client.status(`${FULL}#6`)).toMatchObject({ holder: { ...BOT, instance: main.outputs.instance }, token: 1 });

      // A later step uses the output (`${{ steps.lease.outputs.token }}`) and fails; the runner runs
      // the post step all the same, with the main step's state.
      const later = spawnSync("bash", ["-c", 'test "$LEASE_TOKEN" = 1 && exit 1'], { env: { PATH: process.env.PATH ?? "", LEASE_TOKEN: main.outputs.token! } });
      expect(later.status).toBe(1);
      const post = await runStep(j, "post", { url: server.url, ttl: "10m" }, main.state);
      expect(post.stderr).toBe("");
      expect(post.code).toBe(0);
      expect(post.stdout).toContain(`issue-leases: released ${FULL}#6 (token 1)`);
      expect(workflowCommands(post.stdout).filter((c) => c.command !== "add-mask")).toEqual([]);
      expect((await client.status(`${FULL}#6`)).holder).toBeNull();

      await live.settled(server);
      expect(replies(live.fake, 6).map((r) => [r.op, r.outcome, r.holder])).toEqual([
        ["claim", "acquired", "deploy-bot"],
        ["release", "released", "deploy-bot"],
      ]);
    }), 180_000);

  it("a claim held by someone else fails the step with an ::error:: naming the holder; post releases nothing", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const other = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      await other.claim(`${FULL}#7`, { ttl: "1h" });
      const j = commentJob(1);
      const main = await runStep(j, "main", { url: server.url, issue: "7" });
      expect(main.code).toBe(1);
      expect(errors(main.stdout)).toEqual([
        expect.stringMatching(
          new RegExp(`^${FULL}#7: ${FULL}#7 is held by other-bot with token 1, until \\S+Z; set wait \\(e\\.g\\. wait: 10m\\) to wait for it$`),
        ),
      ]);
      expect(main.outputs).toEqual({});
      expect(main.state).toEqual({});

      const post = await runStep(j, "post", { url: server.url, issue: "7" }, main.state);
      expect(post.code).toBe(0);
      expect(post.stdout).toContain("nothing to release");
      expect(await other.status(`${FULL}#7`)).toMatchObject({ holder: { login: "other-bot" }, token: 1 });
      expect(history(live.dbFile).filter((h) => h.issue === 7).map((h) => h.op)).not.toContain("release");
    }), 180_000);

  it("with wait, a held issue is asked for again until its holder releases it, then claimed", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const other = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      await other.claim(`${FULL}#8`, { ttl: "1h" });
      const j = commentJob(1);
      const step = startStep(j, "main", { url: server.url, issue: `${FULL}#8`, wait: "5m", ttl: "10m" });
      await waitFor("the step waiting", () => /asking again in \d+ s/.test(step.stdout()));
      expect(step.stdout()).toMatch(new RegExp(`issue-leases: ${FULL}#8 is held by other-bot with token 1, until \\S+; asking again in 15 s \\(waiting \\d+ s more at most\\)`));
      await other.release(`${FULL}#8`);
      const main = await step.done;
      expect(errors(main.stdout)).toEqual([]);
      expect(main.code).toBe(0);
      expect(main.outputs.token).toBe("2");
      const post = await runStep(j, "post", { url: server.url }, main.state);
      expect(post.stdout).toContain(`issue-leases: released ${FULL}#8 (token 2)`);
    }), 180_000);

  it("with command, runs it under the lease (its token in the environment, the inputs not), renewing, and releases when it exits", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const j = commentJob(9);
      const gate = join(j.dir, "gate");
      const command = [
        `test "$ISSUE_LEASES_TOKEN" = 1 && test "$ISSUE_LEASES_REF" = "${FULL}#9" && test -n "$ISSUE_LEASES_INSTANCE" || exit 99`,
        `test -z "$(env | grep ^INPUT_)" || exit 98`,
        `echo "working under token $ISSUE_LEASES_TOKEN at $ISSUE_LEASES_URL"`,
        `while [ ! -e ${gate} ]; do sleep 0.1; done`,
      ].join("\n");
      // Renewed every 10 s: a loaded machine's slow answer does not lose it.
      const step = startStep(j, "main", { url: server.url, command, ttl: "30s" });
      await waitFor("a renewal while the command runs", () => history(live.dbFile).some((h) => h.issue === 9 && h.op === "renew"));
      expect(step.stdout()).toContain(`working under token 1 at ${server.url}/`);
      writeFileSync(gate, "");
      const main = await step.done;
      expect(errors(main.stdout)).toEqual([]);
      expect(main.code).toBe(0);
      expect(main.outputs).toMatchObject({ token: "1" });
      // Released by the step itself: the state's last word leaves the post step nothing.
      expect(main.state.issue).toBe("");
      expect(history(live.dbFile).filter((h) => h.issue === 9).map((h) => h.op).at(-1)).toBe("release");
      const post = await runStep(j, "post", { url: server.url, command }, main.state);
      expect(post.stdout).toContain("nothing to release");
    }), 180_000);

  it("with command, a failing command fails the step with its status; a lost lease stops it and fails the step", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const j = commentJob(10);
      const failing = await runStep(j, "main", { url: server.url, command: "echo trying; exit 3", ttl: "1m" });
      expect(failing.code).toBe(3);
      expect(errors(failing.stdout)).toEqual([`${FULL}#10: the command exited with status 3`]);
      const client = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      expect((await client.status(`${FULL}#10`)).holder).toBeNull();

      const marker = join(j.dir, "stopped");
      const step = startStep(j, "main", { url: server.url, command: `trap 'echo stopped > ${marker}; exit 143' TERM; while :; do sleep 0.1; done`, ttl: "6s" });
      await waitFor("the claim", () => step.stdout().includes("is yours"));
      await live.comment(server, "/release @deploy-bot", maintainer, 10);
      const lost = await step.done;
      expect(lost.code).toBe(76);
      expect(readFileSync(marker, "utf8")).toBe("stopped\n");
      expect(errors(lost.stdout)).toEqual([`${FULL}#10: the lease was lost while the command ran, and the command was stopped`]);
      // Told by the app's event stream, most often; by a renewal or the check made when the stream opened, if either came first.
      expect(lost.stdout).toMatch(
        new RegExp(`issue-leases: lost the lease on ${FULL}#10: (the app's event stream says it was released by maint, a maintainer \\(lease\\.ended\\)|not the holder)`),
      );

      // watch: false: renewals alone tell (every third of the 6 s TTL), never the stream.
      const unwatched = startStep(j, "main", { url: server.url, command: "while :; do sleep 0.1; done", ttl: "6s", watch: "false" });
      await waitFor("the claim again", () => unwatched.stdout().includes("is yours"));
      await live.comment(server, "/release @deploy-bot", maintainer, 10);
      const told = await unwatched.done;
      expect(told.code).toBe(76);
      expect(told.stdout).toContain(`issue-leases: lost the lease on ${FULL}#10: not the holder`);
      expect(told.stdout).not.toContain("event stream");
    }), 180_000);

  it("post releases the lease of a main step killed while its command ran", () =>
    withLiveApp(async (live) => {
      const server = await start(live);
      const j = commentJob(11);
      const pidFile = join(j.dir, "command.pid");
      const step = startStep(j, "main", { url: server.url, command: `echo $$ > ${pidFile}; while :; do sleep 0.1; done`, ttl: "10m" });
      try {
        await waitFor("the command running", () => step.stdout().includes("is yours") && readFileSync(pidFile, "utf8").trim() !== "");
        // The runner gives up on the step (a timeout, a lost runner process): no release by the step itself.
        process.kill(-step.process.pid!, "SIGKILL");
      } finally {
        try {
          process.kill(-Number(readFileSync(pidFile, "utf8").trim()), "SIGKILL");
        } catch {
          // Not started, or gone.
        }
      }
      const main = await step.done;
      expect(main.code).toBeNull();
      expect(main.state).toMatchObject({ issue: `${FULL}#11` });
      const post = await runStep(j, "post", { url: server.url }, main.state);
      expect(post.stdout).toContain(`issue-leases: released ${FULL}#11 (token 1)`);
      const client = new LeaseClient({ baseUrl: server.url, token: OTHER_TOKEN });
      expect((await client.status(`${FULL}#11`)).holder).toBeNull();
    }), 180_000);
});

describe("the action's inputs, checked before anything is asked", () => {
  it("an event without an issue and no issue input fails the step saying what to set", async () => {
    const j = job({ event: { name: "pull_request", payload: pullRequestPayload("opened", {}) }, githubToken: BOT_TOKEN, repository: FULL });
    jobs.push(j);
    const main = await runStep(j, "main", { url: "https://leases.example.com" });
    expect(main.code).toBe(1);
    expect(errors(main.stdout)).toEqual(["the issue input is empty and pull_request is not about an issue: set issue, e.g. issue: 12 or owner/repo#12"]);
    expect(main.state).toEqual({});
  });

  it("a URL without a scheme, and plain http to another machine, are refused with what to write", async () => {
    const j = commentJob(1);
    const bare = await runStep(j, "main", { url: "leases.example.com" });
    expect(bare.code).toBe(1);
    expect(errors(bare.stdout)).toEqual(['the url input is not a URL, not "leases.example.com": write it as https://leases.example.com']);
    const http = await runStep(j, "main", { url: "http://leases.example.com" });
    expect(errors(http.stdout)[0]).toMatch(/^the url input is http:\/\/leases\.example\.com, plain http to another machine: .* or set allow-http: true on a network you trust$/);
  });
});
