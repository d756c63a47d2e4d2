/**
 * nock mocks for the lease check on pull requests: GitHub's GraphQL answer
 * about what a pull request closes, the check run it posts, and the replies
 * to the commands that change the leases it checks.
 */
import nock from "nock";
import { API } from "./app-harness.js";
import { REPO } from "./payloads.js";

export interface CheckBody {
  name: string;
  head_sha: string;
  status: string;
  conclusion: string;
  output: { title: string; summary: string };
}

/** Expects one reply on `issue` whose marker says `outcome`. */
export function expectComment(issue: number, outcome: string): void {
  nock(API)
    .post(`/repos/${REPO.owner}/${REPO.name}/issues/${issue}/comments`, (b: { body: string }) => b.body.includes(`"outcome":"${outcome}"`))
    .reply(201, { id: 1 });
}

/** Expects one check run; the array fills when it is posted. */
export function expectCheck(): CheckBody[] {
  const seen: CheckBody[] = [];
  nock(API)
    .post(`/repos/${REPO.owner}/${REPO.name}/check-runs`, (b: CheckBody) => {
      seen.push(b);
      return true;
    })
    .reply(201, { id: 1 });
  return seen;
}

export interface ClosingSpec {
  /** Issues GitHub links as closing (body keywords, sidebar), of this repository unless `repoId` says otherwise. */
  linked?: Array<number | { number: number; repoId: number }>;
  /** GitHub's totalCount; default: the number of `linked`. */
  total?: number;
  title?: string;
  /** Commit messages, answered 100 a page as GitHub does. */
  commits?: string[];
}

/** Expects GitHub's GraphQL read of what pull request `pull` closes (one request per page of commits). */
export function expectClosing(pull: number, spec: ClosingSpec = {}): void {
  const linked = (spec.linked ?? []).map((l) => (typeof l === "number" ? { number: l, repoId: REPO.id } : l));
  const commits = spec.commits ?? ["A change"];
  const pages = Math.max(1, Math.ceil(commits.length / 100));
  for (let page = 0; page < pages; page++) {
    const after = page === 0 ? null : `cursor-${page}`;
    nock(API)
      .post("/graphql", (b: { variables?: { number?: number; after?: string | null } }) => b.variables?.number === pull && (b.variables?.after ?? null) === after)
      .reply(200, {
        data: {
          repository: {
            pullRequest: {
              title: spec.title ?? "A change",
              closingIssuesReferences: {
                totalCount: spec.total ?? linked.length,
                nodes: linked.slice(0, 51).map((l) => ({ number: l.number, repository: { databaseId: l.repoId, nameWithOwner: "x/y" } })),
              },
              commits: {
                pageInfo: { hasNextPage: page < pages - 1, endCursor: page < pages - 1 ? `cursor-${page + 1}` : null },
                nodes: commits.slice(page * 100, page * 100 + 100).map((message) => ({ commit: { message } })),
              },
            },
          },
        },
      });
  }
}
