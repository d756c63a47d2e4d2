/**
 * The `config_check` effect: posts the check run `issue-leases config` that
 * the push or pull request's handler decided (leasing/handle-config-check.ts).
 * Posting it twice is harmless: GitHub shows a commit's latest run of a name.
 */
import { type GitHubPort, httpStatus } from "../github/github-port.js";
import type { ConfigCheckPayload } from "./effects.js";

/** What the effect asks of GitHub: the check run posted. */
export type ConfigCheckGitHub = Pick<GitHubPort, "createCheckRun">;

export async function applyConfigCheck(p: ConfigCheckPayload, github: ConfigCheckGitHub): Promise<void> {
  const repo = { owner: p.owner, repo: p.repo };
  try {
    await github.createCheckRun(repo, p.run);
  } catch (error) {
    // Marks GitHub will not take (a line past the file's end?) must not keep the check from being posted: its summary lists every problem.
    if (httpStatus(error) !== 422 || !p.run.annotations?.length) throw error;
    await github.createCheckRun(repo, { ...p.run, annotations: [] });
  }
}
