/**
 * What the app reads as one of its installations outside the outbox's port
 * (octokit-port.ts): the config files (the contents API), a repository, a
 * pull request's files, a caller's membership of an organisation or a
 * repository, and the open issues with an assignee. Each is one request (or
 * one paginated list) through the installation's Octokit, as the webhook's
 * context gives it, with Octokit's retries and throttling; a 404 is an
 * answer (null or false), other errors are thrown as Octokit raised them.
 * Each caller is typed with the few calls it uses (config/files.ts,
 * config/fork-extends.ts, config/config-changes.ts, api/access.ts, cli/adopt.ts).
 */
import type { ProbotOctokit } from "probot";
import { httpStatus, type Repo } from "./github-port.js";

type Octokit = InstanceType<typeof ProbotOctokit>;

/** A file of a repository, by path. */
export interface RepoFile {
  owner: string;
  repo: string;
  path: string;
}

/** A file's raw contents as GitHub answered them, and its content type (a directory's listing is JSON). */
export interface FileContents {
  data: unknown;
  contentType: string | undefined;
}

/** What the app's callers read of a repository (`GET /repos/{owner}/{repo}`). */
export interface RepositoryJson {
  id: number;
  name: string;
  full_name: string;
  owner: { login: string };
  private: boolean;
  /** "public", "private" or "internal" (private to an enterprise). */
  visibility?: string;
}

/** An open issue (or pull request) with an assignee, as GitHub lists it. */
export interface AssignedIssueJson {
  number: number;
  title: string;
  labels: Array<string | { name?: string | null | undefined }>;
  assignees?: Array<{ id: number; login: string; type: string }> | null;
  pull_request?: unknown;
}

export interface InstallationGitHub {
  /** `GET /repos/{owner}/{repo}/contents/{path}` in the raw format, at `commit` or the default branch; null when there is no such file (404). */
  configFile(ref: RepoFile, commit?: string): Promise<FileContents | null>;
  /** `GET /repos/{owner}/{repo}`; null when there is none the installation may see (404). */
  repository(r: Repo): Promise<RepositoryJson | null>;
  /** One page (from 1, 100 a page) of a pull request's files: each file's name and status. */
  pullFiles(r: Repo, pull: number, page: number): Promise<Array<{ filename: string; status: string }>>;
  /** Whether `login` is a member of organisation `org` (204; 404: not). */
  isOrgMember(org: string, login: string, signal?: AbortSignal): Promise<boolean>;
  /** Whether `login` is a collaborator of the repository (204; 404: not). */
  isCollaborator(r: Repo, login: string, signal?: AbortSignal): Promise<boolean>;
  /** The repository's open issues with an assignee, pull requests included (GitHub lists them as issues), every page. */
  assignedOpenIssues(r: Repo): Promise<AssignedIssueJson[]>;
}

/** 204 -> true, 404 -> false; anything else is thrown. */
async function yesNo(call: () => Promise<unknown>): Promise<boolean> {
  try {
    await call();
    return true;
  } catch (error) {
    if (httpStatus(error) === 404) return false;
    throw error;
  }
}

/** The calls of `octokit`, authenticated as an installation (`app.auth(id)`, or a webhook's `context.octokit`). */
export function installationGitHub(octokit: Octokit): InstallationGitHub {
  return {
    async configFile(ref, commit) {
      try {
        const response = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
          ...ref,
          ...(commit !== undefined ? { ref: commit } : {}),
          mediaType: { format: "raw" },
        });
        return { data: response.data, contentType: response.headers["content-type"] };
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    },
    async repository(r) {
      try {
        const { data } = await octokit.request("GET /repos/{owner}/{repo}", { owner: r.owner, repo: r.repo });
        return data as RepositoryJson;
      } catch (error) {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      }
    },
    async pullFiles(r, pull, page) {
      const { data } = await octokit.request("GET /repos/{owner}/{repo}/pulls/{pull_number}/files", { owner: r.owner, repo: r.repo, pull_number: pull, per_page: 100, page });
      return data;
    },
    isOrgMember: (org, login, signal) =>
      yesNo(() => octokit.request("GET /orgs/{org}/members/{username}", { org, username: login, ...(signal ? { request: { signal } } : {}) })),
    isCollaborator: (r, login, signal) =>
      yesNo(() =>
        octokit.request("GET /repos/{owner}/{repo}/collaborators/{username}", { owner: r.owner, repo: r.repo, username: login, ...(signal ? { request: { signal } } : {}) }),
      ),
    assignedOpenIssues: (r) => octokit.paginate("GET /repos/{owner}/{repo}/issues", { owner: r.owner, repo: r.repo, state: "open", assignee: "*", per_page: 100 }),
  };
}
