/**
 * The fake's GraphQL mutations: documents of aliased mutations run in order
 * on the state the REST routes serve, GitHub's partial failures and error
 * format, and the fake's faults and limits on mutation documents.
 */
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { userId, type FakeGitHub, type FakeGitHubOptions } from "./fake-github.js";
import { fakesPerTest } from "./fake-github-client.js";

const owner = "acme";
const repo = "widgets";
const full = `${owner}/${repo}`;
const alice = `U_${userId("alice")}`;

const startFake = fakesPerTest();

async function start(opts?: FakeGitHubOptions): Promise<{ fake: FakeGitHub; octokit: Octokit }> {
  const { fake, octokit } = await startFake(opts);
  // Users GitHub knows: the fake knows those its state mentions.
  fake.setPermission(full, "alice", "write");
  fake.setPermission(full, "bob", "write");
  return { fake, octokit };
}

/** The node ids REST answers carry: the repository's, issue `n`'s, and those of the named labels (created if missing). */
async function ids(octokit: Octokit, n: number, labels: string[] = []): Promise<{ repo: string; issue: string; labels: string[] }> {
  const { data: r } = await octokit.rest.repos.get({ owner, repo });
  const { data: issue } = await octokit.rest.issues.get({ owner, repo, issue_number: n });
  const found = await Promise.all(labels.map((name) =>
    octokit.rest.issues.getLabel({ owner, repo, name }).catch(() => octokit.rest.issues.createLabel({ owner, repo, name }))));
  return { repo: r.node_id, issue: issue.node_id, labels: found.map((l) => l.data.node_id) };
}

/** What octokit.graphql threw: a GraphqlResponseError's data and errors, or a RequestError's status. */
async function rejection(call: Promise<unknown>): Promise<{ name: string; data?: any; errors?: any[]; status?: number }> {
  try {
    await call;
  } catch (err) {
    return err as { name: string; data?: any; errors?: any[]; status?: number };
  }
  throw new Error("expected the GraphQL request to fail");
}

/** A raw POST /graphql, for the exact body and status GitHub would send. */
async function post(fake: FakeGitHub, query: string): Promise<{ status: number; body: any }> {
  const res = await fetch(fake.graphqlUrl, { method: "POST", headers: { authorization: "bearer x" }, body: JSON.stringify({ query }) });
  return { status: res.status, body: await res.json() };
}

const ISSUE_STATE = "... on Issue { labels(first: 10) { nodes { name } totalCount } assignees(first: 10) { nodes { login } } }";

