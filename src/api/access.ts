/**
 * May this caller act on this repository through the API? Only when it sees
 * the repository with its own token AND the app is installed on it; every
 * other case is one and the same 404, so that the API never tells whether a
 * private repository exists. Then what the rules need of GitHub: the
 * issue's state and labels (read with the caller's token too), and the
 * caller's association with the repository (what a comment's
 * `author_association` says, asked with the app's).
 *
 * A private repository counts as seen only when the token may also read its
 * issues: metadata access (which any app installed on the organisation has)
 * shows a repository, not who holds its issues.
 *
 * Briefly cached (a client's heartbeats then cost no GitHub call): which
 * repositories a token sees, by the token's hash (never the token), and where
 * the app is installed, for a minute each; associations for 5 minutes.
 */
import type { AppGitHub } from "../github/app-port.js";
import type { RepoSightGitHub } from "../github/caller-port.js";
import type { InstallationGitHub } from "../github/installation-port.js";
import { GitHubUnavailable, type Identity, tokenHash } from "./identity.js";
import { TtlCache } from "./ttl-cache.js";

/** What the API asks as the app's installation: the caller's association with a repository. */
export type MembershipGitHub = Pick<InstallationGitHub, "isOrgMember" | "isCollaborator">;

/** A repository as the caller's token sees it, named as GitHub names it. */
export interface SeenRepo {
  id: number;
  owner: string;
  name: string;
  /** "Organization" or "User": only an organisation has members. */
  ownerType: string;
  /** Whether GitHub showed it private (`GET /repos/{owner}/{repo}`); absent when it did not say. */
  private?: boolean;
  /** GitHub's `open_issues_count` (open issues and pull requests) when it was read: how long a first fill may take. */
  openIssues?: number;
}

/** A repository the caller may act on through the API. */
export interface ApiRepo extends SeenRepo {
  installation: number;
}

export interface IssueState {
  state: "open" | "closed";
  labels: string[];
  /** Its title, as GitHub (or the inventory) showed it: for the claim's answer. */
  title?: string;
  /** When and by whom it was opened (`author_first`), when GitHub says. */
  createdAt?: number;
  authorId?: number;
}

export interface RepoAccessOptions {
  /** GitHub, asked with the caller's own token (github/caller-port.ts): what it sees. */
  caller: RepoSightGitHub;
  /** The app authenticated as itself (its JWT), to ask where it is installed. */
  app: () => Promise<Pick<AppGitHub, "installationOf">>;
  /** The app authenticated as an installation. */
  installation: (installation: number) => Promise<MembershipGitHub>;
  clock?: () => number;
  /** How long which repositories a token sees, and where the app is installed, are remembered; default 60 s. */
  accessTtlMs?: number;
  /** How long a caller's association with a repository is remembered; default 5 minutes. */
  associationTtlMs?: number;
  /** How long GitHub may take to answer the app's questions (where it is installed, a caller's association); default 10 s. */
  timeoutMs?: number;
}

const MAX_ENTRIES = 10_000;

/** GitHub's answer; any error is GitHub not answering `what`. */
async function answer<T>(call: () => Promise<T>, what: string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new GitHubUnavailable(what, error);
  }
}

export class RepoAccess {
  private readonly o: Required<RepoAccessOptions>;
  private readonly seen: TtlCache<SeenRepo | null>;
  private readonly installations: TtlCache<number | null>;
  private readonly associations: TtlCache<string>;
  private readonly loading = { seen: new Map(), installations: new Map(), associations: new Map() };

  constructor(opts: RepoAccessOptions) {
    this.o = { clock: Date.now, accessTtlMs: 60_000, associationTtlMs: 5 * 60_000, timeoutMs: 10_000, ...opts };
    this.seen = new TtlCache(this.o.accessTtlMs, MAX_ENTRIES, this.o.clock);
    this.installations = new TtlCache(this.o.accessTtlMs, MAX_ENTRIES, this.o.clock);
    this.associations = new TtlCache(this.o.associationTtlMs, MAX_ENTRIES, this.o.clock);
  }

