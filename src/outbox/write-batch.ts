/**
 * One effect's writes gathered and sent as one GraphQL document
 * (GITHUB_WRITES=graphql): the reflector decides as on the REST path,
 * calling the port this batch gives it, which records each write instead of
 * sending it; `flush`, still in the repository's turn, sends them.
 *
 * - Ids GitHub's mutations need come from what the app kept (the issue's in
 *   its reflection, labels' in the repository's, users' in the process), and
 *   what is missing from one query first. A label the repository lacks is
 *   created (`createLabel`) in a document before the effect's own.
 * - `labelExists` asks nothing: a name new to the app is taken for one it
 *   makes, and `createLabel`'s "already taken" (or the query finding it)
 *   moves it to the labels that were there before, never deleted.
 * - The answer is read alias by alias. Taking off a label or an assignee
 *   that is gone already is done; anything else that failed fails the
 *   attempt after the rest is read, so that the outbox's next attempt
 *   decides again from what the app knows (a reply is looked for among the
 *   app's comments before it is posted again, as on the REST path).
 */
import type { GitHubPort, Repo } from "../github/github-port.js";
import { type BatchedWrites, effectPort } from "../github/effect-port.js";
import { GraphqlRefused, type GraphqlFailure, type Mutation, type MutationResult } from "../github/graphql-writes.js";
import { LABEL_STYLE, type LabelKind } from "../github/labels.js";
import type { NodeIds } from "../github/node-ids.js";
import type { RepoReflection } from "./repo-turns.js";
import { isBot, lower, mutationOf, type Recorded, unique, unresolved } from "./recorded-writes.js";

/** What a flush changed of the repository's label memory beyond the ids: kept even when the effect's document failed. */
type Learned = (repo: RepoReflection) => void;

export class WriteBatch {
  /** The port the reflector calls: reads go to GitHub, writes are recorded. */
  readonly port: GitHubPort;
  private readonly recorded: Recorded[] = [];
  /** Names the reflector took for labels the app makes (`labelExists` said no without asking). */
  private readonly probed = new Set<string>();
  /** Names the reflector asked to create with their style (the `claimed` label). */
  private readonly styled = new Map<string, { name: string; color: string; description: string }>();
  private readonly learned: Learned[] = [];
  /** Logins GitHub did not assign (the answer's assignees lack them), or could not (no such user). */
  private readonly notAssigned = new Set<string>();

  constructor(
    private readonly github: GitHubPort,
    private readonly r: Repo,
    private readonly repoId: number,
    private readonly issue: number,
    private readonly known: NodeIds,
    /** The issue's node id, when the app knows it. */
    public issueId: string | null,
    private readonly kindOf: (name: string) => LabelKind | null,
  ) {
    const record = async (w: Recorded) => {
      this.recorded.push(w);
    };
    const writes: BatchedWrites = {
      addLabels: (_r, _issue, names) => record({ op: "addLabels", names }),
      removeIssueLabel: (_r, _issue, name) => record({ op: "removeLabel", name }),
      deleteRepoLabel: (_r, name) => record({ op: "deleteLabel", name }),
      createLabel: async (_r, name, color, description) => {
        this.styled.set(lower(name), { name, color, description });
      },
      // Optimistic: GitHub's answer tells, and the reflection is put right before it is saved (settle).
      addAssignee: async (_r, _issue, login) => {
        await record({ op: "addAssignee", login });
        return !isBot(login) && known.user(login) !== null;
      },
      removeAssignee: (_r, _issue, login) => record({ op: "removeAssignee", login }),
      createComment: (_r, _issue, body) => record({ op: "comment", body }),
      labelExists: async (_r, name) => {
        this.probed.add(lower(name));
        return false;
      },
    };
    // The reads go on to GitHub through the turn's port (its fences and budget); the writes are recorded.
    this.port = effectPort(github, { batch: writes });
  }

  /** The user's node id, when the app knows it. */
  userId(login: string): string | null {
    return this.known.user(login) ?? null;
  }

  /** Whether GitHub assigned `login` (false once its answer, or its users, said otherwise). */
  assigned(login: string): boolean {
    return !this.notAssigned.has(lower(login));
  }

