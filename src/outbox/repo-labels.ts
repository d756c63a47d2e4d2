/**
 * What the app deletes from a repository's labels (reflector.ts): a holder
 * or token label it brought into the repository, once no live lease calls
 * for it; asked of the ledger by the logins and tokens the names carry.
 */
import type { IssueKey } from "../ledger/types.js";
import type { LeaseReads } from "../ledger/roles.js";
import type { GitHubPort, Repo } from "../github/github-port.js";
import { desiredLabels, labelKind, labelSubject, type LabelTemplates } from "../github/labels.js";
import type { RepoReflection, RepoTurns } from "./repo-turns.js";

export const same = (a: string | null | undefined, b: string | null | undefined) =>
  (a ?? "").toLowerCase() === (b ?? "").toLowerCase();
export const among = (names: readonly string[], name: string) => names.some((n) => same(n, name));

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
   * are deleted.
   */
  async remove(
    key: IssueKey,
    r: Repo,
    github: GitHubPort,
    templates: LabelTemplates,
    names: string[],
    opts: { issueGone: boolean; signal: AbortSignal },
    turn: RepoLabelTurn,
  ): Promise<void> {
    await turn(key.repoId, github, opts.signal, async (repo, github) => {
      // Read in the turn: a lease that an add waiting for this turn shows is
      // in the ledger by now, and keeps its labels.
      const inUse = await this.inUse(key, templates, names.filter((name) => among(repo.made, name)), key.issue);
      for (const name of names) {
        if (among(repo.made, name) && !inUse.has(name.toLowerCase())) {
          await github.deleteRepoLabel(r, name);
          repo.made = repo.made.filter((n) => !same(n, name));
          repo.deleted.push(name);
        } else if (among(repo.deleted, name)) {
          continue;
        } else {
          if (among(repo.made, name) && !among(repo.kept, name)) repo.kept.push(name);
          if (!opts.issueGone) await github.removeIssueLabel(r, key.issue, name);
        }
      }
      await this.deleteUnused(key, r, repo, github, templates);
    });
  }

  /**
   * In a turn: deletes from the repository the labels kept for other leases
   * (`kept`) that no live lease calls for any more. One still on an issue
   * whose lease ended goes from it too, as it should; that issue's effect
   * then finds it deleted.
   */
  async deleteUnused(key: IssueKey, r: Repo, repo: RepoReflection, github: GitHubPort, templates: LabelTemplates): Promise<void> {
    if (repo.kept.length === 0) return;
    const inUse = await this.inUse(key, templates, repo.kept, null);
    for (const name of [...repo.kept]) {
      if (inUse.has(name.toLowerCase())) continue;
      if (among(repo.made, name)) {
        await github.deleteRepoLabel(r, name);
        repo.made = repo.made.filter((n) => !same(n, name));
        repo.deleted.push(name);
      }
      repo.kept = repo.kept.filter((n) => !same(n, name));
    }
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
