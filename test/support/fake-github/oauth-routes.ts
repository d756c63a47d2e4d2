/**
 * The board's sign-in, GitHub's OAuth web flow: authorize, the code for a
 * user token, who the token is and which installations and repositories it
 * sees, and revoking it. Seeded with setOAuthApp, signInAs and
 * setUserInstallations (state.ts).
 */
import { DOCS, forbidden, notFound, type Reply } from "./replies.js";
import { bodyField } from "./request-fields.js";
import type { Ctx, RouteTable } from "./route-table.js";
import type { RouteDeps } from "./routes.js";

export function oauthRoutes(t: RouteTable, { data, shapes }: RouteDeps): void {
  const o = () => data.oauth;
  t.add("GET", "/login/oauth/authorize", "read", (ctx) => {
    const redirect = ctx.query.get("redirect_uri") ?? "";
    if (!o().app || ctx.query.get("client_id") !== o().app!.clientId || !/^https?:\/\//.test(redirect)) {
      return { status: 404, text: "The client id or redirect URI is not this app's." };
    }
    const login = o().signedIn;
    if (!login) return { status: 401, text: "Nobody is signed in to the fake GitHub." };
    const code = `code-${o().next++}`;
    o().codes.set(code, { login, redirect });
    const back = new URL(redirect);
    back.searchParams.set("code", code);
    back.searchParams.set("state", ctx.query.get("state") ?? "");
    return { status: 302, headers: { location: back.toString() } };
  });
  t.add("POST", "/login/oauth/access_token", "read", (ctx) => {
    const app = o().app;
    const code = String(bodyField(ctx.body, "code") ?? "");
    const grant = o().codes.get(code);
    o().codes.delete(code);
    if (!app || bodyField(ctx.body, "client_id") !== app.clientId || bodyField(ctx.body, "client_secret") !== app.clientSecret) {
      return { status: 200, json: { error: "incorrect_client_credentials" } };
    }
    if (!grant || bodyField(ctx.body, "redirect_uri") !== grant.redirect) return { status: 200, json: { error: "bad_verification_code" } };
    const token = `ghu_fake${o().next++}`;
    o().tokens.set(token, grant.login);
    return { status: 200, json: { access_token: token, token_type: "bearer", scope: "", expires_in: 28_800 } };
  });
  // A user token from the sign-in, or an API caller's token (addToken): its user's installations.
  const userOf = (ctx: Ctx): string | undefined =>
    ctx.token === null ? undefined : (o().tokens.get(ctx.token) ?? data.apiTokens.get(ctx.token)?.login);
  const unauthorized: Reply = { status: 401, json: { message: "Bad credentials", documentation_url: DOCS, status: "401" } };
  t.add("GET", "/user", "read", (ctx) => {
    const login = userOf(ctx);
    return login ? { status: 200, json: shapes.userJson(login) } : unauthorized;
  });
  // An installation token is no user's: GitHub refuses it the user's installations.
  const installationToken = (ctx: Ctx): Reply | null =>
    ctx.token !== null && data.apiTokens.get(ctx.token)?.type === "Bot" ? forbidden("Resource not accessible by integration") : null;
  t.add("GET", "/user/installations", "read", (ctx) => {
    const refused = installationToken(ctx);
    if (refused) return refused;
    const login = userOf(ctx);
    if (!login) return unauthorized;
    const all = (o().installations.get(login.toLowerCase()) ?? []).map((i) => ({ ...shapes.installationJson(), id: i.id }));
    const { items, headers } = shapes.paginate(ctx, all);
    return { status: 200, json: { total_count: all.length, installations: items }, headers };
  });
  t.add("GET", "/user/installations/:installation/repositories", "read", (ctx) => {
    const refused = installationToken(ctx);
    if (refused) return refused;
    const login = userOf(ctx);
    if (!login) return unauthorized;
    const installation = (o().installations.get(login.toLowerCase()) ?? []).find((i) => i.id === Number(ctx.params.installation));
    if (!installation) return notFound();
    const all = installation.repos.map((r) => ({ ...shapes.repoJson(data.repoByFullName(r.repo)), private: r.private, visibility: r.private ? "private" : "public" }));
    const { items, headers } = shapes.paginate(ctx, all);
    return { status: 200, json: { total_count: all.length, repositories: items }, headers };
  });
  t.add("DELETE", "/applications/:client/token", "read", (ctx) => {
    const app = o().app;
    const basic = /^basic\s+(\S+)$/i.exec(ctx.authorization)?.[1];
    if (!app || !basic || Buffer.from(basic, "base64").toString() !== `${app.clientId}:${app.clientSecret}` || ctx.params.client !== app.clientId) {
      return unauthorized;
    }
    const token = String(bodyField(ctx.body, "access_token") ?? "");
    return o().tokens.delete(token) ? { status: 204 } : notFound();
  });
}
