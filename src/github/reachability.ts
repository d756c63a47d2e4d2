/**
 * Whether GitHub answers at the address the environment names, for
 * `doctor` (cli/doctor-github.ts): a GraphQL document and `GET /meta` sent
 * without a token. GraphQL's endpoint answers 401 where it is and 404 where
 * it is not, so a wrong layout (GraphQL under `/api/v3` on Enterprise
 * Server) shows before it parks every effect.
 */
import type { GitHubUrls } from "./github-urls.js";

const PROBE_TIMEOUT_MS = 10_000;

/** What each endpoint answered: its status, or why nothing came (a system error code, or the error's message). */
export interface Reachability {
  graphql: number | string;
  rest: number | string;
}

/** Asks GitHub's GraphQL endpoint and REST `/meta` at `urls`, at once, through `fetch`. */
export async function reachability(urls: Pick<GitHubUrls, "rest" | "graphql">, fetch: typeof globalThis.fetch = globalThis.fetch): Promise<Reachability> {
  const [graphql, rest] = await Promise.all([
    status(fetch, urls.graphql, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query: "{ __typename }" }) }),
    status(fetch, `${urls.rest}/meta`, { method: "GET" }),
  ]);
  return { graphql, rest };
}

/** The status GitHub answered, or why nothing came. */
async function status(fetch: typeof globalThis.fetch, url: string, init: RequestInit): Promise<number | string> {
  try {
    const res = await fetch(url, { ...init, headers: { "user-agent": "issue-leases-doctor", ...(init.headers as Record<string, string>) }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return cause ?? (error as Error).message;
  }
}
