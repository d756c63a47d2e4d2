/**
 * `doctor`'s look at GitHub's address: where the environment says GitHub is
 * (settings/github-settings.ts), and, for an address other than github.com's,
 * whether GitHub answers there. GraphQL's endpoint answers a document
 * without a token 401 where it is, and 404 where it is not: a wrong layout
 * (GraphQL under `/api/v3` on Enterprise Server) parks every effect.
 */
import { githubUrls, GITHUB_COM_API } from "../github/github-urls.js";
import { reachability } from "../github/reachability.js";
import { githubApiUrl } from "../settings/github-settings.js";
import type { Check } from "./doctor-checks.js";

/** GitHub's GraphQL endpoint and REST base as the environment names them, asked when they are not github.com's. */
export async function githubCheck(env: NodeJS.ProcessEnv, fetch: typeof globalThis.fetch = globalThis.fetch): Promise<Check> {
  let rest: string;
  try {
    rest = githubApiUrl(env);
  } catch (error) {
    return { name: "github", status: "fail", message: (error as Error).message };
  }
  const urls = githubUrls(rest);
  const where = `REST ${urls.rest}, GraphQL ${urls.graphql}`;
  if (rest === GITHUB_COM_API) return { name: "github", status: "ok", message: `github.com (${where})` };
  const { graphql, rest: api } = await reachability(urls, fetch);
  const layout = urls.layout === "enterprise-server" ? "GitHub Enterprise Server" : "github.com's layout";
  if (typeof graphql === "string" || typeof api === "string") {
    const why = typeof graphql === "string" ? graphql : (api as string);
    return { name: "github", status: "warn", message: `${layout} at ${where} did not answer (${why}): check the network, GHE_HOST and GITHUB_API_URL` };
  }
  const wrong = [graphql === 404 ? `GraphQL ${urls.graphql} answered 404` : null, api === 404 ? `REST ${urls.rest}/meta answered 404` : null].filter((w) => w !== null);
  if (wrong.length > 0) {
    return {
      name: "github",
      status: "fail",
      message:
        `${wrong.join(", and ")}: this is not where GitHub is. Set GHE_HOST (and GHE_PROTOCOL) for Enterprise Server, ` +
        "whose REST is at https://HOST/api/v3 and GraphQL at https://HOST/api/graphql, or GITHUB_API_URL for github.com's layout on another host",
    };
  }
  return { name: "github", status: "ok", message: `${layout}: ${where} answer` };
}
