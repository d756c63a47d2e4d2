/**
 * Claim next through the real server (issue 22), on each backend: SQLite
 * (one process) and PostgreSQL (two replicas, the test playing the load
 * balancer), against the fake GitHub. The inventory is filled from the
 * fake's issue list on install; twenty agents asking at once get twenty
 * different issues, each with token 1; forty more over the thirty left get
 * thirty leases and ten `nothing_ready` answers that count the held ones.
 * Every answer is checked against the OpenAPI document (api-calls.ts).
 */
import { LeaseClient, NothingReadyError } from "@issue-leases/client";
import { describe, expect, it } from "vitest";
import type { FakeGitHub } from "../support/fake-github.js";
import { installationPayload, issuesPayload, REPO } from "../support/payloads.js";
import type { ServerProcess } from "../support/server-process.js";
import { waitFor } from "../support/server-process.js";
import { FULL } from "../e2e/issue-view.js";
import { withLiveApp } from "../e2e/live-app.js";
import { withCluster } from "../e2e/pg-cluster.js";
import { type ApiAnswer, call } from "./api-calls.js";

const NEXT = `/api/v1/repos/${FULL}/leases/next`;
const ORG_NEXT = `/api/v1/orgs/${REPO.owner}/leases/next`;
const AGENTS = Array.from({ length: 20 }, (_, i) => ({
  token: `ghp_agent${String(i).padStart(2, "0")}Token${"A".repeat(26)}`,
  login: `agent-${i}`,
  id: 7000 + i,
}));

/** Two workflows' GITHUB_TOKENs: one account, two installations (another owner's repository, and this one). */
const ELSEWHERE_RUN = `ghs_elsewhereRun${"E".repeat(24)}`;
const HERE_RUN = `ghs_hereRun${"H".repeat(29)}`;

/** 50 open issues labelled `ready`, and two that are not: a `question` and one without labels. */
function seed(fake: FakeGitHub): void {
  fake.addRepo(FULL, { id: REPO.id });
  for (let n = 1; n <= 50; n++) fake.addIssue(FULL, n, { title: `task ${n}`, labels: ["ready"] });
  fake.addIssue(FULL, 51, { title: "a question", labels: ["question"] });
  fake.addIssue(FULL, 52, { title: "untriaged" });
  for (const a of AGENTS) fake.addToken(a.token, { login: a.login, id: a.id });
}

/** Installs the app (its inventory is filled from the fake's issue list) and waits until `next` answers from it. */
async function install(servers: ServerProcess[]): Promise<void> {
  expect(await servers[0]!.send("installation", installationPayload("created", [{ id: REPO.id, name: REPO.name }]))).toBe(200);
  await waitFor("the inventory filled", async () => {
    const answers = await Promise.all(servers.map((s) => call(s, "POST", NEXT, { token: AGENTS[0]!.token, body: { labels: ["no-such-label"] } })));
    return answers.every((a) => a.status === 404);
  }, 30_000, 200);
}

const issues = (answers: ApiAnswer[]) => answers.filter((a) => a.status === 200).map((a) => a.body.issue as number);

