/**
 * Applies a `reflect` effect: makes an issue show the ledger's truth (labels
 * and assignee: reconcile.ts), then posts the reply, if any.
 *
 * - Labels are reconciled against what the app last applied (its
 *   "reflection"), not against GitHub: no read per effect, and applying an
 *   effect twice changes nothing.
 * - The app touches only what it made. It takes off an issue only labels it
 *   put there (a label the issue already had is not the app's), and deletes
 *   from the repository only holder and token labels it brought into the
 *   repository: the first time the app uses a label name in a repository it
 *   asks GitHub whether the label exists (a read), and one that existed
 *   before is never deleted.
 * - A repository's label changes take turns (across replicas too, under a
 *   lock in the ledger), and labels are decided and added inside the turn,
 *   from the ledger as it is then: a lease that ended while an add waited
 *   gets no label back that a delete meanwhile took from the repository.
 */
import type { Effect } from "../ledger/outbox/outbox-types.js";
import type { IssueKey, Lease } from "../ledger/leases/lease-types.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { GitHubPort, Repo } from "../github/github-port.js";
import { RepoTurns, type RepoTurnsOptions } from "./repo-turns.js";
import { labelKind, type LabelTemplates } from "../github/labels.js";
import { renderReply } from "../github/render.js";
import type { Reply } from "../commands/reply.js";
import { replyOf } from "../github/reply-fill.js";
import type { ReflectPayload } from "./effects.js";
import { WriteBatch } from "./write-batch.js";
import { RepoLabels, same } from "./repo-labels.js";
import { NodeIds } from "../github/node-ids.js";
import { DEFAULT_LABEL_LINGER_MS, type GithubWrites } from "../github/budget-settings.js";
import { takeContentAhead } from "../github/effect-port.js";
import { type Change, type Reflection, settled } from "./reflection.js";
import { reconcile, type ReflectContext, type Turn } from "./reconcile.js";

const issueKey = (effect: Effect, p: ReflectPayload): IssueKey => ({ repoId: effect.repoId, repo: `${p.owner}/${p.repo}`, issue: effect.issue });

export interface ReflectorOptions extends RepoTurnsOptions {
  ledger: RepoTurnsOptions["ledger"] & LeaseReads;
  onLeaseChanged?: (installation: number, key: IssueKey, lease: Lease | null) => Promise<void>;
  /** `graphql`: one document per effect (write-batch.ts); `rest` (or a port without GraphQL): one REST request per write. */
  writes?: GithubWrites;
  /** Node ids webhooks showed (app.ts keeps them); default none. */
  nodeIds?: NodeIds;
  /**
   * On the GraphQL path, how long a holder or token label no live lease calls
   * for stays in the repository before it is deleted (LABEL_LINGER_S); default
   * a day. The REST path deletes it at once: REST adds a label by its name,
   * and GitHub creates one the repository lacks in the same request.
   */
  labelLingerMs?: number;
}

const DEFAULT_TEMPLATES: LabelTemplates = { claimed: "claimed", holder: "claimed-by: {holder}", token: "lease #{token}" };


/** The text a reply carries so that the outbox can find it again: random, written with the effect. */
export function replyRef(effect: Effect): string {
  return effect.nonce ?? `${effect.id}.${effect.createdAt}`;
}

export class Reflector {
  private readonly turns: RepoTurns;
  private readonly nodeIds: NodeIds;
  private readonly labels: RepoLabels;

  constructor(private readonly o: ReflectorOptions) {
    this.turns = new RepoTurns(o);
    this.nodeIds = o.nodeIds ?? new NodeIds();
    this.labels = new RepoLabels(o);
  }

  /**
   * `fold`: the installation is over its hour's budget (budget.ts): an
   * expiry notice of a tenure that a newer one has followed is not posted
   * (the newer claim's reply shows the issue changed hands), so that one
   * issue gets one notice however many of its terms ended while notices waited.
   *
   * With GITHUB_WRITES=graphql (a port that speaks GraphQL), the effect is
   * decided in one turn of its repository and its writes go to GitHub as one
   * document, in that turn (write-batch.ts); the reflections are saved once
   * GitHub's answer is read.
   *
   * `followers` (GraphQL only): the effects that waited behind this one on
   * its issue, taken with it (the drainer's coalescing): each is decided in
   * turn, from the reflection the one before left, and all their writes go
   * in the same document, every reply its own `addComment` with its own
   * marker, in order. Labels and the assignee end as the ledger says now.
   */
  async apply(
    effect: Effect,
    p: ReflectPayload,
    github: GitHubPort,
    signal: AbortSignal,
    opts: { fold?: boolean; followers?: Effect[] } = {},
  ): Promise<void> {
    const { ledger, clock } = this.o;
    const prior = (await ledger.getReflection(effect.repoId, effect.issue)) as Reflection | null;
    const save = (reflection: Reflection) => ledger.putReflection(effect.repoId, effect.issue, reflection, clock());
    let changes: Change[] = [];
    if (this.o.writes !== "graphql" || !github.mutate) {
      const changed = await this.applyWith(effect, p, prior, github, signal, opts, { turn: (...a) => this.turns.run(...a), save, lingerMs: 0 });
      if (changed) changes.push({ effect, p, current: changed.current });
    } else {
      const group = [{ effect, p }, ...(opts.followers ?? []).map((e) => ({ effect: e, p: e.payload as ReflectPayload }))];
      // The document's slot of GitHub's budget first: waiting for it in the turn would hold up the repository's
      // other effects, a reply to a command behind an expiry notice that waits for the hour's budget.
      const ahead = await takeContentAhead(github);
      try {
        changes = await this.turnWithDocument(group, prior, github, signal, opts, save);
      } finally {
        ahead.cancel();
      }
    }
    if (!this.o.onLeaseChanged) return;
    for (const c of changes) await this.o.onLeaseChanged(c.effect.installation, issueKey(c.effect, c.p), c.current);
  }

