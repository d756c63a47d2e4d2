import { generateKeyPairSync } from "node:crypto";
import { Octokit } from "@octokit/rest";
import { Probot } from "probot";
import { describe, expect, it } from "vitest";
import { fakesPerTest } from "./fake-github-client.js";

const owner = "acme";
const repo = "widgets";
const full = `${owner}/${repo}`;

const start = fakesPerTest();

/** The RequestError Octokit throws, or a failure if the call succeeded. */
async function failure(call: Promise<unknown>): Promise<{ status: number; response?: { headers: Record<string, string | number | undefined>; data: unknown } }> {
  try {
    await call;
  } catch (err) {
    return err as { status: number; response?: { headers: Record<string, string | number | undefined>; data: unknown } };
  }
  throw new Error("expected the request to fail");
}

describe("labels", () => {
  it("creates a label missing from the repo when it is added to an issue", async () => {
    const { fake, octokit } = await start();
    await octokit.rest.issues.createLabel({ owner, repo, name: "Bug", color: "d73a4a", description: "broken" });

    const { data, status } = await octokit.rest.issues.addLabels({ owner, repo, issue_number: 7, labels: ["bug", "claimed"] });

    expect(status).toBe(200);
    // Case-insensitive: "bug" reuses "Bug" rather than creating a second label.
    expect(data.map((l) => l.name)).toEqual(["Bug", "claimed"]);
    expect(fake.repoLabels(full)).toEqual([
      { name: "Bug", color: "d73a4a", description: "broken" },
      { name: "claimed", color: "ededed", description: null },
    ]);
    expect(fake.issueLabels(full, 7)).toEqual(["Bug", "claimed"]);
  });

  it("removes a deleted repo label from every issue", async () => {
    const { fake, octokit } = await start();
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["claimed", "keep"] });
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 2, labels: ["claimed"] });

    const { status } = await octokit.rest.issues.deleteLabel({ owner, repo, name: "CLAIMED" });

    expect(status).toBe(204);
    expect(fake.issueLabels(full, 1)).toEqual(["keep"]);
    expect(fake.issueLabels(full, 2)).toEqual([]);
    expect((await failure(octokit.rest.issues.deleteLabel({ owner, repo, name: "claimed" }))).status).toBe(404);
  });

  it("answers 422 already_exists for a duplicate name and for names over 50 characters", async () => {
    const { fake, octokit } = await start();
    await octokit.rest.issues.createLabel({ owner, repo, name: "claimed", color: "ededed" });

    const duplicate = await failure(octokit.rest.issues.createLabel({ owner, repo, name: "Claimed", color: "ededed" }));
    expect(duplicate.status).toBe(422);
    expect(duplicate.response?.data).toMatchObject({
      message: "Validation Failed",
      errors: [{ resource: "Label", code: "already_exists", field: "name" }],
    });

    const long = "x".repeat(51);
    expect((await failure(octokit.rest.issues.createLabel({ owner, repo, name: long, color: "ededed" }))).status).toBe(422);
    expect((await failure(octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["ok", long] }))).status).toBe(422);
    // A rejected request changes nothing, not even the valid part.
    expect(fake.repoLabels(full).map((l) => l.name)).toEqual(["claimed"]);
  });

  it("decodes URL-encoded label names containing '#', ':' and '/'", async () => {
    const { fake, octokit } = await start();
    const names = ["lease #3", "claimed-by: alice", "area/a#b:c"];
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 4, labels: names });

    const got = await octokit.rest.issues.getLabel({ owner, repo, name: "claimed-by: alice" });
    expect(got.data.name).toBe("claimed-by: alice");

    const { data } = await octokit.rest.issues.removeLabel({ owner, repo, issue_number: 4, name: "lease #3" });
    expect(data.map((l) => l.name)).toEqual(["claimed-by: alice", "area/a#b:c"]);
    expect(fake.requests.at(-1)?.path).toBe(`/repos/${full}/issues/4/labels/lease%20%233`);

    await octokit.rest.issues.updateLabel({ owner, repo, name: "area/a#b:c", new_name: "lease #4", color: "00ff00" });
    expect(fake.issueLabels(full, 4)).toEqual(["claimed-by: alice", "lease #4"]);

    const missing = await failure(octokit.rest.issues.removeLabel({ owner, repo, issue_number: 4, name: "lease #3" }));
    expect(missing.status).toBe(404);
    expect(missing.response?.data).toMatchObject({ message: "Label does not exist" });
    expect(fake.unmatched).toEqual([]);
  });

  it("replaces issue labels with PUT and paginates repo labels with a Link header", async () => {
    const { octokit } = await start();
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["a", "b", "c", "d", "e"] });
    const { data } = await octokit.rest.issues.setLabels({ owner, repo, issue_number: 1, labels: ["e", "f"] });
    expect(data.map((l) => l.name)).toEqual(["e", "f"]);

    const page = await octokit.rest.issues.listLabelsForRepo({ owner, repo, per_page: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.headers.link).toContain('rel="next"');
    const all = await octokit.paginate(octokit.rest.issues.listLabelsForRepo, { owner, repo, per_page: 2 });
    expect(all.map((l) => l.name)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });
});

