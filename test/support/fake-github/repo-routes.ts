/**
 * The app and its installation, the repository, its config files (the
 * contents API) and who may do what in it: collaborators' permissions,
 * assignability and org membership.
 */
import { createHash } from "node:crypto";
import { graphql, graphqlKind } from "./graphql.js";
import { GRAPHQL_ROUTE } from "./layout.js";
import type { InteractionLimit } from "./records.js";
import { forbidden, notFound, type Reply } from "./replies.js";
import { fullName } from "./request-fields.js";
import { R, type Ctx, type RouteTable } from "./route-table.js";
import type { RouteDeps } from "./routes.js";
import type { Permission } from "./types.js";

/** How GitHub reports each role through the legacy `permission` field. */
const PERMISSION_VIEW: Record<Permission, { permission: string; role_name: string }> = {
  admin: { permission: "admin", role_name: "admin" },
  maintain: { permission: "write", role_name: "maintain" },
  write: { permission: "write", role_name: "write" },
  triage: { permission: "read", role_name: "triage" },
  read: { permission: "read", role_name: "read" },
  none: { permission: "none", role_name: "none" },
};
const PERMISSION_RANK: Record<Permission, number> = { none: 0, read: 1, triage: 2, write: 3, maintain: 4, admin: 5 };

export function installationRoutes(t: RouteTable, { data, shapes }: RouteDeps): void {
  // GitHub's meta information, served to anyone (doctor asks it to find the REST API).
  t.add("GET", "/meta", "read", () => ({ status: 200, json: { verifiable_password_authentication: false, hooks: [], web: [], api: [], git: [] } }));
  t.add("POST", "/app/installations/:installation/access_tokens", "token", () => shapes.tokenReply());
  t.add("GET", "/app", "read", () => ({ status: 200, json: shapes.appJson() }));
  t.add("GET", "/app/installations", "read", () => ({ status: 200, json: [shapes.installationJson()] }));
  t.add("GET", `${R}/installation`, "read", (ctx) =>
    data.uninstalled.has(fullName(ctx)) ? notFound() : { status: 200, json: shapes.installationJson(data.repoOf(ctx).owner) });
  t.add("GET", "/installation/repositories", "read", (ctx) => {
    // Installation tokens only: a user's token (an API caller's, or one of the board's sign-in) is refused, as GitHub
    // refuses it. A registered bot's installation lists the repositories its token reaches; the app's, all of them.
    const caller = data.callerOf(ctx);
    const userToken = caller ? caller.type === "User" : ctx.token !== null && data.oauth.tokens.has(ctx.token);
    if (userToken) return forbidden("You must authenticate with an installation access token in order to list repositories for an installation.");
    const reach = caller?.repos;
    const all = [...data.repos.values()].filter((r) => !reach || reach.has(`${r.owner}/${r.name}`.toLowerCase()));
    const { items, headers } = shapes.paginate(ctx, all);
    return {
      status: 200, headers,
      json: { total_count: all.length, repository_selection: reach ? "selected" : "all", repositories: items.map((r) => shapes.repoJson(r)) },
    };
  });
}

export function repoRoutes(t: RouteTable, d: RouteDeps): void {
  const { data, shapes } = d;
  t.add("GET", R, "read", (ctx) => (data.tokenSees(ctx) ? { status: 200, json: shapes.repoJson(data.repoOf(ctx)) } : notFound()));
  // GraphQL, wherever the layout serves it (layout.ts): github.com's /graphql, Enterprise Server's /api/graphql. A query
  // reads, a mutation writes.
  t.add("POST", GRAPHQL_ROUTE, graphqlKind, (ctx) => graphql(d, ctx));
  t.add("GET", `${R}/contents/*path`, "read", (ctx) => getContent(d, ctx));
  t.add("GET", `${R}/collaborators/:user/permission`, "read", (ctx) => {
    const login = ctx.params.user!;
    const permission = data.repoOf(ctx).permissions.get(login.toLowerCase()) ?? "read";
    const rank = PERMISSION_RANK[permission];
    return {
      status: 200,
      json: {
        ...PERMISSION_VIEW[permission],
        user: {
          ...shapes.userJson(login),
          role_name: PERMISSION_VIEW[permission].role_name,
          permissions: { admin: rank >= 5, maintain: rank >= 4, push: rank >= 3, triage: rank >= 2, pull: rank >= 1 },
        },
      },
    };
  });
  t.add("GET", `${R}/collaborators/:user`, "read", (ctx) => {
    const permission = data.repoOf(ctx).permissions.get(ctx.params.user!.toLowerCase());
    return permission !== undefined && permission !== "none" ? { status: 204 } : notFound();
  });
  t.add("GET", `${R}/assignees/:user`, "read", (ctx) =>
    data.refusedAssignees.has(ctx.params.user!.toLowerCase()) ? notFound() : { status: 204 });
  // Moderation, as github.com serves it to a token with the permission (administration, blocking users); the app's own
  // token has neither (app.yml), so it is refused as GitHub refuses it, and the app asks GraphQL instead (moderation.ts).
  // Enterprise Server has no such routes (its OpenAPI description lists none).
  t.add("GET", `${R}/interaction-limits`, "read", (ctx) => {
    if (!data.callerOf(ctx)) return forbidden("Resource not accessible by integration");
    const limit = data.repoOf(ctx).interactionLimit;
    return { status: 200, json: limit ? limitJson(limit, "repository") : {} };
  }, "github.com");
  t.add("GET", "/orgs/:org/interaction-limits", "read", (ctx) => {
    if (!data.callerOf(ctx)) return forbidden("Resource not accessible by integration");
    const limit = data.ownerLimits.get(ctx.params.org!.toLowerCase());
    return { status: 200, json: limit ? limitJson(limit, "organization") : {} };
  }, "github.com");
  t.add("GET", "/orgs/:org/blocks/:user", "read", (ctx) => {
    if (!data.callerOf(ctx)) return forbidden("Resource not accessible by integration");
    return data.blocks.get(ctx.params.org!.toLowerCase())?.has(ctx.params.user!.toLowerCase()) ? { status: 204 } : notFound();
  }, "github.com");
  t.add("GET", "/orgs/:org/members/:user", "read", (ctx) =>
    data.orgMembers.get(ctx.params.org!.toLowerCase())?.has(ctx.params.user!.toLowerCase()) ? { status: 204 } : notFound());
}

function limitJson(limit: InteractionLimit, origin: "repository" | "organization"): Record<string, unknown> {
  return { limit: limit.limit, origin, expires_at: limit.expiresAt === null ? null : new Date(limit.expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z") };
}

function getContent({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  const path = ctx.params.path!.replace(/^\/+/, "");
  const content = data.repoOf(ctx).files.get(path);
  if (content === undefined) return notFound();
  // Probot's config plugin asks for `application/vnd.github.v3.raw` and
  // rejects a JSON content-type as "a directory or a submodule".
  if (ctx.accept.includes("raw")) return { status: 200, text: content };
  const sha = createHash("sha1").update(`blob ${Buffer.byteLength(content)}\0${content}`).digest("hex");
  const repo = data.repoOf(ctx);
  return {
    status: 200,
    json: {
      type: "file", encoding: "base64", size: Buffer.byteLength(content), name: path.slice(path.lastIndexOf("/") + 1),
      path, content: Buffer.from(content).toString("base64"), sha,
      url: `${shapes.apiRepoUrl(repo)}/contents/${path}`, html_url: `${shapes.htmlRepoUrl(repo)}/blob/${repo.defaultBranch}/${path}`,
      download_url: null,
    },
  };
}
