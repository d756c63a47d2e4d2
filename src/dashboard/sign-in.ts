/**
 * "Sign in with GitHub": the GitHub App's user authorization, the OAuth web
 * flow, against the same GitHub as the rest of the app.
 *
 * 1. `GET /login?return_to=/leases…` sets a short-lived signed cookie with a
 *    random `state` and where to return, and sends the browser to GitHub's
 *    `/login/oauth/authorize` with the app's client id, the callback URL and
 *    the state.
 * 2. GitHub sends the browser back to `GET /oauth/callback?code&state`. The
 *    state must be the cookie's (else nothing happens: 400). The code is
 *    exchanged for a user token; with it the app asks `GET /user` and the
 *    private repositories of the app's installations the user can access;
 *    then it revokes the token. The session cookie keeps the user's id and
 *    login and those repositories' ids, never the token.
 * 3. After ten minutes the list is stale: the next page view goes through
 *    GitHub again (no prompt for an app the user has authorized) for a fresh
 *    one. `POST /logout` (or GET) clears the session.
 */
import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "probot";
import { GitHubUserError, type UserGitHub } from "../github/github-user.js";
import { publicOrigin, redirect, secureRequest, sendPage } from "./http.js";
import { renderMessage } from "./render.js";
import {
  cookie,
  openSignIn,
  readCookies,
  safeReturnTo,
  sameState,
  sealSession,
  sealSignIn,
  SESSION_COOKIE,
  SESSION_MS,
  SIGN_IN_COOKIE,
  SIGN_IN_MS,
} from "./session.js";
import type { DashboardSettings } from "./settings.js";

export const CALLBACK_PATH = "/oauth/callback";

/** What the sign-in asks GitHub: the code for a token, who the user is and what they may see, and the token's revocation. */
export type SignInGitHub = Pick<UserGitHub, "exchangeCode" | "userAccess" | "revokeToken">;

export interface SignInDeps {
  settings: DashboardSettings;
  clock: () => number;
  log: Logger;
  github: SignInGitHub;
}

const message = (deps: SignInDeps, title: string, text: string) =>
  renderMessage({ now: deps.clock(), web: deps.settings.github.web, viewer: null, signIn: deps.settings.oauth !== null, here: "/leases" }, title, text);

export function startSignIn(req: IncomingMessage, res: ServerResponse, url: URL, deps: SignInDeps): void {
  const { oauth, sessionKey } = deps.settings;
  if (!oauth || !sessionKey) {
    sendPage(res, 404, message(deps, "Sign-in is not set up", "This board shows public repositories only: the app has no GITHUB_CLIENT_ID and GITHUB_CLIENT_SECRET."));
    return;
  }
  const origin = publicOrigin(req, deps.settings);
  if (!origin) {
    sendPage(res, 400, message(deps, "Sign-in is not possible here", "The request's Host header is not a host name; set PUBLIC_URL."));
    return;
  }
  const state = randomBytes(24).toString("base64url");
  const now = deps.clock();
  const returnTo = safeReturnTo(url.searchParams.get("return_to"));
  const authorize = new URL(`${deps.settings.github.web}/login/oauth/authorize`);
  authorize.searchParams.set("client_id", oauth.clientId);
  authorize.searchParams.set("redirect_uri", `${origin.origin}${CALLBACK_PATH}`);
  authorize.searchParams.set("state", state);
  const signIn = sealSignIn(sessionKey, { state, returnTo, expiresAt: now + SIGN_IN_MS });
  redirect(res, authorize.toString(), [cookie(SIGN_IN_COOKIE, signIn, SIGN_IN_MS, origin.secure)]);
}

export async function finishSignIn(req: IncomingMessage, res: ServerResponse, url: URL, deps: SignInDeps): Promise<void> {
  const { oauth, sessionKey } = deps.settings;
  if (!oauth || !sessionKey) {
    sendPage(res, 404, message(deps, "Sign-in is not set up", "This board shows public repositories only."));
    return;
  }
  const now = deps.clock();
  const secure = secureRequest(req, deps.settings);
  const clearSignIn = cookie(SIGN_IN_COOKIE, "", 0, secure);
  const pending = openSignIn(sessionKey, readCookies(req).get(SIGN_IN_COOKIE), now);
  const state = url.searchParams.get("state") ?? "";
  if (!pending || !state || !sameState(state, pending.state)) {
    sendPage(res, 400, message(deps, "Sign-in not completed", "This sign-in could not be checked (it took too long, or did not start here). Sign in again."), [
      clearSignIn,
    ]);
    return;
  }
  if (url.searchParams.get("error")) {
    sendPage(res, 403, message(deps, "Sign-in cancelled", "GitHub did not authorize the sign-in. Nothing changed."), [clearSignIn]);
    return;
  }
  const code = url.searchParams.get("code") ?? "";
  if (!code || code.length > 200) {
    sendPage(res, 400, message(deps, "Sign-in not completed", "GitHub sent no code back. Sign in again."), [clearSignIn]);
    return;
  }
  const origin = publicOrigin(req, deps.settings);
  let token: string | undefined;
  let answer: () => void;
  try {
    token = await deps.github.exchangeCode(oauth, code, `${origin?.origin ?? ""}${CALLBACK_PATH}`);
    const access = await deps.github.userAccess(token);
    const session = sealSession(sessionKey, {
      id: access.id,
      login: access.login,
      repos: access.privateRepos,
      checkedAt: now,
      expiresAt: now + SESSION_MS,
      partial: access.partial,
    });
    deps.log.info({ login: access.login, private_repositories: access.privateRepos.length, partial: access.partial }, "board: signed in");
    answer = () => redirect(res, pending.returnTo, [clearSignIn, cookie(SESSION_COOKIE, session, SESSION_MS, secure)]);
  } catch (error) {
    if (!(error instanceof GitHubUserError)) throw error;
    deps.log.warn({ detail: error.detail }, "board: sign-in failed");
    answer = () => sendPage(res, error.unauthorized ? 401 : 502, message(deps, "Sign-in not completed", error.message), [clearSignIn]);
  } finally {
    // The session needs the token no longer: revoked before the browser moves on.
    if (token) await deps.github.revokeToken(oauth, token);
  }
  answer();
}

export function signOut(req: IncomingMessage, res: ServerResponse, deps: SignInDeps): void {
  const secure = secureRequest(req, deps.settings);
  redirect(res, "/leases", [cookie(SESSION_COOKIE, "", 0, secure)], req.method === "POST" ? 303 : 302);
}