describe("comments", () => {
  it("posts as the app's bot and lists with per_page, page and since", async () => {
    const times = [Date.parse("2030-01-01T00:00:00Z"), Date.parse("2030-01-01T00:01:00Z"), Date.parse("2030-01-01T00:02:00Z")];
    let clock = times[0]!;
    const { fake, octokit } = await start({ appId: 42, appSlug: "leasebot", now: () => clock });
    const seeded = fake.addComment(full, 3, "/claim 2h", "alice");

    clock = times[1]!;
    const { data: posted, status } = await octokit.rest.issues.createComment({ owner, repo, issue_number: 3, body: "Claimed." });
    expect(status).toBe(201);
    expect(posted.user).toMatchObject({ login: "leasebot[bot]", type: "Bot", id: 1042 });
    expect(posted.performed_via_github_app).toMatchObject({ id: 42, slug: "leasebot" });
    expect(posted.created_at).toBe("2030-01-01T00:01:00Z");

    clock = times[2]!;
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 3, body: "Renewed." });
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 99, body: "elsewhere" });

    const all = await octokit.paginate(octokit.rest.issues.listComments, { owner, repo, issue_number: 3, per_page: 1 });
    expect(all.map((c) => [c.id, c.user?.login])).toEqual([
      [seeded, "alice"], [posted.id, "leasebot[bot]"], [posted.id + 1, "leasebot[bot]"],
    ]);
    const second = await octokit.rest.issues.listComments({ owner, repo, issue_number: 3, per_page: 2, page: 2 });
    expect(second.data.map((c) => c.body)).toEqual(["Renewed."]);
    const recent = await octokit.rest.issues.listComments({ owner, repo, issue_number: 3, since: "2030-01-01T00:01:00Z" });
    expect(recent.data.map((c) => c.body)).toEqual(["Claimed.", "Renewed."]);
    expect(fake.comments(full, 3)).toEqual([
      { id: seeded, body: "/claim 2h", user: "alice" },
      { id: posted.id, body: "Claimed.", user: "leasebot[bot]" },
      { id: posted.id + 1, body: "Renewed.", user: "leasebot[bot]" },
    ]);
  });

  it("edits and deletes comments by id", async () => {
    const { fake, octokit } = await start();
    const { data } = await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "one" });
    const edited = await octokit.rest.issues.updateComment({ owner, repo, comment_id: data.id, body: "two" });
    expect(edited.data.body).toBe("two");
    await octokit.rest.issues.deleteComment({ owner, repo, comment_id: data.id });
    expect(fake.comments(full, 1)).toEqual([]);
    expect((await failure(octokit.rest.issues.deleteComment({ owner, repo, comment_id: data.id }))).status).toBe(404);
  });
});

