/**
 * What GitHub will close when a pull request is merged, read in one GraphQL
 * query: the issues it links as closing (keywords in the body, when the base
 * is the default branch, and links made in the Development sidebar), and the
 * title and commit messages, whose keywords close issues once they reach the
 * default branch (merge commits carry the title, squash commits the messages).
 */
import type { ProbotOctokit } from "probot";

export interface ClosingIssues {
  /** The first 51 issues GitHub links as closing, in any repository. */
  linked: Array<{ number: number; repoId: number }>;
  /** How many issues GitHub links as closing, in all repositories. */
  linkedTotal: number;
  title: string;
  /** Messages of the first `MAX_COMMITS` commits. */
  commitMessages: string[];
}

/** GitHub's own cap on the commits it lists for a pull request. */
export const MAX_COMMITS = 250;

export const QUERY = `query($owner:String!,$repo:String!,$number:Int!,$after:String){
  repository(owner:$owner,name:$repo){
    pullRequest(number:$number){
      title
      closingIssuesReferences(first:51){ totalCount nodes{ number repository{ databaseId nameWithOwner } } }
      commits(first:100,after:$after){ pageInfo{ hasNextPage endCursor } nodes{ commit{ message } } }
    }
  }
}`;

interface Answer {
  repository: {
    pullRequest: {
      title: string;
      closingIssuesReferences: { totalCount: number; nodes: Array<{ number: number; repository: { databaseId: number } }> };
      commits: { pageInfo: { hasNextPage: boolean; endCursor: string | null }; nodes: Array<{ commit: { message: string } }> };
    } | null;
  } | null;
}

/**
 * GraphQL answers "not found" and "rate limited" with 200 and an error list.
 * The drainer drops an effect on 404 (nothing left to show it on) and pauses
 * the installation on 429 (until `x-ratelimit-reset`), so they are given those.
 */
function asHttpError(error: unknown): unknown {
  const e = error as { errors?: Array<{ type?: string }>; headers?: Record<string, string>; message?: string } | null;
  const types = Array.isArray(e?.errors) ? e.errors.map((x) => x.type) : [];
  const status = types.includes("NOT_FOUND") ? 404 : types.includes("RATE_LIMITED") ? 429 : null;
  if (status === null) return error;
  return Object.assign(new Error(`GitHub GraphQL: ${e?.message ?? types.join(", ")}`), { status, response: { headers: e?.headers ?? {} } });
}

export async function readClosingIssues(
  octokit: ProbotOctokit,
  r: { owner: string; repo: string },
  pull: number,
  timeoutMs: number,
  /** The port's fetch, when it observes requests (metrics). */
  fetch?: typeof globalThis.fetch,
): Promise<ClosingIssues> {
  const out: ClosingIssues = { linked: [], linkedTotal: 0, title: "", commitMessages: [] };
  let after: string | null = null;
  do {
    let answer: Answer;
    try {
      answer = await octokit.graphql<Answer>(QUERY, {
        owner: r.owner,
        repo: r.repo,
        number: pull,
        after,
        request: { signal: AbortSignal.timeout(timeoutMs), ...(fetch ? { fetch } : {}) },
      });
    } catch (error) {
      throw asHttpError(error);
    }
    const pr = answer.repository?.pullRequest;
    if (!pr) throw Object.assign(new Error(`GitHub GraphQL: no pull request ${r.owner}/${r.repo}#${pull}`), { status: 404 });
    if (after === null) {
      out.title = pr.title;
      out.linkedTotal = pr.closingIssuesReferences.totalCount;
      out.linked = pr.closingIssuesReferences.nodes.map((n) => ({ number: n.number, repoId: n.repository.databaseId }));
    }
    out.commitMessages.push(...pr.commits.nodes.map((n) => n.commit.message));
    after = pr.commits.pageInfo.hasNextPage ? pr.commits.pageInfo.endCursor : null;
  } while (after !== null && out.commitMessages.length < MAX_COMMITS);
  out.commitMessages.length = Math.min(out.commitMessages.length, MAX_COMMITS);
  return out;
}