  /**
   * Sends what was recorded: at most one query for ids, one document
   * creating labels, and the effect's document. A label or user id that
   * GitHub no longer finds (a label deleted by hand since the app learned
   * its id) is asked again, and what needed it sent once more in a document
   * of its own: adding a label or an assignee twice changes nothing. Throws
   * what failed, after `repo` holds every id and label GitHub's answers showed.
   */
  async flush(repo: RepoReflection): Promise<void> {
    const { github } = this;
    if (!github.mutate || !github.lookupIds) throw new Error("outbox: GITHUB_WRITES=graphql needs a port that speaks GraphQL");
    // What the app kept or webhooks showed (node-ids.ts), unless GitHub answered NOT_FOUND for it since.
    this.issueId = this.known.trusted(this.issueId) ?? this.known.issue(this.repoId, this.issue);
    const nodeId = this.known.trusted(repo.nodeId) ?? this.known.repo(this.repoId);
    if (nodeId) repo.nodeId = nodeId;
    else delete repo.nodeId;
    let writes = this.recorded;
    for (let round = 0; writes.length > 0; round++) {
      const fresh = await this.resolve(repo, writes, round === 0 ? [...this.styled.values()].map((l) => l.name) : [], round > 0);
      writes = await this.send(repo, writes, fresh, round === 0);
    }
  }

  /**
   * Learns the ids `writes` need: one query for what is unknown, then the
   * labels to create. True: the issue's id is GitHub's answer now.
   */
  private async resolve(repo: RepoReflection, writes: Recorded[], styled: string[], again: boolean): Promise<boolean> {
    const ids = (repo.ids ??= {});
    const names = (op: Recorded["op"]) => unique(writes.flatMap((w) => (w.op !== op ? [] : w.op === "addLabels" ? w.names : "name" in w ? [w.name] : [])));
    const adds = unique([...names("addLabels"), ...styled]);
    const taken = unique([...names("removeLabel"), ...names("deleteLabel")]);
    const logins = unique(writes.flatMap((w) => (w.op === "addAssignee" || w.op === "removeAssignee" ? [w.login] : [])));
    const onIssue = writes.some((w) => w.op !== "deleteLabel");
    const unknownUsers = logins.filter((l) => !isBot(l) && this.known.user(l) === undefined);
    const unknownTaken = taken.filter((n) => !ids[lower(n)]);
    const unknownAdds = adds.filter((n) => !ids[lower(n)]);
    // One query, when something besides labels to create is unknown; the labels to add ride along (one found needs no creating).
    let fresh = false;
    // Asked again (ids GitHub no longer found): labels to add are looked up rather than created, most of them being there.
    if ((onIssue && !this.issueId) || unknownUsers.length > 0 || unknownTaken.length > 0 || (unknownAdds.length > 0 && (!repo.nodeId || again))) {
      const a = await this.github.lookupIds!({
        ...this.r, ...(onIssue && !this.issueId ? { issue: this.issue } : {}), labels: unique([...unknownTaken, ...unknownAdds]), logins: unknownUsers,
      });
      repo.nodeId = a.repositoryId;
      this.known.setRepo(this.repoId, a.repositoryId);
      if (a.issueId) [this.issueId, fresh] = [a.issueId, true];
      for (const [login, id] of a.users) this.known.setUser(login, id);
      for (const [name, id] of a.labels) if (id) this.found(repo, name, id);
    }
    const toCreate = adds.filter((n) => !ids[lower(n)]);
    if (toCreate.length > 0) await this.create(repo, toCreate);
    return fresh;
  }

  /**
   * One document of `writes`, its answer read alias by alias. Returns what
   * is to be sent again (`retry`: an id GitHub no longer finds, asked again
   * first); throws anything else that failed.
   */
  private async send(repo: RepoReflection, writes: Recorded[], fresh: boolean, retry: boolean): Promise<Recorded[]> {
    const ids = (repo.ids ??= {});
    const mutations: Mutation[] = [];
    const sent: Recorded[] = [];
    const issueId = this.issueId;
    for (const w of writes) {
      const m = mutationOf(w, ids, issueId, this.issue, this.known);
      if (m) {
        mutations.push(m);
        sent.push(w);
      } else if (w.op === "addAssignee") {
        this.notAssigned.add(lower(w.login));
      }
    }
    if (mutations.length === 0) return [];
    const results = await this.github.mutate!(mutations);
    const failures: GraphqlFailure[] = [];
    const again: Recorded[] = [];
    results.forEach((result, i) => {
      const w = sent[i]!;
      if (result.ok) {
        if (w.op === "deleteLabel") delete ids[lower(w.name)];
        if (w.op === "addAssignee" && !(result.assignees ?? []).some((l) => lower(l) === lower(w.login))) this.notAssigned.add(lower(w.login));
        return;
      }
      const missing = unresolved(result.error);
      // A label or an assignee already gone from the issue: done. (Not when what GitHub did not find is the issue.)
      const issueMissing = missing !== null && missing === issueId;
      if (missing !== null && !issueMissing && (w.op === "removeLabel" || w.op === "deleteLabel" || w.op === "removeAssignee")) {
        if (w.op === "deleteLabel") delete ids[lower(w.name)];
        return;
      }
      if (missing) this.distrust(repo, missing);
      // GitHub names the first label it does not find: the others of the mutation are asked again too.
      if (missing && !issueMissing && w.op === "addLabels") for (const n of w.names) delete ids[lower(n)];
      // An id the app kept (or a webhook showed) that GitHub does not find: nothing ran for this mutation; asked again.
      if (retry && missing && (!issueMissing || !fresh)) again.push(w);
      else failures.push(result.error);
    });
    // GitHub does not find the issue by the id it just gave: the issue is gone (deleted, or moved where the app is not
    // installed). An id the app kept is asked again by the next attempt.
    if (failures.length > 0) throw new GraphqlRefused(failures, fresh && failures.some((f) => unresolved(f) === issueId));
    return again;
  }

