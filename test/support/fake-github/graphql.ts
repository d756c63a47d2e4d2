/** GitHub's GraphQL endpoint, as much of it as the API's callers need. */
import { schemaErrors } from "./graphql-schema.js";
import { DOCS, type Reply } from "./replies.js";
import { bodyField, isRecord } from "./request-fields.js";
import type { Ctx } from "./route-table.js";
import type { RouteDeps } from "./routes.js";

/**
 * The two GraphQL queries the fake answers, for a registered token (else 401, GitHub's "Bad credentials"): `viewer`,
 * and a repository's issue as the API's moderation asks for it (`repository { interactionAbility issueOrPullRequest }`).
 */
export function graphql(d: RouteDeps, ctx: Ctx): Reply {
  const { data } = d;
  const query = bodyField(ctx.body, "query");
  const caller = ctx.token === null ? undefined : data.apiTokens.get(ctx.token);
  const invalid = typeof query === "string" ? schemaErrors(query) : ["a GraphQL request needs a query"];
  if (invalid.length > 0) return { status: 200, json: { errors: invalid.map((message) => ({ message })) }, invalid: true };
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
  if (caller.repos && !caller.repos.has(full)) {
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
