/**
 * Every GraphQL document sent to the fake is checked against GitHub's
 * published schema (`@octokit/graphql-schema`), queries and mutations alike,
 * so that a field or argument GitHub lacks fails a test here rather than the
 * app on github.com. GitHub answers such a document 200 with `errors` and no
 * `data`; the fake does the same.
 */
import { schema } from "@octokit/graphql-schema";
import { buildClientSchema, type GraphQLSchema, parse, validate } from "graphql";

let built: GraphQLSchema | null = null;

/** GitHub's schema, built once: what documents are validated against, and what graphql.ts executes mutations with. */
export function githubSchema(): GraphQLSchema {
  built ??= buildClientSchema(schema.json as unknown as Parameters<typeof buildClientSchema>[0]);
  return built;
}

/** The schema's complaints about `document` (a syntax error included): empty when GitHub would run it. */
export function schemaErrors(document: string): string[] {
  try {
    return validate(githubSchema(), parse(document)).map((e) => e.message);
  } catch (error) {
    return [error instanceof Error ? error.message : String(error)];
  }
}
