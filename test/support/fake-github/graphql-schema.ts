/**
 * Every GraphQL document sent to the fake is checked against GitHub's
 * published schema (`@octokit/graphql-schema`), queries and mutations alike,
 * so that a field or argument GitHub lacks fails a test here rather than the
 * app on github.com. GitHub answers such a document 200 with `errors` and no
 * `data`; the fake does the same.
 */
import { schema } from "@octokit/graphql-schema";
import { buildClientSchema, type DocumentNode, type GraphQLSchema, parse, validate } from "graphql";

let built: GraphQLSchema | null = null;

/** GitHub's schema, built once: what documents are validated against, and what graphql.ts executes mutations with. */
export function githubSchema(): GraphQLSchema {
  built ??= buildClientSchema(schema.json as unknown as Parameters<typeof buildClientSchema>[0]);
  return built;
}

/**
 * A document as parsed, or null when it does not parse, and the schema's
 * complaints about it (a syntax error included). Both depend on the text
 * alone, so each text is parsed and validated once: the app sends the same
 * few documents over and over with other variables, and validating one
 * against GitHub's schema costs about a millisecond, which a load test
 * running the fake in its own process would otherwise pay per request.
 */
interface Checked {
  document: DocumentNode | null;
  errors: string[];
}

const CHECKED_LIMIT = 1_000;
const checkedTexts = new Map<string, Checked>();

function checked(text: string): Checked {
  let found = checkedTexts.get(text);
  if (found === undefined) {
    try {
      const document = parse(text);
      found = { document, errors: validate(githubSchema(), document).map((e) => e.message) };
    } catch (error) {
      found = { document: null, errors: [error instanceof Error ? error.message : String(error)] };
    }
    if (checkedTexts.size >= CHECKED_LIMIT) checkedTexts.clear();
    checkedTexts.set(text, found);
  }
  return found;
}

/** The schema's complaints about `document` (a syntax error included): empty when GitHub would run it. */
export function schemaErrors(document: string): string[] {
  return checked(document).errors;
}

/** `text` parsed, or null when it does not parse. Shared: read it, never change it. */
export function parsedDocument(text: string): DocumentNode | null {
  return checked(text).document;
}
