/**
 * The SQLite ledger's leases outside its operations (PostgreSQL's are
 * postgres/leases.ts): an issue's live lease and latest token, the lists and
 * sweeps of held rows through their indexes, an issue's history and line, a
 * delivery's recorded result, the check before a renewal by activity, and a
 * holder's rename. Each is one statement on the ledger's connection, but a
 * rename, one BEGIN IMMEDIATE transaction with its effects.
 */
import type { LeasePart } from "../compose-ledger.js";
import { decide } from "../leases/decide.js";
import { effectIn } from "../leases/effect-cases.js";
import type { LeaseMatch, RenameOptions } from "../leases/lease-roles.js";
import { matchOf, ruleRow } from "../leases/lease-rows.js";
import { type HistoryEntry, type HistoryOp, type Holder, holderOf, type IssueKey, type Lease } from "../leases/lease-types.js";
import { liveEntries, placeOfRow, type QueueEntry } from "../queue/queue-types.js";
import { type LeaseStatements, toLease } from "./lease-statements.js";
import type { SqliteOutbox } from "./outbox.js";
import type { SqliteRepos } from "./repos.js";
import type { SqlitePlans } from "./run-plan.js";

export class SqliteLeases implements LeasePart {
  private readonly st: LeaseStatements;

  /** `plans`: the statements the operations run, read here too; `immediate`: runs a function as one BEGIN IMMEDIATE transaction. */
  constructor(
    private readonly plans: SqlitePlans,
    private readonly repos: SqliteRepos,
    private readonly outbox: SqliteOutbox,
    private readonly immediate: <T>(f: () => T) => T,
  ) {
    this.st = plans.st;
  }

  async mayRenew(key: IssueKey, actor: Holder, now: number): Promise<boolean> {
    return this.plans.work.mayRenew.get({ repoId: key.repoId, holderId: actor.id, issue: key.issue, now }) !== undefined;
  }

  async recorded(delivery: string): Promise<unknown> {
    const seen = this.st.getDelivery.get(delivery);
    return seen ? (JSON.parse(seen.result) as unknown) : null;
  }

  async renameHolder(repoId: number, holder: Holder, now: number, opts?: RenameOptions): Promise<Lease[]> {
    const args = { holderId: holder.id, login: holder.login, now };
    if (this.st.renamedIn.get({ ...args, repoId }) === undefined) return [];
    return this.immediate(() => {
      const renamed = this.st.rename.all(args).map(toLease);
      for (const lease of renamed) {
        const repo = this.repos.info(lease.repoId);
        this.outbox.enqueue(lease.repoId, lease.issue, effectIn(opts?.effect, repo), now);
      }
      return renamed;
    });
  }

  async current(key: IssueKey, now: number): Promise<Lease | null> {
    return decide.live(key, ruleRow(this.st.get.get(key.repoId, key.issue)), now);
  }

  async list(repoId: number, now: number): Promise<Lease[]> {
    return this.st.list.all({ repoId, now }).map(toLease);
  }

  async liveAmong(repoId: number, now: number, match: LeaseMatch, except: number | null): Promise<LeaseMatch> {
    const logins = JSON.stringify(match.logins.map((l) => l.toLowerCase()));
    return matchOf(this.st.liveAmong.all({ repoId, now, logins, tokens: JSON.stringify(match.tokens), except }));
  }

  async listHeldBy(holderId: number, now: number): Promise<Lease[]> {
    return this.st.listHeldBy.all({ holderId, now }).map(toLease);
  }

  async listAll(now: number): Promise<Lease[]> {
    return this.st.listAll.all({ now }).map(toLease);
  }

  async expiredSince(now: number, limit = 1000): Promise<Lease[]> {
    return this.st.expired.all({ now, limit }).map(toLease);
  }

  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return this.st.dueReminders.all({ now, limit }).map(toLease);
  }

  async queue(key: { repoId: number; issue: number }, now: number): Promise<QueueEntry[]> {
    return liveEntries(this.plans.queue.line.all({ repoId: key.repoId, issue: key.issue }).map(placeOfRow), now);
  }

  async history(key: { repoId: number; issue: number }, limit = 1000): Promise<HistoryEntry[]> {
    return this.st.historyOf.all({ ...key, limit }).map((r) => ({
      id: r.id as number,
      repoId: r.repo_id as number,
      repo: r.repo as string,
      issue: r.issue as number,
      op: r.op as HistoryOp,
      outcome: r.outcome as string,
      actor: r.actor_id === null ? null : holderOf(r.actor_id as number, r.actor_login as string, r.actor_instance as string | null),
      holder: r.holder_id === null ? null : holderOf(r.holder_id as number, r.holder_login as string, r.holder_instance as string | null),
      token: r.token as number | null,
      expiresAt: r.expires_at as number | null,
      at: r.at as number,
      delivery: r.delivery as string | null,
    }));
  }

  async latestToken(key: { repoId: number; issue: number }): Promise<number | null> {
    // A row may exist with token 0 before any tenure (a note on a fresh issue).
    const token = this.st.get.get(key.repoId, key.issue)?.token ?? 0;
    return token > 0 ? token : null;
  }
}
