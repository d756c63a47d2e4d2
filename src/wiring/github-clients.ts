/**
 * The app's clients of GitHub: a port per installation (one Octokit each, so
 * that the throttling plugin spaces all of an installation's writes
 * together), and the app's slug, asked as the app itself.
 */
import { appGitHub } from "../github/app-port.js";
import type { Probot } from "probot";
import type { GitHubPort } from "../github/github-port.js";
import { octokitPort, type PortOptions } from "../github/octokit-port.js";

export interface GitHubClients {
  port(installation: number): Promise<GitHubPort>;
  /** The app's slug, for the mention form; null while GitHub cannot say. */
  appSlug(): Promise<string | null>;
}

export function githubClients(app: Pick<Probot, "auth">, o: PortOptions): GitHubClients {
  const ports = new Map<number, Promise<GitHubPort>>();
  const port = (installation: number) => {
    let found = ports.get(installation);
    if (!found) {
      found = app.auth(installation).then((octokit) => octokitPort(octokit, o));
      found.catch(() => ports.delete(installation));
      ports.set(installation, found);
    }
    return found;
  };
  return { port, appSlug: appSlug(app) };
}

/**
 * The app's slug (`GET /app`, as the app itself), asked once and only when a
 * repository reads the mention form; null while GitHub cannot say, asked
 * again next time.
 */
function appSlug(app: Pick<Probot, "auth">): () => Promise<string | null> {
  let slug: Promise<string | null> | null = null;
  return () =>
    (slug ??= app
      .auth()
      .then((octokit) => appGitHub(octokit).slug())
      .catch(() => {
        slug = null;
        return null;
      }));
}
