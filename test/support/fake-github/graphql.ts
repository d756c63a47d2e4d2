/** GitHub's GraphQL endpoint, as much of it as the API's callers need. */
import { DOCS, type Reply } from "./replies.js";
import { bodyField } from "./request-fields.js";
import type { Ctx } from "./route-table.js";
import type { RouteDeps } from "./routes.js";

/** The one GraphQL query the fake answers: `viewer`, for a registered token (else 401, GitHub's "Bad credentials"). */
export function graphql({ data }: RouteDeps, ctx: Ctx): Reply {
  const query = bodyField(ctx.body, "query");
  if (typeof query !== "string" || !/\bviewer\b/.test(query)) {
    return { status: 200, json: { errors: [{ message: "fake-github: only the viewer query is served" }] } };
  }
  const caller = ctx.token === null ? undefined : data.apiTokens.get(ctx.token);
  if (!caller) return { status: 401, json: { message: "Bad credentials", documentation_url: DOCS } };
  return { status: 200, json: { data: { viewer: { __typename: caller.type, login: caller.login, databaseId: caller.id } } } };
}