describe("people", () => {
  it("silently drops refused assignees, as GitHub does for users without access", async () => {
    const { fake, octokit } = await start();
    fake.refuseAssignee("Mallory");

    const { data, status } = await octokit.rest.issues.addAssignees({ owner, repo, issue_number: 5, assignees: ["alice", "mallory"] });

    expect(status).toBe(201);
    expect(data.assignees?.map((a) => a.login)).toEqual(["alice"]);
    expect(fake.assignees(full, 5)).toEqual(["alice"]);
    await octokit.rest.issues.removeAssignees({ owner, repo, issue_number: 5, assignees: ["ALICE"] });
    expect(fake.assignees(full, 5)).toEqual([]);
  });

  it("reports permissions the way GitHub maps roles", async () => {
    const { fake, octokit } = await start();
    fake.setPermission(full, "maria", "maintain");
    fake.setPermission(full, "tom", "triage");
    fake.setPermission(full, "ada", "admin");
    fake.setPermission(full, "nobody", "none");
    const permission = async (username: string) => {
      const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username });
      return [data.permission, data.role_name];
    };

    expect(await permission("maria")).toEqual(["write", "maintain"]);
    expect(await permission("tom")).toEqual(["read", "triage"]);
    expect(await permission("ada")).toEqual(["admin", "admin"]);
    expect(await permission("stranger")).toEqual(["read", "read"]);
    expect(await permission("nobody")).toEqual(["none", "none"]);

    expect((await octokit.rest.repos.checkCollaborator({ owner, repo, username: "tom" })).status).toBe(204);
    expect((await failure(octokit.rest.repos.checkCollaborator({ owner, repo, username: "stranger" }))).status).toBe(404);
    fake.setOrgMember("acme", "tom");
    expect((await octokit.rest.orgs.checkMembershipForUser({ org: "acme", username: "tom" })).status).toBe(204);
    expect((await failure(octokit.rest.orgs.checkMembershipForUser({ org: "acme", username: "maria" }))).status).toBe(404);
  });
});

describe("faults", () => {
  it("fails the next writes with 500 and changes nothing, then succeeds", async () => {
    const { fake, octokit } = await start();
    fake.failNextWrites(1);

    // Reads are not writes: they pass untouched.
    await octokit.rest.issues.get({ owner, repo, issue_number: 1 });
    const failed = await failure(octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["claimed"] }));
    expect(failed.status).toBe(500);
    expect(fake.repoLabels(full)).toEqual([]);
    expect(fake.writeCount()).toBe(0);

    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["claimed"] });
    expect(fake.issueLabels(full, 1)).toEqual(["claimed"]);
    expect(fake.writeCount()).toBe(1);
    expect(fake.requests.map((r) => [r.method, r.status])).toEqual([["GET", 200], ["POST", 500], ["POST", 200]]);
  });

  it("rate-limits the next writes with 403 and retry-after", async () => {
    const { fake, octokit } = await start();
    fake.rateLimitNextWrites(2, 7);

    for (let i = 0; i < 2; i++) {
      const limited = await failure(octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "hi" }));
      expect(limited.status).toBe(403);
      expect(limited.response?.headers["retry-after"]).toBe("7");
      expect(limited.response?.data).toMatchObject({ message: expect.stringMatching(/secondary rate limit/) });
    }
    expect(fake.comments(full, 1)).toEqual([]);
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "hi" });
    expect(fake.comments(full, 1)).toHaveLength(1);
  });

  it("refuses content creation beyond the sliding window and counts refusals", async () => {
    let clock = 1_000_000;
    const { fake, octokit } = await start({ now: () => clock });
    fake.setContentLimit({ max: 2, windowMs: 10_000 });

    await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "one" });
    clock += 4_000;
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["claimed"] });
    // Not content-creating: editing and reading are never limited.
    await octokit.rest.issues.removeLabel({ owner, repo, issue_number: 1, name: "claimed" });

    clock += 1_500;
    const refused = await failure(octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "two" }));
    expect(refused.status).toBe(403);
    // The first slot frees at 1_010_000; now is 1_005_500.
    expect(refused.response?.headers["retry-after"]).toBe("5");
    expect(fake.refused).toBe(1);

    clock += 4_500;
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "two" });
    expect(fake.comments(full, 1).map((c) => c.body)).toEqual(["one", "two"]);
    expect(fake.refused).toBe(1);
  });

  it("enforces points a minute: a write costs 5, a read 1", async () => {
    let clock = 1_000_000;
    const { fake, octokit } = await start({ now: () => clock });
    fake.setPointsLimit({ max: 11, windowMs: 60_000 });
    await octokit.rest.issues.removeLabel({ owner, repo, issue_number: 1, name: "x" }).catch(() => undefined);
    await octokit.rest.issues.listComments({ owner, repo, issue_number: 1 });
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "one" });
    // 5 + 1 + 5 = 11: one more read is over.
    const refused = await failure(octokit.rest.issues.listComments({ owner, repo, issue_number: 1 }));
    expect([refused.status, refused.response?.headers["retry-after"]]).toEqual([403, "60"]);
    expect(fake.refused).toBe(1);
    clock += 60_000;
    await octokit.rest.issues.listComments({ owner, repo, issue_number: 1 });
  });

  it("enforces a minute's and an hour's limit together, as GitHub's 80 and 500", async () => {
    let clock = 1_000_000;
    const { fake, octokit } = await start({ now: () => clock });
    fake.setContentLimits([
      { max: 2, windowMs: 60_000 },
      { max: 3, windowMs: 3_600_000 },
    ]);
    const post = (body: string) => octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body });
    await post("one");
    await post("two");
    // The minute is full: refused, and counted in neither window.
    expect((await failure(post("three"))).response?.headers["retry-after"]).toBe("60");
    clock += 60_000;
    await post("three");
    clock += 60_000;
    // The minute has room, the hour does not: the first slot frees an hour after "one".
    const refused = await failure(post("four"));
    expect([refused.status, refused.response?.headers["retry-after"]]).toEqual([403, String(3600 - 120)]);
    clock += 3_480_000;
    await post("four");
    expect(fake.comments(full, 1).map((c) => c.body)).toEqual(["one", "two", "three", "four"]);
    expect(fake.refused).toBe(2);
  });
});

