/**
 * The GraphQL the app sends, checked against GitHub's published schema: the
 * documents themselves, and the fake's refusal of one GitHub would refuse, so
 * that every test through the fake fails on a field GitHub lacks.
 */
import { describe, expect, it } from "vitest";
import { MODERATION, VIEWER } from "../../src/github/caller-graphql.js";
import { QUERY as CLOSING_ISSUES } from "../../src/github/closing-issues.js";
import { startFakeGitHub } from "./fake-github.js";
import { schemaErrors } from "./fake-github/graphql-schema.js";

describe("GitHub's GraphQL schema", () => {
  it.each([
    ["the caller's identity", VIEWER],
    ["the API's moderation question", MODERATION],
    ["a pull request's closing issues", CLOSING_ISSUES],
  ])("holds every field of %s", (_name, document) => {
    expect(schemaErrors(document)).toEqual([]);
  });

  it("names a field GitHub lacks, a misspelt argument and a syntax error", () => {
    expect(schemaErrors("query { viewer { login databaseIdentifier } }").join("\n")).toMatch(/databaseIdentifier/);
    expect(schemaErrors('query { repository(owner: "a", nam: "b") { id } }').join("\n")).toMatch(/nam/);
    expect(schemaErrors("query { viewer { login ").length).toBeGreaterThan(0);
    expect(schemaErrors('mutation { addComment(input: { subjectId: "x", body: "y", colour: 1 }) { clientMutationId } }').join("\n")).toMatch(/colour/);
  });

  it("is enforced by the fake: a document outside the schema is answered with errors and recorded as unmatched", async () => {
    const fake = await startFakeGitHub();
    try {
      const res = await fetch(fake.graphqlUrl, {
        method: "POST",
        headers: { authorization: "bearer nobody", "content-type": "application/json" },
        body: JSON.stringify({ query: "query { viewer { login karma } }" }),
      });
      const body = (await res.json()) as { data?: unknown; errors?: Array<{ message: string }> };
      expect(body.data).toBeUndefined();
      expect(body.errors?.map((e) => e.message).join("\n")).toMatch(/karma/);
      expect(fake.takeUnmatched()).toMatchObject([{ method: "POST", path: "/graphql" }]);
    } finally {
      await fake.close();
    }
  });
});
