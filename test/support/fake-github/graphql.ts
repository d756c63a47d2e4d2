/**
 * GitHub's GraphQL endpoint, as much of it as the app and the API's callers
 * need: two queries answered here, and the mutations graphql-mutations.ts
 * runs. Every document is first checked against GitHub's schema.
 */
import { getOperationAST, type DocumentNode, type OperationDefinitionNode } from "graphql";
import { runMutations } from "./graphql-mutations.js";
import { isIdQuery, runIdQuery } from "./graphql-queries.js";
import { parsedDocument, schemaErrors } from "./graphql-schema.js";
import { DOCS, type Reply } from "./replies.js";
import { bodyField, isRecord } from "./request-fields.js";
import type { Ctx, RouteKind } from "./route-table.js";
import type { RouteDeps } from "./routes.js";

/**
 * What a GraphQL request is to the fake's pipeline: a mutation document writes and creates content (once, however
 * many mutations it holds), anything else reads. A document that does not parse reads; the handler refuses it.
 */
export function graphqlKind(body: unknown): RouteKind {
  return operationOf(body)?.operation.operation === "mutation" ? "mutation" : "read";
}

/** The request's document and the operation it runs (by `operationName` when it holds several), or null. */
function operationOf(body: unknown): { document: DocumentNode; operation: OperationDefinitionNode } | null {
  const query = bodyField(body, "query");
  const name = bodyField(body, "operationName");
  if (typeof query !== "string") return null;
  const document = parsedDocument(query);
  const operation = document && getOperationAST(document, typeof name === "string" ? name : undefined);
  return document && operation ? { document, operation } : null;
}

/**
 * The endpoint: a document outside GitHub's schema is refused (200, `errors`, no `data`, recorded as unmatched); a
 * mutation document runs (graphql-mutations.ts); and two queries are answered, for a registered token (else 401,
 * GitHub's "Bad credentials"): `viewer`, and a repository's issue as the API's moderation asks for it
 * (`repository { interactionAbility issueOrPullRequest }`).
 */
export function graphql(d: RouteDeps, ctx: Ctx): Reply {
  const { data } = d;
  // GitHub's GraphQL API answers no one it does not know.
  if (ctx.token === null) {
    return { status: 401, json: { message: "This endpoint requires you to be authenticated.", documentation_url: "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql" } };
  }
  const query = bodyField(ctx.body, "query");
  const caller = ctx.token === null ? undefined : data.apiTokens.get(ctx.token);
  const invalid = typeof query === "string" ? schemaErrors(query) : ["a GraphQL request needs a query"];
  if (invalid.length > 0) return { status: 200, json: { errors: invalid.map((message) => ({ message })) }, invalid: true };
  const op = operationOf(ctx.body);
  if (op?.operation.operation === "mutation") return runMutations(d, op.document, ctx.body);
  if (op && isIdQuery(op.operation)) return runIdQuery(d, op.document, ctx.body);
  if (typeof query === "string" && /\bissueOrPullRequest\b/.test(query)) {
    if (!caller) return { status: 401, json: { message: "Bad credentials", documentation_url: DOCS } };
    return issueAbility(d, ctx, caller);
  }
  if (typeof query !== "string" || !/\bviewer\s*\{/.test(query)) {
    return { status: 200, json: { errors: [{ message: "fake-github: only the viewer and the issue-ability queries are served" }] } };
  }
  if (!caller) return { status: 401, json: { message: "Bad credentials", documentation_url: DOCS } };
  return { status: 200, json: { data: { viewer: { __typename: caller.type, login: caller.login, databaseId: caller.id } } } };
}

const LIMIT_ENUM = { existing_users: "EXISTING_USERS", contributors_only: "CONTRIBUTORS_ONLY", collaborators_only: "COLLABORATORS_ONLY" } as const;

function issueAbility({ data }: RouteDeps, ctx: Ctx, caller: NonNullable<ReturnType<RouteDeps["data"]["callerOf"]>>): Reply {
  const vars = bodyField(ctx.body, "variables");
  const owner = isRecord(vars) ? vars.owner : undefined;
  const name = isRecord(vars) ? vars.name : undefined;
  const number = isRecord(vars) ? vars.number : undefined;
  if (typeof owner !== "string" || typeof name !== "string" || typeof number !== "number" || !Number.isInteger(number)) {
    return { status: 200, json: { errors: [{ message: "fake-github: the issue-ability query needs $owner, $name and $number" }] } };
  }
  const full = `${owner}/${name}`.toLowerCase();
  if (!data.sees(caller, full)) {
    return {
      status: 200,
      json: { data: { repository: null }, errors: [{ type: "NOT_FOUND", path: ["repository"], message: `Could not resolve to a Repository with the name '${owner}/${name}'.` }] },
    };
  }
  const repo = data.repoByFullName(`${owner}/${name}`);
  const limit = data.interactionLimitOf(repo);
  const interactionAbility = {
    limit: limit ? LIMIT_ENUM[limit.limit] : "NO_LIMIT",
    expiresAt: limit?.expiresAt ? new Date(limit.expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z") : null,
  };
  if (caller.issues === "none") {
    return {
      status: 200,
      json: {
        data: { repository: { interactionAbility, issueOrPullRequest: null } },
        errors: [{ type: "FORBIDDEN", path: ["repository", "issueOrPullRequest"], message: "Resource not accessible by integration" }],
      },
    };
  }
  const issue = data.issueOf(repo, number);
  const lockReason = issue.lockReason === null ? null : issue.lockReason.toUpperCase().replace(/[ -]/g, "_");
  return {
    status: 200,
    json: {
      data: {
        repository: {
          interactionAbility,
          issueOrPullRequest: { locked: issue.locked, activeLockReason: lockReason, viewerCanReact: data.mayInteract(caller, repo, issue) },
        },
      },
    },
  };
}
