/**
 * What the app deletes from a repository's labels (reflector.ts): a holder
 * or token label it brought into the repository, once no live lease calls
 * for it; asked of the ledger by the logins and tokens the names carry.
 */
import type { IssueKey } from "../ledger/leases/lease-types.js";
import type { LeaseReads } from "../ledger/leases/lease-roles.js";
import type { GitHubPort, Repo } from "../github/github-port.js";
import { desiredLabels, labelKind, labelSubject, type LabelTemplates } from "../github/labels.js";
import type { RepoReflection, RepoTurns } from "./repo-turns.js";

export const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? "").toLowerCase() === (b ?? "").toLowerCase();
export const among = (names: readonly string[], name: string) => names.some((n) => same(n, name));

/**
 * At most this many lingering labels are deleted by one effect, the oldest
 * first: its document stays small, and the thousands of holder labels an
 * expiry wave leaves go with the repository's effects that follow.
 */
export const DELETE_AT_ONCE = 20;

/** Ends the lingering of `names` (added to an issue again, or deleted). */
export function stopLingering(repo: RepoReflection, names: readonly string[]): void {
  repo.lingering = repo.lingering?.filter((l) => !among(names, l.name));
  if (repo.lingering?.length === 0) delete repo.lingering;
}

/** How a repository's turn is taken (RepoTurns.run, or the turn an effect holds already). */
export type RepoLabelTurn = RepoTurns["run"];

export class RepoLabels {
  constructor(private readonly o: { ledger: LeaseReads; clock: () => number }) {}

  /**
   * Takes `names` (the app's own labels) off the issue. A holder or token
   * label that the app brought into the repository and that no live lease
   * uses any more is deleted from the repository instead (which also takes it
   * off every issue), so repositories do not fill up with stale `claimed-by:`
   * and `lease #` labels. One the app deleted already is gone from this issue
   * too: in an expiry wave every first tenure's `lease #1` would otherwise be
   * deleted again. For an issue that is gone, only the repository's labels
   * are deleted. With `lingerMs` (GITHUB_WRITES=graphql), such a label is
   * only taken off the issue and lingers in the repository that long
   * (`lingering`): a claim that calls for it again adds it by its id, in
   * its one document, where a deleted one must first be created by another.
   */
  async remove(
    key: IssueKey,
    r: Repo,
    github: GitHubPort,
    templates: LabelTemplates,
    names: string[],
    opts: { issueGone: boolean; signal: AbortSignal; lingerMs: number },
    turn: RepoLabelTurn,
  ): Promise<void> {
    await turn(key.repoId, github, opts.signal, async (repo, github) => {
      // Read in the turn: a lease that an add waiting for this turn shows is
      // in the ledger by now, and keeps its labels.
      const inUse = await this.inUse(key, templates, names.filter((name) => among(repo.made, name)), key.issue);
      for (const name of names) {
        if (among(repo.made, name) && !inUse.has(name.toLowerCase())) {
          if (opts.lingerMs > 0) {
            if (!opts.issueGone) await github.removeIssueLabel(r, key.issue, name);
            this.linger(repo, name);
          } else {
            await this.deleteMade(r, repo, github, name);
          }
        } else if (among(repo.deleted, name)) {
          continue;
        } else {
          if (among(repo.made, name) && !among(repo.kept, name)) repo.kept.push(name);
          if (!opts.issueGone) await github.removeIssueLabel(r, key.issue, name);
        }
      }
      await this.deleteUnused(key, r, repo, github, templates, opts.lingerMs);
    });
  }

  /** Whether a turn has labels to look at: lingering past `lingerMs`, or (`kept`) kept for other leases. */
  hasUnused(repo: Partial<RepoReflection> | null, lingerMs: number, kept = true): boolean {
    return (kept && (repo?.kept?.length ?? 0) > 0) || this.lingeredOut(repo, lingerMs).length > 0;
  }

  /** The labels that have lingered `lingerMs`, the oldest first. */
  private lingeredOut(repo: Partial<RepoReflection> | null, lingerMs: number): string[] {
    const now = this.o.clock();
    return (repo?.lingering ?? []).filter((l) => l.since + lingerMs <= now).map((l) => l.name);
  }

