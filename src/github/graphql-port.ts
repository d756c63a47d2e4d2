/**
 * The port's two GraphQL calls (graphql-writes.ts): a document of mutations
 * and the query for ids, sent through the installation's Octokit (its
 * throttling paces them as writes) and never retried by it: a document GitHub
 * may have run is not sent again blindly; the outbox's next attempt decides
 * anew what is left to do.
 */
import type { ProbotOctokit } from "probot";
import { githubUrls } from "./github-urls.js";
import { type GraphqlAnswer, type IdAnswer, type IdQuestion, idDocument, type Mutation, mutationDocument, type MutationResult, readIds, readMutations } from "./graphql-writes.js";

/** GitHub's words for a secondary limit, which Octokit's throttling reads off a 403 and does not retry. */
const SECONDARY = "You have exceeded a secondary rate limit";

/**
 * A GraphQL rate limit (200, a `RATE_LIMITED` error) told as a 403 secondary
 * limit: Octokit's throttling plugin would otherwise retry the document at
 * once (Probot retries a primary limit twice), where the outbox pauses the
 * installation for at least a minute (after-failure.ts).
 */
async function rateLimitAs403(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const answer = (await response.clone().json().catch(() => null)) as GraphqlAnswer | null;
  const limited = answer?.errors?.find((e) => e?.type === "RATE_LIMITED");
  if (!limited) return response;
  const headers = new Headers(response.headers);
  headers.set("content-type", "application/json");
  const message = `${SECONDARY} (GraphQL RATE_LIMITED: ${String(limited.message ?? "")})`;
  return new Response(JSON.stringify({ message }), { status: 403, statusText: "Forbidden", headers });
}

export interface GraphqlPort {
  /** Sends one document of mutations; what GitHub answered for each, in order. */
  mutate(mutations: readonly Mutation[]): Promise<MutationResult[]>;
  /** Asks GitHub the ids of a repository, an issue, labels and users, in one query. */
  lookupIds(q: IdQuestion): Promise<IdAnswer>;
}

export function graphqlPort(octokit: ProbotOctokit, fetch: typeof globalThis.fetch): GraphqlPort {
  const limitedFetch: typeof globalThis.fetch = (input, init) => fetch(input, init).then(rateLimitAs403);
  // Absolute: on Enterprise Server, `POST /graphql` would resolve under the REST base, to /api/v3/graphql.
  const endpoint = githubUrls(octokit.request.endpoint.DEFAULTS.baseUrl).graphql;
  const post = async (doc: { query: string; variables: Record<string, unknown> }): Promise<GraphqlAnswer> => {
    const { data } = await octokit.request(`POST ${endpoint}`, { ...doc, request: { fetch: limitedFetch, retries: 0 } });
    return data as GraphqlAnswer;
  };
  return {
    async mutate(mutations) {
      return readMutations(mutations, await post(mutationDocument(mutations)));
    },
    async lookupIds(q) {
      return readIds(q, await post(idDocument(q)));
    },
  };
}
