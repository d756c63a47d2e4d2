/**
 * The API's parts put together for the app: its GitHub clients (the
 * caller's token for who it is and what it sees, the app's own for where it
 * is installed and what the rules read), its caches and its rate limits.
 * app.ts adds the handler with one line.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Probot, ProbotOctokit } from "probot";
import type { ConfigCache } from "../config/cache.js";
import { appGitHub } from "../github/app-port.js";
import { callerGitHub } from "../github/caller-port.js";
import { installationGitHub } from "../github/installation-port.js";
import { octokitPort } from "../github/octokit-port.js";
import { githubUrls } from "../github/github-urls.js";
import { loadConfig, sourceOf } from "../config/repo-config.js";
import { type ApiRepo, RepoAccess } from "./access.js";
import { GitHubUnavailable, Identities } from "./identity.js";
import { LookupGate } from "./lookup-gate.js";
import { Moderation } from "./moderation.js";
import { type ApiRateLimits, RateLimiter } from "./rate-limit.js";
import { type ApiDeps, apiHandler } from "./routes.js";

type Octokit = InstanceType<typeof ProbotOctokit>;

export interface ServeApiOptions {
  ledger: ApiDeps["ledger"];
  clock: () => number;
  configs: ConfigCache;
  rateLimit: ApiRateLimits;
  rememberRepo: ApiDeps["rememberRepo"];
  fillInventory: ApiDeps["fillInventory"];
  kick: () => void;
  track: ApiDeps["track"];
  log: ApiDeps["log"];
}

/** The API's handler, its access to GitHub for the event stream (the same caches), and its parts for the other routes that take a caller's token as the API does (the MCP server's). */
export interface ServedApi {
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** A repository as a token sees it, when the app is installed on it (RepoAccess.repo); null otherwise. */
  lookup: (token: string, owner: string, name: string) => Promise<ApiRepo | null>;
  deps(): Promise<ApiDeps>;
}

export function serveApi(app: Probot, o: ServeApiOptions): ServedApi {
  // The app's own client knows GitHub's URL (GHE_HOST, GHE_PROTOCOL): the API asks the same GitHub.
  let appOctokit: Promise<Octokit> | undefined;
  const appClient = () => {
    appOctokit ??= app.auth();
    appOctokit.catch(() => (appOctokit = undefined));
    return appOctokit;
  };
  const installations = new Map<number, Promise<Octokit>>();
  const installationClient = (installation: number) => {
    let client = installations.get(installation);
    if (!client) {
      client = app.auth(installation);
      client.catch(() => installations.delete(installation));
      installations.set(installation, client);
    }
    return client;
  };
  let deps: Promise<ApiDeps> | undefined;
  const build = async (): Promise<ApiDeps> => {
    const urls = githubUrls((await appClient()).request.endpoint.DEFAULTS.baseUrl);
    // The caller's token asks the same GitHub, in its layout.
    const caller = callerGitHub(urls);
    // GitHub failing here is GitHub not answering (502, retry), as for every other read of the API's.
    const permission: ApiDeps["permission"] = async (repo, login) => {
      try {
        return await octokitPort(await installationClient(repo.installation)).permission({ owner: repo.owner, repo: repo.name }, login);
      } catch (error) {
        throw new GitHubUnavailable("the caller's permission", error);
      }
    };
    return {
      ledger: o.ledger,
      clock: o.clock,
      web: urls.web,
      identities: new Identities({ github: caller, clock: o.clock, lookups: new LookupGate({ refused: o.rateLimit.unknownTokens }, o.clock) }),
      access: new RepoAccess({
        caller,
        app: async () => appGitHub(await appClient()),
        installation: async (id) => installationGitHub(await installationClient(id)),
        clock: o.clock,
      }),
      moderation: new Moderation({ github: caller, permission, clock: o.clock }),
      limiter: new RateLimiter<string>(o.rateLimit, o.clock),
      trustProxyHops: o.rateLimit.trustProxyHops,
      config: async (repo) =>
        loadConfig(o.configs, repo.id, async () => sourceOf(await installationClient(repo.installation), repo.owner, repo.name)),
      permission,
      rememberRepo: o.rememberRepo,
      fillInventory: o.fillInventory,
      kick: o.kick,
      track: o.track,
      log: o.log,
    };
  };
  const built = (): Promise<ApiDeps> => {
    deps ??= build();
    deps.catch(() => (deps = undefined));
    return deps;
  };
  let handler: ((req: IncomingMessage, res: ServerResponse) => Promise<boolean>) | undefined;
  return {
    handler: async (req, res) => {
      if (!(req.url ?? "").startsWith("/api/v1/")) return false;
      handler ??= apiHandler(await built());
      return handler(req, res);
    },
    lookup: async (token, owner, name) => (await built()).access.repo(token, owner, name),
    deps: built,
  };
}
