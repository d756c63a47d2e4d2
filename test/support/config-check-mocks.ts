/**
 * nock mocks for the config check: a file as it is at a commit (the contents
 * API with `ref`), a pull request's files (REST, 100 a page), and the check
 * runs the app posts, told apart by name (`issue-leases config` and the
 * lease check's `issue-leases`).
 */
import nock from "nock";
import { API } from "./app-harness.js";
import type { CheckBody } from "./check-mocks.js";
import { REPO } from "./payloads.js";

export const CONFIG_PATH = ".github/issue-leases.yml";

export interface ConfigCheckBody extends CheckBody {
  output: CheckBody["output"] & { annotations?: Array<Record<string, unknown>> };
}

/** Expects one read of `path` of `owner/repo` at commit `sha`: its text, or 404 for none. */
export function expectFileAt(sha: string, text: string | null, opts: { owner?: string; repo?: string; path?: string } = {}): void {
  const path = encodeURIComponent(opts.path ?? CONFIG_PATH);
  const scope = nock(API).get(`/repos/${opts.owner ?? REPO.owner}/${opts.repo ?? REPO.name}/contents/${path}`).query({ ref: sha });
  if (text === null) scope.reply(404, { message: "Not Found" });
  else scope.reply(200, text, { "content-type": "text/plain" });
}

/** Expects one read of `path` of `owner/repo` on its default branch (no `ref`), as an `_extends` target is read. */
export function expectFile(owner: string, repo: string, path: string, text: string | null): void {
  const scope = nock(API).get(`/repos/${owner}/${repo}/contents/${encodeURIComponent(path)}`);
  if (text === null) scope.reply(404, { message: "Not Found" });
  else scope.reply(200, text, { "content-type": "text/plain" });
}

/** Expects one check run named `name`; the array fills when it is posted. */
export function expectNamedCheck(name: string): ConfigCheckBody[] {
  const seen: ConfigCheckBody[] = [];
  nock(API)
    .post(`/repos/${REPO.owner}/${REPO.name}/check-runs`, (b: ConfigCheckBody) => {
      if (b.name !== name) return false;
      seen.push(b);
      return true;
    })
    .reply(201, { id: 1 });
  return seen;
}

/** Expects the check run `issue-leases config`. */
export const expectConfigCheck = (): ConfigCheckBody[] => expectNamedCheck("issue-leases config");

/** Expects the pages of pull request `pull`'s files, each a list of `[filename, status]`, read in order. */
export function expectPullFiles(pull: number, pages: Array<Array<[string, string]>>): void {
  pages.forEach((files, i) => {
    nock(API)
      .get(`/repos/${REPO.owner}/${REPO.name}/pulls/${pull}/files`)
      .query({ per_page: "100", page: String(i + 1) })
      .reply(
        200,
        files.map(([filename, status]) => ({ sha: "0".repeat(40), filename, status, additions: 1, deletions: 0, changes: 1 })),
      );
  });
}

/** The lines of a summary's fenced block that look like `FILE:LINE:COLUMN: message`. */
export function problemLines(summary: string): string[] {
  return summary.split("\n").filter((l) => /^[^\s:]+(?::[^\s:]+)?:\d+:\d+: /.test(l));
}

/** Expects the one page of pull request `pull`'s files, without the config: the config check reads nothing more. */
export function expectPullFilesWithoutConfig(pull: number): void {
  expectPullFiles(pull, [[["src/index.ts", "modified"]]]);
}
