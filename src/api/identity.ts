/**
 * Who calls the API: the GitHub account behind a bearer token, asked of
 * GitHub with the caller's own token through GraphQL's `viewer`, which
 * answers for user tokens, personal access tokens and GitHub App
 * installation tokens alike (REST `GET /user` refuses the last). A bot's
 * account is shared by every installation of its app (`github-actions[bot]`
 * by every workflow on GitHub), so for a bot who it is includes what its
 * token reaches (token-scope.ts), asked in the same look-up.
 *
 * The token is never stored or logged: the cache is keyed by its SHA-256,
 * keeps an identity at most `ttlMs` (5 minutes at the most), and holds a
 * bounded number of entries. A token GitHub refuses is remembered as refused
 * for as long, so that a client retrying a bad token does not cost a GitHub
 * call each time, in a cache of its own: random tokens fill that one, never
 * pushing good identities out. And a token not known either way costs calls
 * to GitHub (one, or a bot's two and more), so its look-up goes through the
 * client address's gate (`lookups`, lookup-gate.ts): look-ups run a bounded
 * number at once, and only those GitHub refuses use up the address's limit,
 * so that a fleet of fresh, valid tokens is asked about at once and a spray
 * of made-up ones is not. GitHub is asked through the caller's port
 * (github/caller-port.ts).
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { ReachGitHub, ViewerGitHub } from "../github/caller-port.js";
import { GitHubUnavailable } from "../github/github-unavailable.js";
import type { LookupGate } from "./lookup-gate.js";
import { type TokenScope, tokenScope } from "./token-scope.js";
import { TtlCache } from "./ttl-cache.js";

export interface Identity {
  /** The account's numeric id: who holds a lease. */
  id: number;
  login: string;
  /** GitHub's account type: "Bot" for GitHub App installation tokens, else "User". */
  type: "User" | "Bot";
  /** A bot's: what its installation token reaches. A user's token has none (the account is one person's). */
  scope?: TokenScope;
}

/**
 * Whether the caller may act on a lease of the repository: a user anywhere
 * it may see; a bot only where its token reaches, since another installation
 * of the same app (another workflow's `GITHUB_TOKEN`) is the same account.
 */
export function reaches(who: Identity, repoId: number): boolean {
  return who.type !== "Bot" || (who.scope?.repos.has(repoId) ?? false);
}

/** What the caller's rate limit and stream slots count under: the account, and for a bot what its token reaches. */
export function callerKey(who: Identity): string {
  return who.type === "Bot" ? `${who.id}:${who.scope?.key ?? "none"}` : String(who.id);
}

export { GitHubUnavailable };

/** At most 5 minutes, as the API promises. */
export const MAX_IDENTITY_TTL_MS = 5 * 60_000;

export interface IdentitiesOptions {
  /** GitHub, asked with the caller's token: who it is (GraphQL `viewer`), and what a bot's token reaches. */
  github: ViewerGitHub & ReachGitHub;
  clock?: () => number;
  /** Default and maximum 5 minutes. */
  ttlMs?: number;
  /** Entries kept; the least recently used go first. Default 10,000. */
  maxEntries?: number;
  /** Look-ups of tokens not known yet, per client address (lookup-gate.ts); default none. */
  lookups?: LookupGate;
}

/** The bearer token of a request: null when there is none, "malformed" for another scheme or an empty one. */
export function bearerToken(req: IncomingMessage): string | null | "malformed" {
  const header = req.headers.authorization;
  if (header === undefined || header === "") return null;
  const m = /^(?:Bearer|token)\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : "malformed";
}

/** The key a token is cached (and rate-limited before it is known) under: its SHA-256, never the token. */
export function tokenHash(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export class Identities {
  private readonly o: Required<Omit<IdentitiesOptions, "lookups">> & Pick<IdentitiesOptions, "lookups">;
  /** Token hash -> identity. */
  private readonly known: TtlCache<Identity>;
  /** Scope key -> scope: the tokens of one installation (a fresh one an hour) share one list of its repositories. */
  private readonly scopes: TtlCache<TokenScope>;
  /** Token hashes GitHub refused. */
  private readonly refused: TtlCache<true>;
  /** Look-ups in flight, so that a burst of one client's first requests asks GitHub once. */
  private readonly asking = new Map<string, Promise<Identity | null>>();

  constructor(opts: IdentitiesOptions) {
    this.o = {
      clock: Date.now,
      maxEntries: 10_000,
      ...opts,
      ttlMs: Math.min(opts.ttlMs ?? MAX_IDENTITY_TTL_MS, MAX_IDENTITY_TTL_MS),
    };
    this.known = new TtlCache(this.o.ttlMs, this.o.maxEntries, this.o.clock);
    this.refused = new TtlCache(this.o.ttlMs, this.o.maxEntries, this.o.clock);
    this.scopes = new TtlCache(this.o.ttlMs, this.o.maxEntries, this.o.clock);
  }

  /**
   * The account behind `token`, or null when GitHub refuses the token (401).
   * Throws GitHubUnavailable when GitHub does not answer, and RateLimited when
   * GitHub refused too many tokens from `address` (lookup-gate.ts).
   */
  async who(token: string, address?: string): Promise<Identity | null> {
    const key = tokenHash(token);
    const hit = this.known.get(key);
    if (hit !== undefined) return hit;
    if (this.refused.get(key)) return null;
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.gated(token, key, address);
      this.asking.set(key, pending);
      void pending.finally(() => this.asking.delete(key)).catch(() => undefined);
    }
    return pending;
  }

  /** The look-up, once the address's gate lets it run; what it learns is cached, and told to the gate. */
  private async gated(token: string, key: string, address: string | undefined): Promise<Identity | null> {
    const done = address === undefined || !this.o.lookups ? null : await this.o.lookups.acquire(address);
    let who: Identity | null = null;
    try {
      const at = this.o.clock();
      who = await this.lookUp(token);
      if (who) this.known.set(key, who, at);
      else this.refused.set(key, true, at);
      return who;
    } finally {
      // GitHub not answering counts as a refusal: a spray must not cost more look-ups while GitHub struggles.
      done?.(who ? "known" : "unknown");
    }
  }

  /** The viewer, and for a bot what its token reaches: one look-up, cached and limited as one. */
  private async lookUp(token: string): Promise<Identity | null> {
    const who = await this.o.github.viewer(token);
    if (!who || who.type !== "Bot") return who;
    const scope = await tokenScope(this.o.github, token);
    if (scope === null) return null;
    const shared = this.scopes.get(scope.key);
    if (shared === undefined) this.scopes.set(scope.key, scope);
    return { ...who, scope: shared ?? scope };
  }
}
