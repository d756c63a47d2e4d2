/**
 * The app's own calls as itself (its JWT), outside the outbox's port: its
 * slug (how a comment mentions it), and where it is installed. Callers:
 * app.ts (the slug), api/access.ts (may the API act on a repository) and
 * cli/github-app.ts (`adopt`).
 */
import type { ProbotOctokit } from "probot";
import { httpStatus, type Repo } from "./github-port.js";

type Octokit = InstanceType<typeof ProbotOctokit>;

export interface AppGitHub {
  /** `GET /app`: the app's slug, null when GitHub's answer has none. GitHub's errors are thrown. */
  slug(): Promise<string | null>;
  /**
   * `GET /repos/{owner}/{repo}/installation`: the id of the app's
   * installation on the repository, null when it is not installed there or
   * there is no such repository (404). Other errors are thrown as Octokit
   * raised them. `signal` ends the wait.
   */
  installationOf(r: Repo, signal?: AbortSignal): Promise<number | null>;
}

/** The calls of `octokit`, authenticated as the app itself (`app.auth()`). */
export function appGitHub(octokit: Octokit): AppGitHub {
  return {
    async slug() {
      const res = await octokit.request("GET /app");
      return res.data?.slug ?? null;
    },
    async installationOf(r, signal) {
      try {
        const { data } = await octokit.request("GET /repos/{owner}/{repo}/installation", {
          owner: r.owner,
          repo: r.repo,
          ...(signal ? { request: { signal } } : {}),
        });
        return data.id;
      } catch (error) {
        if (httpStatus(error) === 404) return null;
        throw error;
      }
    },
  };
}