async function twentyThenForty(servers: ServerProcess[]): Promise<void> {
  const on = (i: number) => servers[i % servers.length]!;
  const first = await Promise.all(AGENTS.map((a, i) => call(on(i), "POST", NEXT, { token: a.token, body: { labels: ["ready"], ttl: "2h" } })));
  expect(first.map((a) => a.status)).toEqual(AGENTS.map(() => 200));
  expect(new Set(issues(first)).size).toBe(20);
  for (const [i, a] of first.entries()) {
    expect(a.body).toMatchObject({ outcome: "acquired", repo: FULL, token: 1, holder: { login: AGENTS[i]!.login, id: AGENTS[i]!.id, instance: null } });
  }
  // Oldest first: the twenty are the first twenty issues.
  expect(issues(first).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

  const more = await Promise.all(
    [...AGENTS, ...AGENTS].map((a, i) => call(on(i), "POST", NEXT, { token: a.token, body: { labels: ["ready"], instance: `w-${i}` } })),
  );
  const taken = issues(more);
  expect(taken).toHaveLength(30);
  expect(new Set([...taken, ...issues(first)]).size).toBe(50);
  expect(more.filter((a) => a.status === 200).every((a) => a.body.token === 1)).toBe(true);
  const none = more.filter((a) => a.status === 404);
  expect(none).toHaveLength(10);
  for (const a of none) expect(a.body).toEqual({ error: { code: "nothing_ready", message: expect.any(String) }, matched: 50, held: 50 });
  // The question and the untriaged issue are still there for whoever asks without the filter.
  const rest = await call(on(0), "POST", NEXT, { token: AGENTS[0]!.token, body: { exclude_labels: ["question"] } });
  expect(rest.body).toMatchObject({ outcome: "acquired", issue: 52, token: 1 });
}

describe.concurrent("POST …/leases/next", () => {
  it("SQLite: 20 agents at once get 20 different issues, token 1 each; 40 more over the 30 left: 30 leases and 10 nothing_ready", () =>
    withLiveApp(async (live) => {
      seed(live.fake);
      const server = await live.start();
      await install([server]);
      await twentyThenForty([server]);
    }), 120_000);

  it("PostgreSQL, two replicas: the same", () =>
    withCluster(async (c) => {
      seed(c.fake);
      const servers = await Promise.all([c.start(), c.start()]);
      await install(servers);
      await twentyThenForty(servers);
    }), 120_000);

  it("filters, order, idempotent retries, the organisation form, and issues that change while agents wait", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      seed(fake);
      fake.addIssue(FULL, 53, { title: "urgent", labels: ["ready", "priority: high"] });
      fake.addIssue(FULL, 54, { title: "wontfix", labels: ["ready", "wontfix"] });
      const server = await live.start();
      await install([server]);
      const [a, b] = AGENTS as [(typeof AGENTS)[0], (typeof AGENTS)[0]];

      // 422 before GitHub is asked anything: unknown fields, a bad ttl, a bad path.
      const before = fake.requests.length;
      expect((await call(server, "POST", NEXT, { token: a.token, body: { label: ["x"] } })).body.error.code).toBe("invalid_body");
      expect((await call(server, "POST", NEXT, { token: a.token, body: { ttl: "soon" } })).body.error.code).toBe("invalid_ttl");
      expect((await call(server, "POST", `/api/v1/orgs/${"x".repeat(101)}/leases/next`, { token: a.token })).body.error.code).toBe("invalid_path");
      expect(fake.requests.length).toBe(before);

      // The order: the high-priority issue first, though it is the newest.
      const urgent = await call(server, "POST", NEXT, { token: a.token, body: { order: ["priority: high"], exclude_labels: ["wontfix"] } });
      expect(urgent.body).toMatchObject({ outcome: "acquired", issue: 53 });
      // An Idempotency-Key: retries, even at the same time as the first call, answer the same issue and take nothing more.
      const headers = { "idempotency-key": "job-1" };
      const asked = () => call(server, "POST", NEXT, { token: b.token, headers, body: { any_labels: ["question", "wontfix"] } });
      const [once, twice] = await Promise.all([asked(), asked()]);
      const again = await asked();
      expect(once.body).toMatchObject({ outcome: "acquired", issue: 51, token: 1 });
      expect(twice.body).toEqual(once.body);
      expect(again.body).toEqual(once.body);
      expect((await call(server, "POST", NEXT, { token: b.token, body: { any_labels: ["question", "wontfix"] } })).body).toMatchObject({ issue: 54 });

      // While agents wait: issue 1 closed, issue 2 labelled wontfix; the next ready issue is 3.
      expect(await server.send("issues", { ...issuesPayload("closed", { issue: 1, at: Date.now() }), issue: { ...issuesPayload("closed", { issue: 1, at: Date.now() }).issue, assignees: [], assignee: null, pull_request: undefined } })).toBe(200);
      const labelled = issuesPayload("labeled", { issue: 2, labels: ["ready", "wontfix"], label: "wontfix", at: Date.now() });
      expect(await server.send("issues", { ...labelled, issue: { ...labelled.issue, assignees: [], assignee: null, pull_request: undefined } })).toBe(200);
      const third = await call(server, "POST", NEXT, { token: a.token, body: { labels: ["ready"], exclude_labels: ["wontfix"] } });
      expect(third.body).toMatchObject({ outcome: "acquired", issue: 3 });

      // The client's next speaks the same wire: a lease, then NothingReadyError with the counts.
      const client = new LeaseClient({ baseUrl: server.url, token: a.token, allowHttp: true });
      const lease = await client.next(FULL, { anyLabels: ["question", "wontfix"], includeWithPulls: false }, { instance: "c-1", idempotencyKey: "c-1" });
      expect(lease).toMatchObject({ repo: FULL, issue: 2, token: 1 });
      const nothing = await client.next(FULL, { labels: ["question"] }).catch((e: unknown) => e);
      expect(nothing).toBeInstanceOf(NothingReadyError);
      expect(nothing).toMatchObject({ matched: 1, held: 1 });

      // The organisation form walks the owner's repositories the token sees.
      const org = await call(server, "POST", ORG_NEXT, { token: b.token, body: { labels: ["ready"], exclude_labels: ["wontfix"] } });
      expect(org.body).toMatchObject({ outcome: "acquired", repo: FULL, issue: 4 });
      expect((await call(server, "POST", `/api/v1/orgs/nobody/leases/next`, { token: b.token })).status).toBe(404);

      // A bot claims only where its token reaches: another owner's workflow token, the same github-actions[bot], gets
      // a refusal for the repository and nothing of the organisation; the repository's own workflow token gets an issue.
      const workflow = { login: "github-actions[bot]", id: 41898282 };
      fake.addRepo("someone-else/tools");
      fake.addToken(ELSEWHERE_RUN, { ...workflow, installation: 2, repos: ["someone-else/tools"] });
      fake.addToken(HERE_RUN, { ...workflow, installation: 1, repos: [FULL] });
      const outside = await call(server, "POST", NEXT, { token: ELSEWHERE_RUN, body: { labels: ["ready"] } });
      expect([outside.status, outside.body.error?.reason]).toEqual([403, "blocked"]);
      expect((await call(server, "POST", ORG_NEXT, { token: ELSEWHERE_RUN, body: { labels: ["ready"] } })).body).toEqual({ error: { code: "not_found", message: "Not Found" } });
      const inside = await call(server, "POST", ORG_NEXT, { token: HERE_RUN, body: { labels: ["ready"], exclude_labels: ["wontfix"] } });
      expect(inside.body).toMatchObject({ outcome: "acquired", repo: FULL, holder: workflow });
      expect(fake.unmatched).toEqual([]);
    }), 120_000);
});