describe("mutation documents", () => {
  it("applies aliased mutations in order, each payload showing its moment, on the state REST serves", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 7, ["triage"]);

    const data: any = await octokit.graphql(`mutation {
      created: createLabel(input: { repositoryId: "${id.repo}", name: "claimed", color: "0e8a16", description: "leased" }) { label { id name color } }
      labelled: addLabelsToLabelable(input: { labelableId: "${id.issue}", labelIds: ["${id.labels[0]}"] }) { labelable { ${ISSUE_STATE} } }
      assigned: addAssigneesToAssignable(input: { assignableId: "${id.issue}", assigneeIds: ["${alice}"], clientMutationId: "c1" }) {
        clientMutationId assignable { ... on Issue { assignees(first: 10) { nodes { login } } } }
      }
      commented: addComment(input: { subjectId: "${id.issue}", body: "Claimed." }) {
        commentEdge { node { id url body author { __typename login } } } subject { __typename id ${ISSUE_STATE} }
      }
    }`);

    expect(data.created.label).toMatchObject({ name: "claimed", color: "0e8a16" });
    // Labelled before anyone was assigned; the comment came after both.
    expect(data.labelled.labelable).toEqual({ labels: { nodes: [{ name: "triage" }], totalCount: 1 }, assignees: { nodes: [] } });
    expect(data.assigned).toEqual({ clientMutationId: "c1", assignable: { assignees: { nodes: [{ login: "alice" }] } } });
    expect(data.commented.subject).toEqual({
      __typename: "Issue", id: id.issue, labels: { nodes: [{ name: "triage" }], totalCount: 1 }, assignees: { nodes: [{ login: "alice" }] },
    });
    expect(data.commented.commentEdge.node.author).toEqual({ __typename: "Bot", login: "issue-leases[bot]" });

    expect(fake.repoLabels(full)).toEqual([
      { name: "triage", color: "ededed", description: null },
      { name: "claimed", color: "0e8a16", description: "leased" },
    ]);
    expect(fake.issueLabels(full, 7)).toEqual(["triage"]);
    expect(fake.assignees(full, 7)).toEqual(["alice"]);
    expect(fake.comments(full, 7)).toMatchObject([{ body: "Claimed.", user: "issue-leases[bot]" }]);

    const { data: issue } = await octokit.rest.issues.get({ owner, repo, issue_number: 7 });
    expect([issue.labels.map((l) => (typeof l === "string" ? l : l.name)), issue.assignees?.map((a) => a.login), issue.comments]).toEqual([["triage"], ["alice"], 1]);
    const { data: comments } = await octokit.rest.issues.listComments({ owner, repo, issue_number: 7 });
    expect(comments).toMatchObject([{ node_id: data.commented.commentEdge.node.id, html_url: data.commented.commentEdge.node.url, performed_via_github_app: { slug: "issue-leases" } }]);
    expect((await octokit.rest.issues.getLabel({ owner, repo, name: "claimed" })).data.node_id).toBe(data.created.label.id);
    expect(fake.writeCount()).toBe(2); // the REST createLabel in ids(), and the document
    expect(fake.unmatched).toEqual([]);
  });

  it("takes variables, and refuses a document missing one before anything runs", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 3, ["claimed"]);
    const CLAIM = `mutation Claim($issue: ID!, $body: String!, $labels: [ID!]!) {
      label: addLabelsToLabelable(input: { labelableId: $issue, labelIds: $labels }) { clientMutationId }
      reply: addComment(input: { subjectId: $issue, body: $body }) { commentEdge { node { body } } }
    }`;

    const data: any = await octokit.graphql(CLAIM, { issue: id.issue, body: "Claimed for 2h.", labels: id.labels });
    expect(data).toEqual({ label: { clientMutationId: null }, reply: { commentEdge: { node: { body: "Claimed for 2h." } } } });

    const missing = await rejection(octokit.graphql(CLAIM, { issue: id.issue, labels: id.labels }));
    expect(missing.data).toBeUndefined();
    expect(missing.errors?.map((e) => e.message).join("\n")).toMatch(/\$body/);
    expect(fake.comments(full, 3).map((c) => c.body)).toEqual(["Claimed for 2h."]);
    expect(fake.takeUnmatched()).toMatchObject([{ method: "POST", path: "/graphql" }]);
    expect(fake.issueLabels(full, 3)).toEqual(["claimed"]);
  });

  it("runs every alias when one fails: null under it, a NOT_FOUND error with its path, the others applied", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 5, ["claimed", "triage"]);

    const failed = await rejection(octokit.graphql(`mutation {
      first: addLabelsToLabelable(input: { labelableId: "${id.issue}", labelIds: ["${id.labels[0]}"] }) { labelable { ... on Issue { labels(first: 5) { nodes { name } } } } }
      missing: addLabelsToLabelable(input: { labelableId: "${id.issue}", labelIds: ["${id.labels[1]}", "LA_999"] }) { clientMutationId }
      taken: createLabel(input: { repositoryId: "${id.repo}", name: "CLAIMED", color: "ededed" }) { label { id } }
      last: addComment(input: { subjectId: "${id.issue}", body: "after the failures" }) { clientMutationId }
    }`));

    expect(failed.name).toBe("GraphqlResponseError");
    expect(failed.data).toEqual({ first: { labelable: { labels: { nodes: [{ name: "claimed" }] } } }, missing: null, taken: null, last: { clientMutationId: null } });
    expect(failed.errors).toEqual([
      { type: "NOT_FOUND", path: ["missing"], locations: [{ line: 3, column: 7 }], message: "Could not resolve to a node with the global id of 'LA_999'." },
      { type: "UNPROCESSABLE", path: ["taken"], locations: [{ line: 4, column: 7 }], message: "Name has already been taken" },
    ]);
    // The failed mutation changed nothing, not even its valid label.
    expect(fake.issueLabels(full, 5)).toEqual(["claimed"]);
    expect(fake.comments(full, 5).map((c) => c.body)).toEqual(["after the failures"]);
  });

  it("removes labels and assignees, deletes a label from every issue, and edits a comment", async () => {
    const { fake, octokit } = await start();
    fake.addIssue(full, 1, { labels: ["a", "b"], assignees: ["alice", "bob"] });
    fake.addIssue(full, 2, { labels: ["b"] });
    const id = await ids(octokit, 1, ["a", "b"]);
    const { data: posted } = await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "Claimed." });

    const data: any = await octokit.graphql(`mutation {
      unlabel: removeLabelsFromLabelable(input: { labelableId: "${id.issue}", labelIds: ["${id.labels[0]}"] }) { labelable { ${ISSUE_STATE} } }
      unassign: removeAssigneesFromAssignable(input: { assignableId: "${id.issue}", assigneeIds: ["${alice}"] }) { assignable { ${ISSUE_STATE} } }
      drop: deleteLabel(input: { id: "${id.labels[1]}", clientMutationId: "d" }) { clientMutationId }
      edit: updateIssueComment(input: { id: "${posted.node_id}", body: "Released." }) { issueComment { id body issue { number } } }
    }`);

    expect(data.unlabel.labelable.labels.nodes).toEqual([{ name: "b" }]);
    expect(data.unassign.assignable.assignees.nodes).toEqual([{ login: "bob" }]);
    expect(data.drop).toEqual({ clientMutationId: "d" });
    expect(data.edit).toEqual({ issueComment: { id: posted.node_id, body: "Released.", issue: { number: 1 } } });
    expect([fake.issueLabels(full, 1), fake.issueLabels(full, 2), fake.repoLabels(full).map((l) => l.name)]).toEqual([[], [], ["a"]]);
    expect(fake.assignees(full, 1)).toEqual(["bob"]);
    expect((await octokit.rest.issues.getComment({ owner, repo, comment_id: posted.id })).data.body).toBe("Released.");
  });

  it("drops a refused assignee silently, as REST does: the payload shows who is assigned", async () => {
    const { fake, octokit } = await start();
    fake.refuseAssignee("mallory");
    const id = await ids(octokit, 9);

    const data: any = await octokit.graphql(`mutation {
      assigned: addAssigneesToAssignable(input: { assignableId: "${id.issue}", assigneeIds: ["${alice}", "U_${userId("mallory")}"] }) {
        assignable { ... on Issue { assignees(first: 10) { nodes { login } totalCount } } }
      }
    }`);

    expect(data.assigned.assignable.assignees).toEqual({ nodes: [{ login: "alice" }], totalCount: 1 });
    expect(fake.assignees(full, 9)).toEqual(["alice"]);
  });

  it("fails loudly, naming fake-github, on what it does not model", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 1);
    const failed = await rejection(octokit.graphql(`mutation {
      c: addComment(input: { subjectId: "${id.issue}", body: "x" }) { timelineEdge { cursor } }
      l: lockLockable(input: { lockableId: "${id.issue}" }) { clientMutationId }
    }`));
    expect(failed.errors?.map((e) => [e.path, e.message])).toEqual([
      [["c", "timelineEdge"], "fake-github: AddCommentPayload.timelineEdge is not modelled"],
      [["l"], "fake-github: Mutation.lockLockable is not modelled"],
    ]);
    expect(fake.comments(full, 1)).toHaveLength(1);
  });
});

