/**
 * GitHub as the app sees it, for the one operator command that asks it
 * (`adopt`): authenticated as the GitHub App from the environment the app
 * itself reads (APP_ID, PRIVATE_KEY or PRIVATE_KEY_PATH, and GHE_HOST and
 * GHE_PROTOCOL for GitHub Enterprise Server, or GITHUB_API_URL), through Probot's own
 * `createProbot`, then as the installation serving the repository.
 */
import { createProbot, type ProbotOctokit } from "probot";
import { pino } from "pino";
import { appGitHub } from "../github/app-port.js";
import { installationGitHub } from "../github/installation-port.js";
import { githubApiUrl } from "../settings/github-settings.js";
import type { RepoInfo } from "../ledger/repos/repo-memory.js";
import { CliError, EXIT } from "./cli-error.js";
import { oneLine } from "./open-database.js";

export type Octokit = InstanceType<typeof ProbotOctokit>;

export interface AppRepo {
  /** The installation's client: what the app itself reads the repository with. */
  octokit: Octokit;
  info: RepoInfo;
  owner: string;
  name: string;
}

const CREDENTIALS = "set APP_ID and PRIVATE_KEY (or PRIVATE_KEY_PATH) as for the app, in the environment or ./.env";

/** The repository `owner/name` and its installation's client; CliError when the app cannot be authenticated or is not installed there. */
export async function appForRepo(env: NodeJS.ProcessEnv, typed: string): Promise<AppRepo> {
  if (!env.APP_ID || !/^\d+$/.test(env.APP_ID.trim())) throw new CliError(`this command asks GitHub as the app: ${CREDENTIALS}`, EXIT.failure);
  if (!env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH) throw new CliError(`the app's private key is missing: ${CREDENTIALS}`, EXIT.failure);
  // Probot logs to stdout; the CLI's stdout is its answer (`--json`): warnings go to stderr.
  const log = pino({ level: "warn" }, pino.destination(2));
  let baseUrl: string;
  try {
    baseUrl = githubApiUrl(env);
  } catch (error) {
    throw new CliError((error as Error).message, EXIT.failure);
  }
  const probot = createProbot({ env, overrides: { log, baseUrl } });
  const [owner, name] = typed.split("/") as [string, string];
  const notInstalled = () => new CliError(`the app is not installed on ${typed}, or there is no such repository`, EXIT.notFound);
  try {
    const installation = await appGitHub(await probot.auth()).installationOf({ owner, repo: name });
    if (installation === null) throw notInstalled();
    const octokit = await probot.auth(installation);
    const repo = await installationGitHub(octokit).repository({ owner, repo: name });
    if (repo === null) throw notInstalled();
    return {
      octokit,
      info: { repoId: Number(repo.id), repo: repo.full_name, installation },
      owner: repo.owner.login,
      name: repo.name,
    };
  } catch (err) {
    if (err instanceof CliError) throw err;
    const status = (err as { status?: number }).status;
    if (status === 404) throw notInstalled();
    if (status === 401) throw new CliError(`GitHub refused the app's credentials (401): ${CREDENTIALS}`, EXIT.failure);
    throw new CliError(`GitHub could not be asked about ${typed}: ${oneLine((err as Error).message ?? String(err))}`, EXIT.failure);
  }
}