describe("protocol", () => {
  it("records requests no route matches and answers 404", async () => {
    const { fake, octokit } = await start();
    const res = await failure(octokit.request("GET /repos/{owner}/{repo}/milestones", { owner, repo }));
    expect(res.status).toBe(404);
    expect(fake.unmatched).toMatchObject([{ method: "GET", path: `/repos/${full}/milestones`, status: 404 }]);
    expect(fake.takeUnmatched()).toHaveLength(1);
    expect(fake.takeUnmatched()).toEqual([]);
    expect(fake.requests).toHaveLength(1);
  });

  for (const layout of ["enterprise", "github.com"] as const) {
    it(`serves the ${layout} layout only where GitHub does: REST, GraphQL and the web's sign-in at their paths, 404 elsewhere`, async () => {
      const { fake } = await start({ layout });
      const status = async (method: string, path: string) =>
        (await fetch(`${fake.url}${path}`, { method, headers: { authorization: "bearer x" }, ...(method === "POST" ? { body: JSON.stringify({ query: "{ viewer { login } }" }) } : {}) })).status;
      const enterprise = layout === "enterprise";
      expect(fake.baseUrl).toBe(enterprise ? `${fake.url}/api/v3` : fake.url);
      expect(fake.graphqlUrl).toBe(enterprise ? `${fake.url}/api/graphql` : `${fake.url}/graphql`);
      expect(fake.appEnv()).toEqual(enterprise ? { GHE_HOST: fake.host, GHE_PROTOCOL: "http" } : { GITHUB_API_URL: fake.url });
      expect(await status("GET", `/api/v3/repos/${full}`)).toBe(enterprise ? 200 : 404);
      expect(await status("GET", `/repos/${full}`)).toBe(enterprise ? 404 : 200);
      expect(await status("POST", "/api/graphql")).toBe(enterprise ? 401 : 404);
      expect(await status("POST", "/graphql")).toBe(enterprise ? 404 : 401);
      // Where Octokit's request("POST /graphql") lands on Enterprise Server's REST base: GitHub has nothing there.
      expect(await status("POST", "/api/v3/graphql")).toBe(404);
      expect(await status("GET", "/login/oauth/authorize")).toBe(404); // the sign-in page, there in both (no app set up: 404)
      expect(fake.takeUnmatched().map((r) => `${r.method} ${r.path}`)).toEqual(
        enterprise
          ? [`GET /repos/${full}`, "POST /graphql", "POST /api/v3/graphql"]
          : [`GET /api/v3/repos/${full}`, "POST /api/graphql", "POST /api/v3/graphql"],
      );
    });
  }

  it("sends rate-limit headers", async () => {
    const { fake } = await start();
    const plain = new Octokit({ baseUrl: fake.baseUrl, auth: "x" });
    const { data, headers } = await plain.rest.repos.get({ owner, repo });
    expect(data).toMatchObject({ name: repo, full_name: full, owner: { login: owner }, default_branch: "main" });
    expect(headers["x-ratelimit-limit"]).toBe("5000");
    expect(headers["x-ratelimit-remaining"]).toBe("4999");
    expect(Number(headers["x-ratelimit-reset"])).toBeGreaterThan(Date.now() / 1000);
    expect(headers["x-github-request-id"]).toBeTruthy();
    expect(fake.requests[0]?.path).toBe(`/repos/${full}`);
  });

  it("answers 413 for bodies over 1 MB and 400 for malformed JSON", async () => {
    const { fake } = await start();
    const url = `${fake.baseUrl}/repos/${full}/issues/1/comments`;
    const big = await fetch(url, { method: "POST", body: JSON.stringify({ body: "x".repeat(1024 * 1024 + 1) }) });
    expect(big.status).toBe(413);
    const bad = await fetch(url, { method: "POST", body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ message: "Problems parsing JSON" });
    expect(fake.comments(full, 1)).toEqual([]);
  });

  it("serves config files as base64 JSON or raw text, and 404 when unset", async () => {
    const { fake, octokit } = await start();
    fake.setConfigFile(full, ".github/issue-leases.yml", "maxLeases: 2\n");

    const json = await octokit.rest.repos.getContent({ owner, repo, path: ".github/issue-leases.yml" });
    expect(json.data).toMatchObject({ type: "file", encoding: "base64", path: ".github/issue-leases.yml" });
    const content = (json.data as { content: string }).content;
    expect(Buffer.from(content, "base64").toString()).toBe("maxLeases: 2\n");

    const raw = await octokit.rest.repos.getContent({ owner, repo, path: ".github/issue-leases.yml", mediaType: { format: "raw" } });
    expect(raw.data).toBe("maxLeases: 2\n");
    expect(raw.headers["content-type"]).toMatch(/^text\/plain/);

    const missing = await failure(octokit.rest.repos.getContent({ owner, repo: ".github", path: ".github/issue-leases.yml" }));
    expect(missing.status).toBe(404);
  });
});