describe("mutation documents in the fake's pipeline", () => {
  it("counts a document once against the content limits, and refuses one over them as REST is refused", async () => {
    let clock = 1_000_000;
    const { fake, octokit } = await start({ now: () => clock });
    const id = await ids(octokit, 1, ["claimed"]);
    fake.setContentLimits([{ max: 2, windowMs: 60_000 }]);

    await octokit.graphql(`mutation {
      a: addLabelsToLabelable(input: { labelableId: "${id.issue}", labelIds: ["${id.labels[0]}"] }) { clientMutationId }
      b: addAssigneesToAssignable(input: { assignableId: "${id.issue}", assigneeIds: ["${alice}"] }) { clientMutationId }
      c: addComment(input: { subjectId: "${id.issue}", body: "one" }) { clientMutationId }
      d: addComment(input: { subjectId: "${id.issue}", body: "two" }) { clientMutationId }
    }`);
    // Four mutations, one slot: the second slot is still free.
    await octokit.rest.issues.createComment({ owner, repo, issue_number: 1, body: "three" });
    clock += 10_000;
    const refused = await rejection(octokit.graphql(`mutation { addComment(input: { subjectId: "${id.issue}", body: "four" }) { clientMutationId } }`));

    expect(refused.status).toBe(403);
    expect((refused as any).response.headers["retry-after"]).toBe("50");
    expect((refused as any).response.data.message).toMatch(/secondary rate limit/);
    expect(fake.refused).toBe(1);
    expect(fake.comments(full, 1).map((c) => c.body)).toEqual(["one", "two", "three"]);
  });

  it("costs 5 points a mutation document and 1 a query", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 1);
    fake.addToken("ghp_alice", { login: "alice", id: 7 });
    fake.setPointsLimit({ max: 6, windowMs: 60_000 });
    const asAlice = new Octokit({ baseUrl: fake.baseUrl, auth: "ghp_alice", log: { debug() {}, info() {}, warn() {}, error() {} } });
    const viewer = "query { viewer { __typename login databaseId } }";

    await octokit.graphql(`mutation { addComment(input: { subjectId: "${id.issue}", body: "x" }) { clientMutationId } }`);
    expect(await asAlice.graphql(viewer)).toEqual({ viewer: { __typename: "User", login: "alice", databaseId: 7 } });
    // 5 + 1: one more query is over.
    expect((await rejection(asAlice.graphql(viewer))).status).toBe(403);
    expect(fake.refused).toBe(1);
  });

  it("answers RATE_LIMITED with 200 to the next mutation documents, changing nothing, and queries pass", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 1);
    fake.addToken("ghs_agent", { login: "agent[bot]", id: 41 });
    fake.rateLimitNextGraphql(1);
    const comment = `mutation { addComment(input: { subjectId: "${id.issue}", body: "hi" }) { clientMutationId } }`;

    const viewer = await fetch(fake.graphqlUrl, { method: "POST", headers: { authorization: "bearer ghs_agent" }, body: JSON.stringify({ query: "{ viewer { __typename login databaseId } }" }) });
    expect(await viewer.json()).toEqual({ data: { viewer: { __typename: "Bot", login: "agent[bot]", databaseId: 41 } } });
    expect(await post(fake, comment)).toEqual({
      status: 200, body: { data: null, errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded for installation ID 1." }] },
    });
    expect([fake.comments(full, 1), fake.writeCount()]).toEqual([[], 0]);

    expect(await octokit.graphql(comment)).toEqual({ addComment: { clientMutationId: null } });
    expect([fake.comments(full, 1).length, fake.writeCount()]).toEqual([1, 1]);
  });

  it("meets write faults: failNextWrites changes nothing, failNextWritesAfterApplying applies the whole document", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 1, ["claimed"]);
    const claim = `mutation {
      l: addLabelsToLabelable(input: { labelableId: "${id.issue}", labelIds: ["${id.labels[0]}"] }) { clientMutationId }
      c: addComment(input: { subjectId: "${id.issue}", body: "Claimed." }) { clientMutationId }
    }`;
    const before = fake.writeCount();

    fake.failNextWrites(1);
    expect((await rejection(octokit.graphql(claim))).status).toBe(500);
    expect([fake.issueLabels(full, 1), fake.comments(full, 1)]).toEqual([[], []]);

    fake.failNextWritesAfterApplying(1, 502);
    expect((await rejection(octokit.graphql(claim))).status).toBe(502);
    expect([fake.issueLabels(full, 1), fake.comments(full, 1).map((c) => c.body)]).toEqual([["claimed"], ["Claimed."]]);
    expect(fake.writeCount()).toBe(before);
  });

  it("refuses a mutation outside GitHub's schema: errors, no data, nothing changed, recorded as unmatched", async () => {
    const { fake, octokit } = await start();
    const id = await ids(octokit, 1);
    const before = fake.writeCount();

    const { status, body } = await post(fake, `mutation { addLabelsToLabelable(input: { labelableId: "${id.issue}", labelNames: ["a"] }) { clientMutationId } }`);

    expect(status).toBe(200);
    expect(body.data).toBeUndefined();
    expect(body.errors.map((e: { message: string }) => e.message).join("\n")).toMatch(/labelNames/);
    expect([fake.issueLabels(full, 1), fake.repoLabels(full), fake.writeCount()]).toEqual([[], [], before]);
    expect(fake.takeUnmatched()).toMatchObject([{ method: "POST", path: "/graphql", status: 200 }]);
  });

  it("keeps queries reads: no write fault, no content slot, no write counted", async () => {
    const { fake } = await start();
    fake.addToken("ghp_alice", { login: "alice", id: 7 });
    fake.failNextWrites(1);
    fake.setContentLimits([{ max: 0, windowMs: 60_000 }]);
    const res = await fetch(fake.graphqlUrl, { method: "POST", headers: { authorization: "bearer ghp_alice" }, body: JSON.stringify({ query: "query { viewer { __typename login databaseId } }" }) });
    expect([res.status, await res.json()]).toEqual([200, { data: { viewer: { __typename: "User", login: "alice", databaseId: 7 } } }]);
    expect([fake.writeCount(), fake.refused]).toEqual([0, 0]);
  });
});