  /**
   * The GraphQL path: the group (an effect and those of its issue taken with
   * it) decided in one turn of its repository, its writes sent as one
   * document in the turn; the issue's last reflection saved once GitHub answered.
   */
  private async turnWithDocument(
    group: Array<{ effect: Effect; p: ReflectPayload }>,
    prior: Reflection | null,
    github: GitHubPort,
    signal: AbortSignal,
    opts: { fold?: boolean },
    save: (reflection: Reflection) => Promise<void>,
  ): Promise<Change[]> {
    const { effect, p } = group[0]!;
    const templates = p.labels ?? prior?.templates ?? DEFAULT_TEMPLATES;
    const changes: Change[] = [];
    await this.turns.run(effect.repoId, github, signal, async (repo, github) => {
      const { created, deleted, made, foreign, kept, lingering } = repo;
      const before = structuredClone({ created, deleted, made, foreign, kept, lingering });
      if (prior?.assignee && prior.assigneeId && this.nodeIds.user(prior.assignee) === undefined) this.nodeIds.setUser(prior.assignee, prior.assigneeId);
      const batch = new WriteBatch(github, { owner: p.owner, repo: p.repo }, effect.repoId, effect.issue, this.nodeIds, prior?.nodeId ?? null, (name) => labelKind(templates, name));
      const turn: Turn = (_repoId, _github, _signal, f) => f(repo, batch.port);
      let last = prior;
      const keep = async (r: Reflection) => void (last = r);
      const lingerMs = this.o.labelLingerMs ?? DEFAULT_LABEL_LINGER_MS;
      for (const g of group) {
        const changed = await this.applyWith(g.effect, g.p, last, batch.port, signal, opts, { turn, save: keep, lingerMs });
        if (changed) changes.push({ ...g, current: changed.current });
      }
      try {
        await batch.flush(repo);
      } catch (error) {
        batch.restore(repo, before);
        throw error;
      }
      signal.throwIfAborted();
      if (last !== prior && last) await save(settled(last, batch));
    });
    return changes;
  }

  /** The effect decided and its writes made through `github`; what changed, when the pull requests that close the issue are to be checked again. */
  private async applyWith(
    effect: Effect,
    p: ReflectPayload,
    prior: Reflection | null,
    github: GitHubPort,
    signal: AbortSignal,
    opts: { fold?: boolean },
    ctx: ReflectContext,
  ): Promise<{ current: Lease | null } | null> {
    const r: Repo = { owner: p.owner, repo: p.repo };
    const key = issueKey(effect, p);
    if (p.gone) {
      const templates = prior?.templates ?? DEFAULT_TEMPLATES;
      await this.labels.remove(key, r, github, templates, prior?.labels ?? [], { issueGone: true, signal, lingerMs: ctx.lingerMs }, ctx.turn);
      signal.throwIfAborted();
      await ctx.save({ labels: [], assignee: null });
      return null;
    }
    const templates = p.labels ?? prior?.templates ?? DEFAULT_TEMPLATES;
    const assign = p.assign ?? prior?.assign ?? true;
    let refused = prior?.refused ?? null;
    let current: Lease | null = null;
    if (p.reconcile) {
      const state = await reconcile({ ledger: this.o.ledger, clock: this.o.clock, labels: this.labels }, key, r, github, {
        templates,
        assign,
        prior,
        snapshot: p.snapshot ?? [],
        removed: p.removed ?? [],
        ...(p.assignee ? { seen: p.assignee } : {}),
        signal,
      }, ctx);
      current = state.current;
      refused = state.reflection.refused ?? null;
      signal.throwIfAborted();
      await ctx.save(state.reflection);
    }
    const reply = replyOf(p);
    // A reminder of a term renewed since (by `/renew` or the holder's activity) or of a lease held by its work now: not posted.
    if (reply?.op === "remind" && !(await this.stillDue(key, reply))) return null;
    if (opts.fold && reply?.op === "expire" && (await this.followed(key, reply))) return null;
    if (reply) {
      const ref = replyRef(effect);
      const assignRefused =
        reply.outcome === "acquired" && reply.lease !== null && same(refused, reply.lease.holder);
      // A first attempt may have posted before the process died: look among the app's own comments before posting again.
      const posted = effect.attempts > 1 && (await github.hasOwnComment(r, effect.issue, `"ref":"${ref}"`));
      const late = effect.late ? { decidedAt: effect.createdAt } : {};
      if (!posted) await github.createComment(r, effect.issue, renderReply(reply, { assignRefused, ref, ...late }));
    }
    return p.reconcile && p.recheck !== false ? { current } : null;
  }

  /** Whether a newer tenure has begun on the issue since the one `reply` is about. */
  private async followed(key: IssueKey, reply: Reply): Promise<boolean> {
    const latest = await this.o.ledger.latestToken(key);
    return reply.lease !== null && latest !== null && latest > reply.lease.token;
  }

  /** Whether the term a reminder was decided for is still the live lease's (same token, same expiry). */
  private async stillDue(key: IssueKey, reply: Reply): Promise<boolean> {
    const live = await this.o.ledger.current(key, this.o.clock());
    return live !== null && reply.lease !== null && live.token === reply.lease.token && live.expiresAt === reply.lease.expiresAt;
  }
}
