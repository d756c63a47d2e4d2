/**
 * What the board asks GitHub with a user's token: who they are, and which
 * private repositories of the app's installations they may see
 * (`GET /user/installations`, then each installation's repositories). And
 * the OAuth web flow's two calls: the code for a token, and the token's
 * revocation once the sign-in is done. Plain fetch: these calls are the
 * user's, not the app's installation (no app auth, no throttling plugin).
 * The board's sign-in (dashboard/sign-in.ts) and its bearer tokens
 * (dashboard/bearer-viewer.ts) each use their few calls of `userGitHub`.
 */

/** Where GitHub's people and OAuth pages are (`web`), and its REST API (`api`), as github-urls.ts names them. */
interface Hosts {
  web: string;
  api: string;
}

export type Fetch = typeof fetch;

/** Past this many requests at sign-in, the list of repositories stops there (and the page says it is partial). */
const MAX_REQUESTS = 40;
const PER_PAGE = 100;
const TIMEOUT_MS = 10_000;

/** GitHub refused or did not answer: the message is for the person signing in; the detail is for the log, without any token. */
export class GitHubUserError extends Error {
  override name = "GitHubUserError";
  constructor(
    message: string,
    readonly detail: string,
    /** GitHub's status, when it answered. */
    readonly status?: number,
  ) {
    super(message);
  }

  /** GitHub said the token is not good (401): a client error, not an outage. */
  get unauthorized(): boolean {
    return this.status === 401;
  }

  /** GitHub answered with a 4xx: a refusal of the token or the call, not an outage. */
  get refused(): boolean {
    return this.status !== undefined && this.status >= 400 && this.status < 500;
  }
}

export interface UserAccess {
  id: number;
  login: string;
  /** Ids of the private repositories, among the app's installations, the user may see. */
  privateRepos: number[];
  /** The list stopped at the request budget. */
  partial: boolean;
}

async function call(f: Fetch, url: string, init: RequestInit): Promise<Response> {
  try {
    return await f(url, { ...init, signal: AbortSignal.timeout(TIMEOUT_MS), redirect: "error" });
  } catch (error) {
    throw new GitHubUserError("GitHub did not answer; try again in a moment.", `${init.method ?? "GET"} ${new URL(url).pathname}: ${(error as Error).message}`);
  }
}

async function getJson(f: Fetch, api: string, path: string, token: string): Promise<unknown> {
  const res = await call(f, `${api}${path}`, {
    headers: { authorization: `Bearer ${token}`, accept: "application/vnd.github+json", "user-agent": "issue-leases", "x-github-api-version": "2022-11-28" },
  });
  if (!res.ok) {
    await res.arrayBuffer().catch(() => undefined);
    throw new GitHubUserError(
      res.status === 401 ? "GitHub did not accept the sign-in; sign in again." : `GitHub answered ${res.status}; try again in a moment.`,
      `GET ${path}: ${res.status}`,
      res.status,
    );
  }
  return res.json() as Promise<unknown>;
}

const record = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/** The OAuth web flow's exchange: a code for a user token. */
async function exchangeCode(
  f: Fetch,
  hosts: Pick<Hosts, "web">,
  oauth: { clientId: string; clientSecret: string },
  code: string,
  redirectUri: string,
): Promise<string> {
  const res = await call(f, `${hosts.web}/login/oauth/access_token`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json", "user-agent": "issue-leases" },
    body: JSON.stringify({ client_id: oauth.clientId, client_secret: oauth.clientSecret, code, redirect_uri: redirectUri }),
  });
  const body = record(await res.json().catch(() => null));
  if (!res.ok || typeof body.access_token !== "string" || body.access_token === "") {
    // GitHub answers 200 with {"error": "bad_verification_code", ...} for a code used twice or too old.
    const error = typeof body.error === "string" ? body.error : `status ${res.status}`;
    throw new GitHubUserError("GitHub did not complete the sign-in (the code was refused or has expired); sign in again.", `token exchange: ${error}`);
  }
  return body.access_token;
}

/** Who the token's user is, and the private repositories of the app's installations they may see. */
async function userAccess(f: Fetch, api: string, token: string): Promise<UserAccess> {
  const user = record(await getJson(f, api, "/user", token));
  if (typeof user.id !== "number" || typeof user.login !== "string") throw new GitHubUserError("GitHub's answer was not understood.", "GET /user: no id or login");
  const seen = await privateReposOfUser(f, api, token, 1);
  return { id: user.id, login: user.login, privateRepos: seen.repos, partial: seen.partial };
}

export interface PrivateRepos {
  repos: number[];
  /** The list stopped at the request budget. */
  partial: boolean;
}

/** Pages of `path` (`?per_page=100&page=N`), each page's items under `key`, within the request budget. */
async function pages(f: Fetch, api: string, token: string, path: string, key: string, budget: { left: number }): Promise<{ items: unknown[]; partial: boolean }> {
  const items: unknown[] = [];
  for (let page = 1; ; page++) {
    if (budget.left-- <= 0) return { items, partial: true };
    const list = record(await getJson(f, api, `${path}${path.includes("?") ? "&" : "?"}per_page=${PER_PAGE}&page=${page}`, token))[key];
    const got = Array.isArray(list) ? list : [];
    items.push(...got);
    if (got.length < PER_PAGE) return { items, partial: false };
  }
}

const privateIds = (repos: unknown[]) =>
  repos.map(record).flatMap((r) => (r.private === true && typeof r.id === "number" ? [r.id] : []));