describe("checks and pulls", () => {
  it("creates, updates and lists check runs by commit", async () => {
    const { fake, octokit } = await start();
    const { data: created, status } = await octokit.rest.checks.create({
      owner, repo, name: "lease", head_sha: "abc123", status: "in_progress",
    });
    expect(status).toBe(201);
    await octokit.rest.checks.update({
      owner, repo, check_run_id: created.id, conclusion: "success", output: { title: "Leased", summary: "alice holds #3" },
    });
    await octokit.rest.checks.create({ owner, repo, name: "other", head_sha: "def456" });

    const { data } = await octokit.rest.checks.listForRef({ owner, repo, ref: "abc123" });
    expect(data.total_count).toBe(1);
    expect(data.check_runs[0]).toMatchObject({ id: created.id, status: "completed", conclusion: "success" });
    expect(fake.checkRuns(full)).toMatchObject([
      { id: created.id, name: "lease", head_sha: "abc123", status: "completed", conclusion: "success", output: { title: "Leased" } },
      { name: "other", status: "queued", conclusion: null },
    ]);
  });

  it("serves seeded pull requests, which are also issues", async () => {
    const { fake, octokit } = await start();
    fake.addPullRequest(full, { number: 12, body: "Fixes #3", user: "alice", headSha: "abc123" });
    fake.addPullRequest(full, { number: 13, body: "", user: "bob", headSha: "def456", state: "closed" });

    const open = await octokit.rest.pulls.list({ owner, repo, state: "open" });
    expect(open.data.map((p) => p.number)).toEqual([12]);
    const pr = await octokit.rest.pulls.get({ owner, repo, pull_number: 12 });
    expect(pr.data).toMatchObject({ body: "Fixes #3", user: { login: "alice" }, head: { sha: "abc123" } });
    const issue = await octokit.rest.issues.get({ owner, repo, issue_number: 12 });
    expect(issue.data.pull_request).toBeDefined();
    expect((await failure(octokit.rest.pulls.get({ owner, repo, pull_number: 3 }))).status).toBe(404);
  });
});

