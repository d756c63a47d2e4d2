/**
 * The REST reads the app makes with a caller's own token (caller-port.ts):
 * what the token sees (a repository, its issues, an issue), and which
 * repositories an installation token reaches (`GET /installation/repositories`,
 * which answers only for installation tokens). Not the app's client:
 * Probot's throttling is for the app's own installations.
 */
import { githubGet } from "./github-get.js";
import { GitHubUnavailable } from "./github-unavailable.js";

/** Repositories listed per page of `GET /installation/repositories`. */
export const PER_PAGE = 100;

/** One page of the repositories an installation token reaches: GitHub's total, and each repository's id and owner's id. */
export interface ReachedPage {
  total: number;
  repos: Array<{ id: number; owner: number }>;
}

/**
 * A GET with the caller's token (not the app's client: Probot's throttling
 * is for the app's own installations): its JSON, or null when GitHub says
 * the token may not see it (401, 403, 404, 410), or (`redirect: "manual"`)
 * it moved. The issue, read on every claim, goes through github-get.ts;
 * the rest, cached by their callers, through fetch, which follows a renamed
 * repository. Throws GitHubUnavailable(`what`) when GitHub does not answer.
 */
export async function callerGet(
  restUrl: string,
  token: string,
  path: string,
  what: string,
  timeoutMs: number,
  redirect: "follow" | "manual" = "follow",
): Promise<unknown> {
  const url = `${restUrl}${path}`;
  const headers = restHeaders(token);
  let answer: { status: number; header: (name: string) => string | null; body: () => Promise<unknown> };
  try {
    if (redirect === "manual") {
      const res = await githubGet(url, { headers, timeoutMs });
      const header = (name: string) => {
        const v = res.headers[name];
        return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
      };
      answer = { status: res.status, header, body: async () => res.body };
    } else {
      const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
      answer = { status: res.status, header: (name) => res.headers.get(name), body: () => res.json().catch(() => null) as Promise<unknown> };
    }
  } catch (error) {
    throw new GitHubUnavailable(what, error);
  }
  const { status } = answer;
  const body = await answer.body();
  if (status >= 300 && status < 400) return null;
  // A 403 that is a rate limit says nothing of access: GitHub is not answering for now.
  if (status === 403 && rateLimited(answer.header)) {
    throw new GitHubUnavailable(`${what} (rate limited)`);
  }
  if ([401, 403, 404, 410].includes(status)) return null;
  if (status < 200 || status >= 300) throw new GitHubUnavailable(`${what} (HTTP ${status})`);
  return body;
}

/** The headers of a REST read with the caller's token. */
function restHeaders(token: string): Record<string, string> {
  return { authorization: `bearer ${token}`, accept: "application/vnd.github+json", "user-agent": "issue-leases" };
}

/** Whether a 403's headers say it is GitHub's rate limit (which says nothing of the token's access). */
function rateLimited(header: (name: string) => string | null): boolean {
  return header("x-ratelimit-remaining") === "0" || header("retry-after") !== null;
}

/**
 * Page `page` (from 1) of the repositories an installation token reaches:
 * "refused" when GitHub refuses the token (401), "none" when the token is
 * not an installation's (403, 404). Throws GitHubUnavailable when GitHub
 * does not answer, or answers with its rate limit.
 */
export async function listReachedPage(restUrl: string, token: string, page: number, timeoutMs: number): Promise<ReachedPage | "refused" | "none"> {
  const what = "which repositories the installation token reaches";
  let res: Response;
  try {
    res = await fetch(`${restUrl}/installation/repositories?per_page=${PER_PAGE}&page=${page}`, {
      headers: restHeaders(token),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new GitHubUnavailable(what, error);
  }
  const body = (await res.json().catch(() => null)) as { total_count?: unknown; repositories?: unknown } | null;
  if (res.status === 401) return "refused";
  // A 403 that is a rate limit says nothing of the token: GitHub is not answering for now.
  if (res.status === 403 && rateLimited((name) => res.headers.get(name))) {
    throw new GitHubUnavailable(`${what} (rate limited)`);
  }
  if (res.status === 403 || res.status === 404) return "none";
  if (!res.ok) throw new GitHubUnavailable(`${what} (HTTP ${res.status})`);
  if (typeof body?.total_count !== "number" || !Array.isArray(body.repositories)) {
    throw new GitHubUnavailable(`${what} (an answer without the repositories)`);
  }
  const repos = (body.repositories as Array<{ id?: unknown; owner?: { id?: unknown } | null }>).flatMap((r) =>
    typeof r?.id === "number" && typeof r.owner?.id === "number" ? [{ id: r.id, owner: r.owner.id }] : [],
  );
  return { total: body.total_count, repos };
}
