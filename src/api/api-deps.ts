/** What the API's handlers are given (serve-api.ts builds it for the app; tests build their own). */
import type { Logger } from "pino";
import type { ConfigResult } from "../config/config.js";
import type { Inventory } from "../ledger/inventory/inventory-roles.js";
import type { LeaseBook, LeaseReads } from "../ledger/leases/lease-roles.js";
import type { RepoInfo } from "../ledger/repos/repo-memory.js";
import type { Permission } from "../github/github-port.js";
import type { ApiRepo, RepoAccess } from "./access.js";
import type { Identities } from "./identity.js";
import type { Moderation } from "./moderation.js";
import type { RateLimiter } from "./rate-limit.js";

export interface ApiDeps {
  /** The leases, and the inventory of open issues that `next` walks. */
  ledger: LeaseBook & LeaseReads & Inventory;
  clock: () => number;
  /** GitHub's web address (https://github.com, or Enterprise Server's): an issue's page is under it. */
  web?: string;
  identities: Identities;
  access: RepoAccess;
  /** What GitHub would not let the caller do by a comment (blocks, locks, interaction limits). */
  moderation: Pick<Moderation, "refusal">;
  /** Requests per caller (identity.ts callerKey: the account, and a bot's installation). */
  limiter: RateLimiter<string>;
  /** Proxies whose X-Forwarded-For names the client (client-address.ts). */
  trustProxyHops: number;
  /** The repository's config, through the app's config cache. */
  config: (repo: ApiRepo) => Promise<ConfigResult>;
  /** A login's permission on the repository, asked of GitHub with the app's token (`author_first`). */
  permission: (repo: ApiRepo, login: string) => Promise<Permission>;
  /**
   * Remembers which installation serves the repository (the sweeper needs it for expiries), and whether GitHub
   * showed it private (for who may see its lease events when no webhook has shown it yet).
   */
  rememberRepo: (repoId: number, full: string, installation: number, isPrivate?: boolean) => Promise<void>;
  /**
   * Starts the first fill of a repository's inventory, unless one is under way (`next` on a repository never filled):
   * how long until it is likely done (ms), or null when fills do not run in this process.
   */
  fillInventory: (repo: RepoInfo, openIssues?: number) => number | null;
  /** Wakes the outbox drainer: effects were written. */
  kick: () => void;
  /** Runs a request's work so that shutdown waits for its transaction. */
  track: <T>(work: () => Promise<T>) => Promise<T>;
  log: Pick<Logger, "info" | "warn" | "error">;
}