describe("with Probot's own Octokit", () => {
  it("mints installation tokens unrecorded, reads config, and sees secondary rate limits", async () => {
    const { fake } = await start();
    const { privateKey } = generateKeyPairSync("rsa", {
      modulusLength: 2048,
      publicKeyEncoding: { type: "spki", format: "pem" },
      privateKeyEncoding: { type: "pkcs1", format: "pem" },
    });
    const probot = new Probot({ appId: 1, privateKey, baseUrl: fake.baseUrl, logLevel: "fatal" });
    const octokit = await probot.auth(1);
    fake.setConfigFile(full, ".github/issue-leases.yml", "maxLeases: 2\n");

    const { config } = await octokit.config.get({ owner, repo, path: ".github/issue-leases.yml" });
    expect(config).toEqual({ maxLeases: 2 });
    const fallback = await octokit.config.get({ owner, repo: "other", path: ".github/issue-leases.yml" });
    expect(fallback.config).toEqual({});

    // Probot's throttle options only log a secondary rate limit; retrying is left to the app.
    fake.rateLimitNextWrites(1, 1);
    const limited = await failure(octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "after the limit" }));
    expect(limited.status).toBe(403);
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "after the limit" });
    expect(fake.comments(full, 1).map((c) => c.body)).toEqual(["after the limit"]);

    expect(fake.requests.some((r) => r.path.includes("access_tokens"))).toBe(false);
    expect(fake.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      `GET /repos/${full}/contents/.github%2Fissue-leases.yml 200`,
      "GET /repos/acme/other/contents/.github%2Fissue-leases.yml 404",
      "GET /repos/acme/.github/contents/.github%2Fissue-leases.yml 404",
      `POST /repos/${full}/issues/1/comments 403`,
      `POST /repos/${full}/issues/1/comments 201`,
    ]);
    expect(fake.unmatched).toEqual([]);
  });
});

describe("reset", () => {
  it("clears state, logs and pending faults", async () => {
    const { fake, octokit } = await start();
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["claimed"] });
    fake.failNextWrites(3);
    fake.reset();
    expect(fake.requests).toEqual([]);
    expect(fake.repoLabels(full)).toEqual([]);
    await octokit.rest.issues.addLabels({ owner, repo, issue_number: 1, labels: ["claimed"] });
    expect(fake.writeCount()).toBe(1);
  });
});