  /** The repository when the caller sees it and the app is installed on it; null otherwise (answered 404, whichever it was). */
  async repo(token: string, owner: string, name: string): Promise<ApiRepo | null> {
    const full = `${owner}/${name}`.toLowerCase();
    const seen = await this.seen.through(`${tokenHash(token)} ${full}`, () => this.see(token, owner, name), this.loading.seen);
    if (!seen) return null;
    const installation = await this.installations.through(String(seen.id), () => this.installationOf(seen), this.loading.installations);
    return installation === null ? null : { ...seen, installation };
  }

  /**
   * The issue's state and labels, read with the caller's own token (as it
   * must see the repository, it must be able to read the issue); null when
   * there is no such issue (or pull request), or the token may not read it.
   */
  async issue(token: string, repo: ApiRepo, number: number): Promise<IssueState | null> {
    // A transferred issue answers 301 to where it is now: not this repository's any more.
    const res = await this.o.caller.issue(token, repo.owner, repo.name, number);
    if (!res) return null;
    const body = res as {
      state?: string;
      labels?: Array<string | { name?: string }>;
      created_at?: string;
      user?: { id?: number } | null;
      title?: string;
    };
    const labels = (body.labels ?? []).map((l) => (typeof l === "string" ? l : (l.name ?? "")));
    const createdAt = Date.parse(body.created_at ?? "");
    return {
      state: body.state === "closed" ? "closed" : "open",
      labels,
      ...(typeof body.title === "string" ? { title: body.title } : {}),
      ...(Number.isFinite(createdAt) ? { createdAt } : {}),
      ...(typeof body.user?.id === "number" ? { authorId: body.user.id } : {}),
    };
  }

  /**
   * What GitHub's `author_association` would say of the caller in this
   * repository: OWNER, MEMBER (of the organisation that owns it),
   * COLLABORATOR, or NONE. Asked with the app's installation token.
   */
  async association(repo: ApiRepo, who: Identity): Promise<string> {
    return this.associations.through(`${repo.id} ${who.id}`, () => this.associationOf(repo, who), this.loading.associations);
  }

  private async associationOf(repo: ApiRepo, who: Identity): Promise<string> {
    if (who.login.toLowerCase() === repo.owner.toLowerCase()) return "OWNER";
    const github = await this.o.installation(repo.installation);
    const signal = AbortSignal.timeout(this.o.timeoutMs);
    if (repo.ownerType === "Organization") {
      const member = await answer(() => github.isOrgMember(repo.owner, who.login, signal), "whether the caller is a member");
      if (member) return "MEMBER";
    }
    const collaborator = await answer(
      () => github.isCollaborator({ owner: repo.owner, repo: repo.name }, who.login, signal),
      "whether the caller is a collaborator",
    );
    return collaborator ? "COLLABORATOR" : "NONE";
  }

  /** `GET /repos/{owner}/{repo}` with the caller's own token: what it sees, it may act on. */
  private async see(token: string, owner: string, name: string): Promise<SeenRepo | null> {
    const body = await this.o.caller.repository(token, owner, name);
    if (body === null) return null;
    // Seeing a private repository is not reading its issues: another app's installation token with metadata access sees it.
    // Only a token that may read the issues learns who holds them.
    if (body.private === true) {
      if (!(await this.o.caller.readsIssues(token, body.owner.login, body.name))) return null;
    }
    const flag = typeof body.private === "boolean" ? { private: body.private } : {};
    const open = typeof body.open_issues_count === "number" ? { openIssues: body.open_issues_count } : {};
    return { id: body.id, owner: body.owner.login, name: body.name, ownerType: body.owner.type ?? "User", ...flag, ...open };
  }

  private async installationOf(repo: SeenRepo): Promise<number | null> {
    const app = await this.o.app();
    return answer(() => app.installationOf({ owner: repo.owner, repo: repo.name }, AbortSignal.timeout(this.o.timeoutMs)), "whether the app is installed");
  }
}
