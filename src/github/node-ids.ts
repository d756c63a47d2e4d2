/**
 * GitHub's node ids the process has seen, for GraphQL's mutations
 * (GITHUB_WRITES=graphql): every webhook names its repository, its issue and
 * the people involved with their `node_id`, so an effect of a command typed
 * in a comment needs no query for them. (Labels' ids are learned from
 * GitHub's answers and kept with the repository's reflection: an issue's
 * labels in an older webhook may name a label deleted since.) An id GitHub
 * no longer finds is distrusted (`distrust`) and asked for again. Kept in
 * memory, a bounded number of each; a replica that saw none of it asks
 * GitHub once (write-batch.ts), and what an effect learns is kept in the
 * ledger with the issue's and the repository's reflections.
 */
import { BoundedMap } from "./bounded-map.js";


interface Account {
  login?: unknown;
  node_id?: unknown;
  type?: unknown;
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

export class NodeIds {
  private readonly users = new BoundedMap<string | null>(20_000);
  private readonly issues = new BoundedMap<string>(50_000);
  private readonly repos = new BoundedMap<string>(10_000);
  private readonly bad = new BoundedMap<boolean>(10_000);

  /** A user's id; null: no user GitHub can assign (a bot); undefined: not known. */
  user(login: string): string | null | undefined {
    const id = this.users.get(login.toLowerCase());
    return id && this.bad.get(id) ? undefined : id;
  }
  setUser(login: string, id: string | null): void {
    this.users.set(login.toLowerCase(), id);
  }
  issue(repoId: number, issue: number): string | null {
    return this.trusted(this.issues.get(`${repoId}#${issue}`));
  }
  repo(repoId: number): string | null {
    return this.trusted(this.repos.get(String(repoId)));
  }

  /** Keeps the ids a webhook's payload shows: its repository, its issue (or pull request) and their labels, its people. */
  learn(payload: unknown): void {
    if (typeof payload !== "object" || payload === null) return;
    const p = payload as Record<string, unknown>;
    const repository = p.repository as { id?: unknown; node_id?: unknown } | undefined;
    const repoId = typeof repository?.id === "number" ? repository.id : null;
    if (repoId !== null && str(repository?.node_id)) this.setRepo(repoId, str(repository?.node_id)!);
    this.account(p.sender);
    this.account((p.comment as { user?: unknown } | undefined)?.user);
    this.account(p.assignee);
    for (const key of ["issue", "pull_request"]) {
      const item = p[key] as { number?: unknown; node_id?: unknown; user?: unknown; assignees?: unknown; labels?: unknown } | undefined;
      if (!item || typeof item !== "object") continue;
      this.account(item.user);
      if (Array.isArray(item.assignees)) for (const a of item.assignees) this.account(a);
      if (repoId === null) continue;
      if (typeof item.number === "number" && str(item.node_id)) this.setIssue(repoId, item.number, str(item.node_id)!);
    }
  }

  setIssue(repoId: number, issue: number, id: string): void {
    if (!this.bad.get(id)) this.issues.set(`${repoId}#${issue}`, id);
  }
  setRepo(repoId: number, id: string): void {
    if (!this.bad.get(id)) this.repos.set(String(repoId), id);
  }

  /** An id GitHub answered NOT_FOUND for: not used again, wherever the app kept it. */
  distrust(id: string): void {
    this.bad.set(id, true);
  }
  trusted(id: string | null | undefined): string | null {
    return id && !this.bad.get(id) ? id : null;
  }

  private account(a: unknown): void {
    const { login, node_id: id, type } = (a ?? {}) as Account;
    if (!str(login)) return;
    // GitHub assigns no bot, and GraphQL's `user(login:)` does not find one.
    if (type === "Bot") this.setUser(String(login), null);
    else if (str(id) && !this.bad.get(str(id)!)) this.setUser(String(login), str(id));
  }
}