describe("API callers' tokens (issue 10)", () => {
  it("answers GraphQL viewer per registered token (401 for others), as reads", async () => {
    const { fake } = await start();
    fake.addToken("ghs_one", { login: "agent[bot]", id: 41 });
    fake.addToken("ghp_two", { login: "alice", id: 7 });
    const viewer = async (path: string, token: string) => {
      const res = await fetch(path, {
        method: "POST",
        headers: { authorization: `bearer ${token}` },
        body: JSON.stringify({ query: "query { viewer { __typename login databaseId } }" }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    expect(await viewer(fake.graphqlUrl, "ghs_one")).toEqual({ status: 200, body: { data: { viewer: { __typename: "Bot", login: "agent[bot]", databaseId: 41 } } } });
    expect((await viewer(fake.graphqlUrl, "ghp_two")).body.data.viewer).toEqual({ __typename: "User", login: "alice", databaseId: 7 });
    expect((await viewer(fake.graphqlUrl, "ghp_unknown")).status).toBe(401);
    // Queries are reads: they neither take a write fault nor count as writes.
    fake.failNextWrites(1);
    expect((await viewer(fake.graphqlUrl, "ghs_one")).status).toBe(200);
    expect(fake.writeCount()).toBe(0);
    expect(fake.unmatched).toEqual([]);
  });

  it("a token sees only the repositories it was given; the app is installed everywhere but where uninstalled", async () => {
    const { fake, octokit } = await start();
    fake.addToken("ghp_narrow", { login: "alice", id: 7, repos: [full] });
    const narrow = new Octokit({ baseUrl: fake.baseUrl, auth: "ghp_narrow", log: { debug() {}, info() {}, warn() {}, error() {} } });
    expect((await narrow.rest.repos.get({ owner, repo })).data.full_name).toBe(full);
    expect((await failure(narrow.rest.repos.get({ owner, repo: "secret" }))).status).toBe(404);
    // Other tokens (the app's) see every repository, as before.
    expect((await octokit.rest.repos.get({ owner, repo: "secret" })).status).toBe(200);
    fake.uninstall(`${owner}/secret`);
    expect((await failure(octokit.request("GET /repos/{owner}/{repo}/installation", { owner, repo: "secret" }))).status).toBe(404);
    expect((await octokit.request("GET /repos/{owner}/{repo}/installation", { owner, repo })).status).toBe(200);
    fake.reset();
    expect((await narrow.rest.repos.get({ owner, repo: "secret" })).status).toBe(200);
  });

  it("lists an installation token's repositories in pages with Link headers, refuses a user's token as GitHub does, and shows the installation public repositories it does not reach, read-only", async () => {
    const { fake } = await start();
    const reached = Array.from({ length: 101 }, (_, i) => `${owner}/r${i}`);
    for (const r of reached) fake.addRepo(r);
    fake.addRepo("other/public-tools");
    fake.addRepo("other/private-tools", { private: true });
    fake.addToken("ghs_workflow", { login: "github-actions[bot]", id: 41898282, installation: 5, repos: reached });
    fake.addToken("ghp_alice", { login: "alice", id: 7 });
    const get = async (path: string, token: string) => {
      const res = await fetch(`${fake.baseUrl}${path}`, { headers: { authorization: `token ${token}` } });
      return { status: res.status, link: res.headers.get("link"), body: (await res.json()) as any };
    };
    const first = await get("/installation/repositories?per_page=100", "ghs_workflow");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ total_count: 101, repository_selection: "selected" });
    expect(first.body.repositories).toHaveLength(100);
    expect(first.body.repositories[0]).toMatchObject({ full_name: `${owner}/r0`, owner: { login: owner, id: expect.any(Number) } });
    expect(first.link).toContain('page=2>; rel="next"');
    const second = await get("/installation/repositories?per_page=100&page=2", "ghs_workflow");
    expect(second.body.repositories.map((r: { full_name: string }) => r.full_name)).toEqual([`${owner}/r100`]);
    const user = await get("/installation/repositories", "ghp_alice");
    expect(user.status).toBe(403);
    expect(user.body.message).toBe("You must authenticate with an installation access token in order to list repositories for an installation.");
    // It reads a public repository outside its installation, not a private one, and may not react there.
    expect((await get("/repos/other/public-tools", "ghs_workflow")).status).toBe(200);
    expect((await get("/repos/other/private-tools", "ghs_workflow")).status).toBe(404);
    fake.addIssue("other/public-tools", 1);
    fake.addIssue(reached[0]!, 1);
    const canReact = async (repoName: string) => {
      const [o, n] = repoName.split("/");
      const res = await fetch(fake.graphqlUrl, {
        method: "POST",
        headers: { authorization: "bearer ghs_workflow" },
        body: JSON.stringify({
          query: "query($owner: String!, $name: String!, $number: Int!) { repository(owner: $owner, name: $name) { issueOrPullRequest(number: $number) { ... on Issue { viewerCanReact } } } }",
          variables: { owner: o, name: n, number: 1 },
        }),
      });
      return ((await res.json()) as any).data.repository.issueOrPullRequest.viewerCanReact;
    };
    expect(await canReact("other/public-tools")).toBe(false);
    expect(await canReact(reached[0]!)).toBe(true);
    expect(fake.unmatched).toEqual([]);
  });
});
