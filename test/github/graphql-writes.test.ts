/**
 * The GraphQL documents the app sends (github/graphql-writes.ts), checked
 * against GitHub's published schema, and their answers read alias by alias.
 */
import { describe, expect, it } from "vitest";
import { GraphqlRefused, idDocument, type Mutation, mutationDocument, readIds, readMutations } from "../../src/github/graphql-writes.js";
import { schemaErrors } from "../support/fake-github/graphql-schema.js";

const EVERY: Mutation[] = [
  { op: "removeLabels", labelableId: "I_1", labelIds: ["LA_1"] },
  { op: "deleteLabel", id: "LA_2" },
  { op: "addLabels", labelableId: "I_1", labelIds: ["LA_3", "LA_4"] },
  { op: "removeAssignees", assignableId: "I_1", assigneeIds: ["U_1"] },
  { op: "addAssignees", assignableId: "I_1", assigneeIds: ["U_2"] },
  { op: "addComment", subjectId: "I_1", body: "`/claim` @someone\n<!-- issue-leases: {} -->" },
  { op: "createLabel", repositoryId: "R_1", name: "lease #3", color: "ededed", description: "d" },
];

describe("GraphQL documents", () => {
  it("every mutation the app sends is in GitHub's schema, and no text is spliced into the document", () => {
    const doc = mutationDocument(EVERY);
    expect(schemaErrors(doc.query)).toEqual([]);
    expect(doc.query).not.toContain("someone");
    expect(doc.query).not.toContain("lease #3");
    expect(doc.variables.m5).toEqual({ subjectId: "I_1", body: EVERY[5]!.op === "addComment" ? EVERY[5]!.body : "" });
    const ids = idDocument({ owner: "o", repo: "r", issue: 4, labels: ["claimed", 'a "b"'], logins: ["alice", "bob"] });
    expect(schemaErrors(ids.query)).toEqual([]);
    expect(ids.query).not.toContain('a "b"');
  });

  it("an answer is read alias by alias: a NOT_FOUND under one, the others done; an assignee GitHub left out shows", () => {
    const answer = {
      data: { m0: { clientMutationId: null }, m1: null, m2: { clientMutationId: null }, m3: { clientMutationId: null },
        m4: { assignable: { assignees: { nodes: [{ login: "carol" }] } } }, m5: { clientMutationId: null }, m6: { label: { id: "LA_9" } } },
      errors: [{ type: "NOT_FOUND", path: ["m1"], message: "Could not resolve to a node with the global id of 'LA_2'." }],
    };
    const results = readMutations(EVERY, answer);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, true, true, true, true]);
    expect(results[1]).toEqual({ ok: false, error: { type: "NOT_FOUND", message: "Could not resolve to a node with the global id of 'LA_2'." } });
    expect(results[4]).toEqual({ ok: true, assignees: ["carol"] });
    expect(results[6]).toEqual({ ok: true, labelId: "LA_9" });
  });

  it("an answer that concerns the whole document (a rate limit, no data) is thrown, with its errors for the outbox", () => {
    const limited = { data: null, errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded" }] };
    expect(() => readMutations(EVERY, limited)).toThrow(GraphqlRefused);
    try {
      readMutations(EVERY, limited);
    } catch (error) {
      expect((error as GraphqlRefused).errors).toEqual([{ type: "RATE_LIMITED", message: "API rate limit exceeded" }]);
      expect((error as GraphqlRefused).status).toBeUndefined();
    }
  });

  it("ids: a user GitHub does not find is null, a label the repository lacks is null, a missing issue is a 404", () => {
    const q = { owner: "o", repo: "r", issue: 4, labels: ["claimed", "lease #2"], logins: ["alice", "ghost"] };
    const a = readIds(q, {
      data: { repository: { id: "R_1", issue: { id: "I_4" }, l0: { id: "LA_1" }, l1: null }, u0: { id: "U_1" }, u1: null },
      errors: [{ type: "NOT_FOUND", path: ["u1"], message: "Could not resolve to a User with the login of 'ghost'." }],
    });
    expect(a).toEqual({ repositoryId: "R_1", issueId: "I_4", labels: new Map([["claimed", "LA_1"], ["lease #2", null]]), users: new Map([["alice", "U_1"], ["ghost", null]]) });
    let thrown: unknown;
    try {
      readIds(q, { data: { repository: { id: "R_1", issue: null, l0: null, l1: null }, u0: null, u1: null }, errors: [{ type: "NOT_FOUND", path: ["repository", "issue"], message: "Could not resolve to an Issue with the number of 4." }] });
    } catch (error) {
      thrown = error;
    }
    expect((thrown as GraphqlRefused).status).toBe(404);
  });
});
