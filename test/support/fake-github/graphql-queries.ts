/**
 * GitHub's GraphQL queries for node ids, run by graphql-js against GitHub's
 * schema on the fake's records: `repository(owner:, name:)` with its `id`,
 * `issue(number:)` and `label(name:)`, and `user(login:)`, each aliasable.
 * What GitHub does not find answers as GitHub does: a repository, an issue or
 * a user is null with a NOT_FOUND error under its path; a label is null, no
 * error. Every login but a bot's is a user, as on GitHub (the fake then
 * knows its node id). A field the fake does not model fails loudly (graphql-mutations.ts).
 */
import { execute, type DocumentNode, type OperationDefinitionNode } from "graphql";
import { githubError, modelledField } from "./graphql-mutations.js";
import { GraphqlError, issueObject, labelObject, repositoryObject, userObject, knownLogin } from "./graphql-nodes.js";
import { githubSchema } from "./graphql-schema.js";
import type { Reply } from "./replies.js";
import { bodyField, isRecord } from "./request-fields.js";
import type { RouteDeps } from "./routes.js";

/** Whether the fake answers this query here: its root fields are only `repository` (ids, issues, labels) and `user`. */
export function isIdQuery(operation: OperationDefinitionNode): boolean {
  return operation.selectionSet.selections.every((s) => s.kind === "Field" && (s.name.value === "repository" || s.name.value === "user")) &&
    !/\b(issueOrPullRequest|interactionAbility)\b/.test(JSON.stringify(operation));
}

export function runIdQuery(d: RouteDeps, document: DocumentNode, body: unknown): Reply {
  const variables = bodyField(body, "variables");
  const result = execute({
    schema: githubSchema(), document, rootValue: queryRoot(d), fieldResolver: modelledField,
    variableValues: isRecord(variables) ? variables : undefined,
  });
  if ("then" in result) throw new Error("fake-github: a GraphQL resolver went asynchronous");
  const errors = result.errors?.map(githubError);
  if (result.data === undefined) return { status: 200, json: { errors }, invalid: true };
  return { status: 200, json: errors ? { data: result.data, errors } : { data: result.data } };
}

function queryRoot(d: RouteDeps): Record<string, (args: Record<string, unknown>) => unknown> {
  const { data } = d;
  return {
    repository: ({ owner, name }) => {
      const full = `${String(owner)}/${String(name)}`;
      const repo = [...data.repos.values()].find((r) => `${r.owner}/${r.name}`.toLowerCase() === full.toLowerCase());
      if (!repo) throw new GraphqlError("NOT_FOUND", `Could not resolve to a Repository with the name '${full}'.`);
      return {
        ...repositoryObject(d, repo),
        issue: ({ number }: { number: number }) => issueObject(d, repo, data.issueOf(repo, number)),
        label: ({ name: label }: { name: string }) => {
          const found = data.findLabel(repo, label);
          return found ? labelObject(d, repo, found) : null;
        },
      };
    },
    user: ({ login }) => {
      if (typeof login !== "string" || /\[bot\]$/i.test(login)) {
        throw new GraphqlError("NOT_FOUND", `Could not resolve to a User with the login of '${String(login)}'.`);
      }
      if (!knownLogin(data, login)) data.lookedUpUsers.add(login);
      return userObject(d, login);
    },
  };
}