  /**
   * In a turn: deletes from the repository the labels kept for other leases
   * (`kept`) that no live lease calls for any more (with `lingerMs`, they
   * linger first), and those that have lingered `lingerMs` (DELETE_AT_ONCE
   * of them, the oldest). One still on an
   * issue whose lease ended goes from it too, as it should; that issue's
   * effect then finds it deleted. A lingering label a live lease calls for
   * again is kept for it. Without `kept`, the kept ones are not looked at:
   * a label kept for other leases falls out of use only when the last of
   * them ends, and the effect of that ending removes it (`remove`, which
   * looks at them all); an effect that removes nothing (a claim) would only
   * ask the ledger again what it answered then.
   */
  async deleteUnused(key: IssueKey, r: Repo, repo: RepoReflection, github: GitHubPort, templates: LabelTemplates, lingerMs: number, kept = true): Promise<void> {
    if (!this.hasUnused(repo, lingerMs, kept)) return;
    const due = this.lingeredOut(repo, lingerMs).slice(0, DELETE_AT_ONCE);
    const looked = kept ? [...repo.kept] : [];
    const inUse = await this.inUse(key, templates, [...looked, ...due], null);
    for (const name of looked) {
      if (inUse.has(name.toLowerCase())) continue;
      if (among(repo.made, name)) {
        if (lingerMs > 0) this.linger(repo, name);
        else await this.deleteMade(r, repo, github, name);
      }
      repo.kept = repo.kept.filter((n) => !same(n, name));
    }
    stopLingering(repo, due);
    for (const name of due) {
      if (!among(repo.made, name)) continue;
      if (!inUse.has(name.toLowerCase())) await this.deleteMade(r, repo, github, name);
      else if (!among(repo.kept, name)) repo.kept.push(name);
    }
  }

  /** Deletes a label the app made from the repository, which takes it off every issue. */
  private async deleteMade(r: Repo, repo: RepoReflection, github: GitHubPort, name: string): Promise<void> {
    await github.deleteRepoLabel(r, name);
    repo.made = repo.made.filter((n) => !same(n, name));
    repo.deleted.push(name);
  }

  /** Marks a label the app made as lingering in the repository from now (again, if it was). */
  private linger(repo: RepoReflection, name: string): void {
    const others = (repo.lingering ?? []).filter((l) => !same(l.name, name));
    repo.lingering = [...others, { name, since: this.o.clock() }];
  }

  /**
   * Those of `names` (in lower case) that a live lease of the repository
   * calls for, the lease of issue `except` aside. Asked of the ledger by the
   * logins and tokens the names carry (labelSubject), not read from every
   * lease of the repository, which a fleet's thousands of leases would make
   * slow; a name that carries neither, or that every claimed or in-review
   * issue shows, is looked for among them all.
   */
  private async inUse(key: IssueKey, templates: LabelTemplates, names: readonly string[], except: number | null): Promise<Set<string>> {
    const { ledger, clock } = this.o;
    const inUse = new Set<string>();
    if (names.length === 0) return inUse;
    const subjects = names.map((name) => ({ name, subject: labelSubject(templates, name), kind: labelKind(templates, name) }));
    if (subjects.some((s) => s.subject === null || s.kind === "claimed" || s.kind === "review")) {
      for (const lease of await ledger.list(key.repoId, clock())) {
        if (lease.issue === except) continue;
        for (const d of desiredLabels(templates, lease)) inUse.add(d.name.toLowerCase());
      }
      return inUse;
    }
    const asked = {
      logins: subjects.flatMap((s) => (s.subject?.login === undefined ? [] : [s.subject.login])),
      tokens: subjects.flatMap((s) => (s.subject?.token === undefined ? [] : [s.subject.token])),
    };
    const live = await ledger.liveAmong(key.repoId, clock(), asked, except);
    for (const { name, subject } of subjects) {
      const byLogin = subject?.login !== undefined && live.logins.includes(subject.login.toLowerCase());
      const byToken = subject?.token !== undefined && live.tokens.includes(subject.token);
      if (byLogin || byToken) inUse.add(name.toLowerCase());
    }
    return inUse;
  }
}