const privateNamed = (repos: unknown[]) =>
  repos.map(record).flatMap((r) => (r.private === true && typeof r.id === "number" && typeof r.full_name === "string" ? [{ id: r.id, full: r.full_name }] : []));

/**
 * Whether a token may read the issues of one installation's private
 * repositories, for `privateReposOf*`: an installation's permissions are
 * the same in all its repositories, so one of them answers for all.
 */
export type ReadsIssues = (repos: Array<{ id: number; full: string }>) => Promise<boolean>;

/**
 * Asks GitHub with the token for one issue of each repository in turn
 * (`GET /repos/{o}/{r}/issues?per_page=1`): 200 is yes, 403 or 404 no; a
 * repository without issues (410) says nothing, and the next is asked, up to
 * three. Anything else of GitHub's is thrown.
 */
async function readsIssues(f: Fetch, api: string, token: string, repos: Array<{ full: string }>): Promise<boolean> {
  for (const r of repos.slice(0, 3)) {
    const [owner = "", name = ""] = r.full.split("/");
    try {
      await getJson(f, api, `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(name)}/issues?per_page=1`, token);
      return true;
    } catch (error) {
      if (!(error instanceof GitHubUserError) || error.status === undefined || ![403, 404, 410].includes(error.status)) throw error;
      if (error.status !== 410) return false;
    }
  }
  return false;
}

/** An installation's private repositories, or none when `check` says the token may not read their issues. */
async function checked(listed: unknown[], check: ReadsIssues | undefined): Promise<number[]> {
  if (!check) return privateIds(listed);
  const named = privateNamed(listed);
  return named.length > 0 && (await check(named)) ? named.map((r) => r.id) : [];
}

/**
 * A GitHub App user token's: the private repositories of the installations it can access (`GET /user/installations`);
 * with `check`, only those of installations whose issues the token may read.
 */
async function privateReposOfUser(f: Fetch, api: string, token: string, spent = 0, check?: ReadsIssues): Promise<PrivateRepos> {
  const budget = { left: MAX_REQUESTS - spent };
  const installations = await pages(f, api, token, "/user/installations", "installations", budget);
  let partial = installations.partial;
  const repos: number[] = [];
  for (const i of installations.items.map(record)) {
    if (typeof i.id !== "number") continue;
    const listed = await pages(f, api, token, `/user/installations/${i.id}/repositories`, "repositories", budget);
    repos.push(...(await checked(listed.items, check)));
    if ((partial ||= listed.partial)) break;
  }
  return { repos, partial };
}

/** An installation token's: the private repositories of its installation (`GET /installation/repositories`), checked as above. */
async function privateReposOfInstallation(f: Fetch, api: string, token: string, check?: ReadsIssues): Promise<PrivateRepos> {
  const listed = await pages(f, api, token, "/installation/repositories", "repositories", { left: MAX_REQUESTS });
  return { repos: await checked(listed.items, check), partial: listed.partial };
}

/**
 * Revokes the user's token once the sign-in has what it needs
 * (`DELETE /applications/{client_id}/token`, authenticated as the app's
 * client). Best effort: a token GitHub did not revoke expires by itself.
 */
async function revokeToken(f: Fetch, api: string, oauth: { clientId: string; clientSecret: string }, token: string): Promise<boolean> {
  try {
    const res = await f(`${api}/applications/${encodeURIComponent(oauth.clientId)}/token`, {
      method: "DELETE",
      headers: {
        authorization: `Basic ${Buffer.from(`${oauth.clientId}:${oauth.clientSecret}`).toString("base64")}`,
        accept: "application/vnd.github+json",
        "content-type": "application/json",
        "user-agent": "issue-leases",
      },
      body: JSON.stringify({ access_token: token }),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status === 204;
  } catch {
    return false;
  }
}

/** The board's calls to GitHub (the OAuth flow's, and those with a user's or a bearer's token). */
export interface UserGitHub {
  /** The OAuth web flow's exchange: a code for a user token. */
  exchangeCode(oauth: { clientId: string; clientSecret: string }, code: string, redirectUri: string): Promise<string>;
  /** Who the token's user is, and the private repositories of the app's installations they may see. */
  userAccess(token: string): Promise<UserAccess>;
  /** Revokes the user's token (best effort): whether GitHub did. */
  revokeToken(oauth: { clientId: string; clientSecret: string }, token: string): Promise<boolean>;
  /** A GitHub App user token's private repositories, of the installations it can access; with `check`, those whose issues it may read. */
  privateReposOfUser(token: string, check?: ReadsIssues): Promise<PrivateRepos>;
  /** An installation token's private repositories, checked as above. */
  privateReposOfInstallation(token: string, check?: ReadsIssues): Promise<PrivateRepos>;
  /** Whether the token may read the issues of the first of `repos` that has issues (up to three asked). */
  readsIssues(token: string, repos: Array<{ full: string }>): Promise<boolean>;
}

/** The board's calls, sent through `f` to the GitHub at `hosts`. */
export function userGitHub(f: Fetch, hosts: Hosts): UserGitHub {
  return {
    exchangeCode: (oauth, code, redirectUri) => exchangeCode(f, hosts, oauth, code, redirectUri),
    userAccess: (token) => userAccess(f, hosts.api, token),
    revokeToken: (oauth, token) => revokeToken(f, hosts.api, oauth, token),
    privateReposOfUser: (token, check) => privateReposOfUser(f, hosts.api, token, 0, check),
    privateReposOfInstallation: (token, check) => privateReposOfInstallation(f, hosts.api, token, check),
    readsIssues: (token, repos) => readsIssues(f, hosts.api, token, repos),
  };
}