  /**
   * After a failed flush: `repo`'s label lists as they were before the
   * effect (`before`), with what GitHub's answers showed (labels created,
   * labels found there before the app); its ids are kept.
   */
  restore(repo: RepoReflection, before: Pick<RepoReflection, "created" | "deleted" | "made" | "foreign" | "kept" | "lingering">): void {
    Object.assign(repo, structuredClone(before));
    for (const learn of this.learned) learn(repo);
  }

  /**
   * Creates labels in one document; one the repository has already (created
   * meanwhile) is found by a query. A repository id GitHub does not find (a
   * webhook's, from before a transfer) is asked again, and the labels sent once more.
   */
  private async create(repo: RepoReflection, names: string[], again = true): Promise<void> {
    const repositoryId = repo.nodeId!;
    const style = (name: string) => {
      const { color, description } = this.styled.get(lower(name)) ?? LABEL_STYLE[this.kindOf(name) ?? "token"];
      return { color, description };
    };
    let results: MutationResult[];
    try {
      results = await this.github.mutate!(names.map((name) => ({ op: "createLabel" as const, repositoryId, name, ...style(name) })));
    } catch (error) {
      // No answer (a 502, a timeout): GitHub may have made them. Those the app took for its own stay its own, as on the
      // REST path, where a label is the app's from the moment it asks GitHub to add it; the next attempt finds them made.
      const mine = names.filter((n) => this.probed.has(lower(n)));
      this.note(repo, (m) => void (m.made = [...m.made.filter((n) => !mine.some((x) => lower(x) === lower(n))), ...mine]));
      throw error;
    }
    const there: string[] = [];
    const unmade: string[] = [];
    const failures: GraphqlFailure[] = [];
    results.forEach((result, i) => {
      const name = names[i]!;
      if (result.ok && result.labelId) {
        // Made by this flush: the app's, however a later query of the flush finds it (found()).
        this.probed.delete(lower(name));
        this.note(repo, (m) => void (m.ids ??= {}, (m.ids[lower(name)] = result.labelId!)));
      } else if (!result.ok && result.error.type === "UNPROCESSABLE") there.push(name);
      else if (!result.ok && again && unresolved(result.error) === repositoryId) unmade.push(name);
      else failures.push(result.ok ? { message: `createLabel ${name}: no id` } : result.error);
    });
    if (failures.length > 0) throw new GraphqlRefused(failures);
    if (unmade.length > 0) {
      this.distrust(repo, repositoryId);
      const a = await this.github.lookupIds!({ ...this.r, labels: [], logins: [] });
      [repo.nodeId] = [a.repositoryId];
      this.known.setRepo(this.repoId, a.repositoryId);
      await this.create(repo, unmade, false);
    }
    if (there.length === 0) return;
    const a = await this.github.lookupIds!({ ...this.r, labels: there, logins: [] });
    for (const [name, id] of a.labels) {
      if (!id) throw new GraphqlRefused([{ type: "NOT_FOUND", message: `label '${name}' was neither created nor found` }]);
      this.found(repo, name, id);
    }
  }

  /** A label GitHub has, with its id: one the reflector took for the app's to make was there before, and is never deleted. */
  private found(repo: RepoReflection, name: string, id: string): void {
    const before = this.probed.has(lower(name));
    this.note(repo, (m) => {
      (m.ids ??= {})[lower(name)] = id;
      if (!before) return;
      m.made = m.made.filter((n) => lower(n) !== lower(name));
      if (!m.foreign.some((n) => lower(n) === lower(name))) m.foreign.push(name);
    });
  }

  /** An id GitHub answered NOT_FOUND for: forgotten wherever the app kept it, and asked again. */
  private distrust(repo: RepoReflection, id: string): void {
    this.known.distrust(id);
    for (const [name, kept] of Object.entries(repo.ids ?? {})) if (kept === id) delete repo.ids![name];
    if (repo.nodeId === id) delete repo.nodeId;
    if (this.issueId === id) this.issueId = null;
  }

  private note(repo: RepoReflection, learn: Learned): void {
    learn(repo);
    this.learned.push(learn);
  }
}
