import pg from "pg";
import { decide, type Row } from "../decide.js";
import { ruleRow } from "../lease-rows.js";
import { limitReached, policyLocks, policySqls, rememberLabels } from "./policies.js";
import {
  dropPostgresCard,
  forgetPostgresRepos,
  postgresBoardLeases,
  postgresBoardPanels,
  postgresBoardRepo,
  rememberPostgresCard,
  rememberPostgresVisibility,
} from "./board.js";
import {
  combineWrites,
  isConnectionError,
  nowParam,
  PostgresConnection,
  statement,
  type Outcome,
  type PostgresLedgerOptions,
  type Statement,
} from "./connection.js";
import { migratePostgres, postgresSchemaVersion } from "./migrate.js";
import { PostgresOutbox } from "./outbox.js";
import { live, PostgresReads, toLease, type LeaseRow } from "./reads.js";
import { PostgresRepos } from "./repos.js";
import { PostgresSessionLocks } from "./session-locks.js";
import { floorOf, raisePostgresTokenFloor } from "./token-floor.js";
import { PostgresWork } from "./work.js";
import { HOUR_MS, REPLIED } from "../reply-budget.js";
import { DatabaseConfigError } from "../database-config-error.js";
import { SchemaBehindError } from "../schema-behind-error.js";
import type { AcquireOptions, AcquireResult, Applied, Effect, ExpireResult, ForceReleaseOptions, ForceReleaseResult, HeldLock, HistoryEntry, HistoryOp, Holder, IssueKey, Lease, LedgerResult, NoteOptions, NoteResult, OpOptions, OutboxStats, ReleaseResult, RemindResult, RenameOptions, RenewOptions, RepoInfo, RenewResult, ReplyBudget, SchemaVersion, Term, TokenFloorRaise, TokenFloorResult, Ttl, EffectFence } from "../types.js";
import type { Ledger } from "../roles.js";
import type { BoardPage, BoardPanels, BoardPanelsQuery, BoardQuery, IssueCard, RepoForget, RepoVisibility } from "../board-types.js";
import type { ActivityOptions, ActivityResult, ExemptOptions, ExemptResult, LinkPullOptions, LinkPullResult } from "../work-types.js";
import { heldByWork, pullsColumn, workOf } from "../work-rules.js";

// Exported from here before they moved to their own files, and still imported from here (the tests, the CLI).
export { isConnectionError, synchronousCommit, type PostgresLedgerOptions } from "./connection.js";
export { migratePostgres } from "./migrate.js";

/** The URL without its password, for error messages. */
function describeUrl(connectionString: string): string {
  try {
    const url = new URL(connectionString);
    return `${url.hostname}:${url.port || "5432"}${url.pathname}`;
  } catch {
    return "the server in DATABASE_URL";
  }
}

/** Creates the pool, migrates the schema and returns the ledger. */
export async function openPostgres(opts: PostgresLedgerOptions & { migrate?: boolean }): Promise<PostgresLedger> {
  const ledger = new PostgresLedger(opts);
  try {
    if (opts.migrate ?? true) await ledger.migrate();
    else {
      // Read once, not through the ledger's statement retry, which logs: a
      // server that does not answer is said below, in one line.
      const version = await postgresSchemaVersion(ledger.pool, ledger.schema);
      if (version.current < version.latest) throw new SchemaBehindError(version);
    }
  } catch (err) {
    await ledger.close();
    if (isConnectionError(err)) {
      throw new DatabaseConfigError(
        `cannot reach PostgreSQL at ${describeUrl(opts.connectionString)} (${(err as Error).message}): ` +
          "check DATABASE_URL and that the server accepts connections from this host",
        { cause: err },
      );
    }
    throw err;
  }
  return ledger;
}

type Client = pg.PoolClient;

/**
 * The ledger on PostgreSQL, shared by any number of replicas. Every operation
 * is one READ COMMITTED transaction that locks the issue's row
 * (`SELECT ... FOR UPDATE`) before deciding, so operations on one issue
 * serialise and operations on different issues run in parallel.
 */
export class PostgresLedger implements Ledger {
  readonly sharedByProcesses = true;
  readonly pool: pg.Pool;
  readonly schema: string;
  /** The pool, and the retries around what runs on it (connection.ts). */
  private readonly db: PostgresConnection;
  private readonly sql;
  /** The claim limits' statements (postgres/policies.ts). */
  private readonly policySql;
  /** Leases that follow the work: their SQL and operations (postgres/work.ts). */
  private readonly work: PostgresWork;
  /** The outbox's statements and operations (postgres/outbox.ts). */
  private readonly outbox: PostgresOutbox;
  /** Repositories and reflections (postgres/repos.ts). */
  private readonly repos: PostgresRepos;
  /** Named locks: session advisory locks on a connection of their own (postgres/session-locks.ts). */
  private readonly locks: PostgresSessionLocks;
  /** The reads of leases, history and deliveries outside the operations (postgres/reads.ts). */
  private readonly reads: PostgresReads;

  constructor(opts: PostgresLedgerOptions) {
    this.schema = opts.schema ?? "public";
    this.db = new PostgresConnection(opts);
    this.pool = this.db.pool;

    const s = pg.escapeIdentifier(this.schema);
    this.work = new PostgresWork(s);
    this.outbox = new PostgresOutbox(s, this.db);
    this.repos = new PostgresRepos(s, this.db);
    this.locks = new PostgresSessionLocks({
      connectionString: opts.connectionString,
      schema: this.schema,
      log: opts.log ?? ((message, error) => console.error(`[issue-leases] ${message}`, error)),
    });
    this.reads = new PostgresReads(s, this.db);
    this.policySql = policySqls(s);
    this.sql = {
      lockHolder: "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
      lockRow: `SELECT * FROM ${s}.leases WHERE repo_id = $1 AND issue = $2 FOR UPDATE`,
      // Acquire's: the token floor read in the same statement, so that a floor
      // an operator raised applies to the next acquire on every replica, at no
      // extra round trip.
      lockRowFloor: `SELECT l.*, ${floorOf(s)} AS token_floor FROM ${s}.leases l WHERE l.repo_id = $1 AND l.issue = $2 FOR UPDATE OF l`,
      insertFree: `INSERT INTO ${s}.leases (repo_id, issue, repo, token, updated_at) VALUES ($1, $2, $3, 0, $4)
                   ON CONFLICT (repo_id, issue) DO NOTHING`,
      write: `UPDATE ${s}.leases SET repo = $3, holder_id = $4, holder_login = $5, token = $6, acquired_at = $7, expires_at = $8,
                updated_at = $9, remind_at = $10, reminded = false, pulls = $11, exempt = $12, term_ms = $13, holder_instance = $14
              WHERE repo_id = $1 AND issue = $2`,
      free: `UPDATE ${s}.leases SET holder_id = NULL, holder_login = NULL, holder_instance = NULL, expires_at = NULL, remind_at = NULL, reminded = false,
               updated_at = $3, pulls = NULL, exempt = false, term_ms = NULL
             WHERE repo_id = $1 AND issue = $2`,
      markReminded: `UPDATE ${s}.leases SET reminded = true, updated_at = $3 WHERE repo_id = $1 AND issue = $2`,
      history: `INSERT INTO ${s}.history
                  (repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery, replied,
                   actor_instance, holder_instance)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
      replies: `SELECT count(*)::int AS n, max(replied) AS top FROM ${s}.history
                WHERE repo_id = $1 AND actor_id = $2 AND replied > 0 AND at > $3`,
      claimDelivery: `INSERT INTO ${s}.deliveries (id, result, at) VALUES ($1, '', $2) ON CONFLICT (id) DO NOTHING`,
      putDelivery: `UPDATE ${s}.deliveries SET result = $2 WHERE id = $1`,
      // One repository, through leases_held (repo_id, holder_id): what every webhook's sender may cost.
      renamedIn: `SELECT 1 FROM ${s}.leases WHERE repo_id = $1 AND holder_id = $2 AND holder_login <> $3 AND ${live(nowParam(4))} LIMIT 1`,
      rename: `UPDATE ${s}.leases SET holder_login = $2, updated_at = $3
               WHERE holder_id = $1 AND holder_login <> $2 AND ${live("$3")} RETURNING *`,
      reposOf: `SELECT repo_id, repo, installation FROM ${s}.repos WHERE repo_id = ANY($1::bigint[])`,
    };
  }

  /** Brings the schema to the latest version; safe to run from several replicas at once. */
  async migrate(upTo?: number): Promise<number> {
    return migratePostgres(this.pool, this.schema, upTo);
  }

  /** For health checks (connection.ts). */
  async ping(timeoutMs?: number): Promise<boolean> {
    return this.db.ping(timeoutMs);
  }

  /**
   * One ledger operation: claims the delivery id, takes the holder's lock when
   * a per-holder limit applies, locks the issue's row, decides, writes, and
   * appends history and effects, all in one transaction.
   */
  private run<R extends LedgerResult>(
    key: IssueKey,
    op: HistoryOp,
    actor: Holder | null,
    callerNow: number,
    opts: OpOptions<R> | undefined,
    body: (c: Client, row: Row | null, now: number, floor: number) => Promise<{ result: R; write?: Statement | Statement[] }>,
    /** `locks`: advisory locks (namespace, key) taken in order before the row lock, in place of the reply limit's. */
    extra: { historyOutcome?: string; locks?: Array<[string, string]>; readFloor?: boolean } = {},
  ): Promise<Applied<R>> {
    return this.db.transaction(callerNow, async (c, now): Promise<Outcome<Applied<R>>> => {
      const delivery = opts?.delivery;
      if (delivery !== undefined) {
        // First, so that a replica handling the same delivery at the same time
        // waits here on our uncommitted row (unique index), then sees the conflict.
        const claimed = await c.query(this.sql.claimDelivery, [delivery, now]);
        if (claimed.rowCount === 0) {
          const seen = await c.query<{ result: string }>(this.reads.sql.getDelivery, [delivery]);
          return { value: { ...(JSON.parse(seen.rows[0]!.result) as R), duplicate: true }, rollback: true };
        }
      }
      const limit = actor ? (opts?.repliesPerHour ?? 0) : 0;
      // A reply limit counts the actor's replies: the same lock (acquire's
      // holder is its actor) keeps two of their commands from both seeing the
      // last reply left. An acquire's claim limits take the holder's locks
      // (postgres/policies.ts), this one among them.
      const locks = extra.locks?.length ? extra.locks : limit > 0 ? [[`${this.schema}/holder`, `${key.repoId}/${actor!.id}`] as [string, string]] : [];
      for (const lock of locks) {
        // Serialises this holder's acquires in the repository (or the
        // installation), so two of them on different issues cannot both pass
        // a limit. Taken before the row lock, always in this order: no
        // deadlock with other acquires.
        await c.query(this.sql.lockHolder, lock);
      }
      const { row, floor } = await this.lockRow(c, key, now, extra.readFloor === true);
      const { result, write } = await body(c, row, now, floor);
      const lease = "lease" in result ? result.lease : null;
      let budget: ReplyBudget | null = null;
      if (limit > 0 && (opts?.countsReply?.(result) ?? true)) {
        const { rows } = await c.query<{ n: number; top: number | null }>(this.sql.replies, [key.repoId, actor!.id, now - HOUR_MS]);
        budget = decide.replyBudget(limit, rows[0]!.n, rows[0]!.top === REPLIED.notice);
      }
      // Everything the decision writes goes in one round trip.
      const history = statement(this.sql.history, [
        key.repoId,
        key.repo,
        key.issue,
        op,
        extra.historyOutcome ?? result.outcome,
        actor?.id ?? null,
        actor?.login ?? null,
        lease?.holder.id ?? null,
        lease?.holder.login ?? null,
        lease ? lease.token : null,
        lease ? lease.expiresAt : null,
        now,
        delivery ?? null,
        budget === null ? null : REPLIED[budget],
        actor?.instance ?? null,
        lease?.holder.instance ?? null,
      ]);
      const writes = write ? [...(Array.isArray(write) ? write : [write]), history] : [history];
      if (delivery !== undefined) writes.push(statement(this.sql.putDelivery, [delivery, JSON.stringify(result)]));
      const enqueues = (opts?.effects?.(result, budget ?? "reply") ?? []).map((effect) =>
        this.outbox.enqueue(key.repoId, key.issue, effect, now),
      );
      // An issue's effects are applied in the order of their ids. The CTEs of
      // one statement run in no set order, so a second effect has a
      // statement of its own, after.
      const [first, ...rest] = enqueues;
      const all = combineWrites(first ? [...writes, first] : writes);
      await c.query(all.text, all.values);
      for (const e of rest) await c.query(e.text, e.values);
      return { value: { ...result, duplicate: false } };
    });
  }

  /**
   * Locks the issue's row for the rest of the transaction. An issue never seen
   * gets a free row with token 0 first, so that two first claims have a row to
   * queue on; it reads exactly like no row. With `readFloor`, the token
   * floor comes with the row (0 otherwise).
   */
  private async lockRow(c: Client, key: IssueKey, now: number, readFloor: boolean): Promise<{ row: Row | null; floor: number }> {
    const text = readFloor ? this.sql.lockRowFloor : this.sql.lockRow;
    let found = (await c.query<LeaseRow & { token_floor?: number }>(text, [key.repoId, key.issue])).rows[0];
    if (!found) {
      await c.query(this.sql.insertFree, [key.repoId, key.issue, key.repo, now]);
      found = (await c.query<LeaseRow & { token_floor?: number }>(text, [key.repoId, key.issue])).rows[0];
    }
    return { row: ruleRow(found), floor: found?.token_floor ?? 0 };
  }

  /** `termMs`: the length of the term (for renewals by activity). */
  private write(key: IssueKey, lease: Lease, now: number, remindBefore: number | null | undefined, termMs: Ttl): Statement {
    const remindAt =
      lease.expiresAt !== null && remindBefore !== null && remindBefore !== undefined ? lease.expiresAt - remindBefore : null;
    return statement(this.sql.write, [
      key.repoId,
      key.issue,
      key.repo,
      lease.holder.id,
      lease.holder.login,
      lease.token,
      lease.acquiredAt,
      lease.expiresAt,
      now,
      remindAt,
      pullsColumn(lease.heldBy),
      workOf(lease.heldBy).exempt,
      termMs,
      lease.holder.instance ?? null,
    ]);
  }

  async acquire(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: AcquireOptions): Promise<Applied<AcquireResult>> {
    const maxPerHolder = opts?.maxPerHolder ?? 0;
    return this.run(
      key,
      "acquire",
      opts?.actor ?? holder,
      now,
      opts,
      async (c, row, now, floor) => {
        let result = decide.acquire(key, row, holder, ttl, now, undefined, floor);
        // Limits bear only on a new tenure: read then, and the rules asked again at one.
        if (result.outcome === "acquired" && result.newTenure) {
          const reached = await limitReached(c, this.policySql, key, holder, now, maxPerHolder, opts?.policies, opts?.countInReview);
          if (reached) result = decide.acquire(key, row, holder, ttl, now, reached, floor);
        }
        if (result.outcome !== "acquired") return { result };
        // The holder's open pull requests and an exempt label hold it from the claim.
        result = { ...result, lease: await this.work.claimed(c, key, result.lease, result.newTenure, opts?.exempt) };
        const labels = result.newTenure ? rememberLabels(this.policySql.counted, key, result.lease.token, opts?.policies) : null;
        const write = this.write(key, result.lease, now, opts?.remindBefore, ttl);
        return { result, write: labels ? [write, statement(labels.text, labels.values)] : write };
      },
      { locks: policyLocks(this.schema, key, holder, maxPerHolder, opts?.policies), readFloor: true },
    );
  }

  async renew(key: IssueKey, holder: Holder, ttl: Ttl, now: number, opts?: RenewOptions): Promise<Applied<RenewResult>> {
    return this.run(key, "renew", holder, now, opts, async (c, row, now) => {
      let result = decide.renew(key, row, holder, ttl, now);
      // Still held by its work, if it was: the new term is what it gets when the work lets go.
      if (result.outcome === "renewed") result = { ...result, lease: heldByWork(result.lease, workOf(result.lease.heldBy)) };
      return {
        result,
        write: result.outcome === "renewed" ? this.write(key, result.lease, now, opts?.remindBefore, ttl) : undefined,
      };
    });
  }

  async release(key: IssueKey, holder: Holder, now: number, opts?: OpOptions<ReleaseResult>): Promise<Applied<ReleaseResult>> {
    return this.run(key, "release", holder, now, opts, async (c, row, now) => {
      const result = decide.release(key, row, holder, now);
      return { result, write: this.freeIfReleased(key, row, result, now) };
    });
  }

  async forceRelease(key: IssueKey, actor: Holder, now: number, opts?: ForceReleaseOptions): Promise<Applied<ForceReleaseResult>> {
    return this.run(key, "force_release", actor, now, opts, async (c, row, now) => {
      const result = decide.forceRelease(key, row, now, opts);
      return { result, write: this.freeIfReleased(key, row, result, now) };
    });
  }

  private freeIfReleased(key: IssueKey, row: Row | null, result: ForceReleaseResult, now: number): Statement | undefined {
    // Freeing keeps the row and its token: the next tenure gets token + 1.
    if (result.outcome !== "released" || row?.holder == null) return undefined;
    return statement(this.sql.free, [key.repoId, key.issue, now]);
  }

  async note(
    key: IssueKey,
    actor: Holder | null,
    now: number,
    opts?: NoteOptions,
  ): Promise<Applied<NoteResult>> {
    const detail = opts?.detail ? { detail: opts.detail } : {};
    // The row is locked even though nothing changes: effects of one issue must
    // enter the outbox in the order of the decisions they follow.
    return this.run(key, "note", actor, now, opts, async (_c, row, now) => ({ result: { ...decide.note(key, row, now), ...detail } }), {
      historyOutcome: opts?.outcome,
    });
  }

  async recorded(delivery: string): Promise<unknown> {
    return this.reads.recorded(delivery);
  }

  async renameHolder(repoId: number, holder: Holder, now: number, opts?: RenameOptions): Promise<Lease[]> {
    const found = await this.db.query(this.sql.renamedIn, [repoId, holder.id, holder.login, this.db.stmtNow(now)]);
    if (found.rows.length === 0) return [];
    return this.db.transaction(now, async (c, now) => {
      const renamed = (await c.query<LeaseRow>(this.sql.rename, [holder.id, holder.login, now])).rows.map(toLease);
      const repoIds = [...new Set(renamed.map((l) => l.repoId))];
      const { rows } = await c.query<{ repo_id: number; repo: string; installation: number }>(this.sql.reposOf, [repoIds]);
      const repos = new Map(rows.map((r) => [r.repo_id, { repoId: r.repo_id, repo: r.repo, installation: r.installation }]));
      // In the order of the issues, one statement each: an issue's effects apply in the order of their ids.
      for (const lease of renamed.sort((a, b) => a.repoId - b.repoId || a.issue - b.issue)) {
        for (const effect of opts?.effects?.(lease, repos.get(lease.repoId) ?? null) ?? []) {
          const e = this.outbox.enqueue(lease.repoId, lease.issue, effect, now);
          await c.query(e.text, e.values);
        }
      }
      return { value: renamed };
    });
  }

  async current(key: IssueKey, now: number): Promise<Lease | null> {
    return this.reads.current(key, now);
  }

  async list(repoId: number, now: number): Promise<Lease[]> {
    return this.reads.list(repoId, now);
  }

  async listHeldBy(holderId: number, now: number): Promise<Lease[]> {
    return this.reads.listHeldBy(holderId, now);
  }

  async listAll(now: number): Promise<Lease[]> {
    return this.reads.listAll(now);
  }

  async expiredSince(now: number, limit = 1000): Promise<Lease[]> {
    return this.reads.expiredSince(now, limit);
  }

  async markExpired(key: IssueKey, token: number, now: number, opts?: OpOptions<ExpireResult>): Promise<Applied<ExpireResult>> {
    return this.run(key, "expire", null, now, opts, async (c, row, now) => {
      const result = decide.expire(key, row, token, now);
      return {
        result,
        write: result.outcome === "expired" ? statement(this.sql.free, [key.repoId, key.issue, now]) : undefined,
      };
    });
  }

  async dueReminders(now: number, limit = 1000): Promise<Lease[]> {
    return this.reads.dueReminders(now, limit);
  }

  async markReminded(key: IssueKey, term: Term, now: number, opts?: OpOptions<RemindResult>): Promise<Applied<RemindResult>> {
    return this.run(key, "remind", null, now, opts, async (c, row, now) => {
      const result = decide.remind(key, row, term, now);
      return {
        result,
        write: result.outcome === "reminded" ? statement(this.sql.markReminded, [key.repoId, key.issue, now]) : undefined,
      };
    });
  }

  async history(key: { repoId: number; issue: number }, limit = 1000): Promise<HistoryEntry[]> {
    return this.reads.history(key, limit);
  }

  // The outbox (postgres/outbox.ts).
  async takeEffects(now: number, limit: number, lockMs: number, skipInstallations?: number[], skipIds?: number[]): Promise<Effect[]> {
    return this.outbox.takeEffects(now, limit, lockMs, skipInstallations, skipIds);
  }

  async extendEffects(fences: EffectFence[], now: number, lockMs: number): Promise<number[]> {
    return this.outbox.extendEffects(fences, now, lockMs);
  }

  async completeEffect(fence: EffectFence, now: number): Promise<boolean> {
    return this.outbox.completeEffect(fence, now);
  }

  async failEffect(fence: EffectFence, now: number, error: string, retryAt: number | null): Promise<boolean> {
    return this.outbox.failEffect(fence, now, error, retryAt);
  }

  async unparkEffects(now: number): Promise<number> {
    return this.outbox.unparkEffects(now);
  }

  async outboxStats(): Promise<OutboxStats> {
    return this.outbox.outboxStats();
  }

  async schemaVersion(): Promise<SchemaVersion> {
    return postgresSchemaVersion(this.pool, this.schema);
  }

  // Repositories, reflections and named locks (postgres/repos.ts).
  async getReflection(repoId: number, issue: number): Promise<unknown> {
    return this.repos.getReflection(repoId, issue);
  }

  async putReflection(repoId: number, issue: number, state: unknown, now: number): Promise<void> {
    return this.repos.putReflection(repoId, issue, state, now);
  }

  async rememberRepo(repo: RepoInfo, now: number): Promise<void> {
    return this.repos.rememberRepo(repo, now);
  }

  async repoInfo(repoId: number): Promise<RepoInfo | null> {
    return this.repos.repoInfo(repoId);
  }

  async findRepo(name: string): Promise<RepoInfo | null> {
    return this.repos.findRepo(name);
  }

  /** The lock ends with this process's lock connection, not after `ttlMs`: a replica that dies lets go at once. */
  async holdLock(name: string, _owner: string, _clock: () => number, _ttlMs: number): Promise<HeldLock | null> {
    return this.locks.hold(name);
  }

  async close(): Promise<void> {
    await this.locks.close();
    return this.db.close();
  }

  async raiseTokenFloor(raise: TokenFloorRaise, actor: Holder, setBy: string, now: number): Promise<TokenFloorResult> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await raisePostgresTokenFloor(c, s, raise, actor, setBy, now) }));
  }

  async linkPull(pull: IssueKey, author: Holder, issues: number[], now: number, opts: LinkPullOptions): Promise<LinkPullResult> {
    return this.db.transaction(now, async (c, now) => ({ value: await this.work.linkPull(c, pull, author, issues, now, opts) }));
  }

  async renewOnActivity(key: IssueKey, actor: Holder, now: number, opts: ActivityOptions): Promise<ActivityResult & { duplicate?: boolean }> {
    const { text, values } = this.work.mayRenew(key, actor, this.db.stmtNow(now));
    if ((await this.db.query(text, values)).rows.length === 0) return { outcome: "none", renewed: [] };
    const policy = await opts.policy();
    if (!policy) return { outcome: "none", renewed: [] };
    return this.db.transaction(now, async (c, now) => this.work.renewOnActivity(c, key, actor, now, policy, opts.delivery));
  }

  async setExempt(key: IssueKey, actor: Holder, exempt: boolean, now: number, opts: ExemptOptions): Promise<Applied<ExemptResult>> {
    return this.db.transaction(now, async (c, now) => this.work.setExempt(c, key, actor, exempt, now, opts));
  }

  async latestToken(key: { repoId: number; issue: number }): Promise<number | null> {
    return this.reads.latestToken(key);
  }

  // The board (postgres/board.ts).
  async rememberCard(card: IssueCard, now: number, create: boolean): Promise<boolean> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await rememberPostgresCard(c, s, card, now, create) }));
  }

  async rememberVisibility(repo: RepoVisibility, now: number): Promise<boolean> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await rememberPostgresVisibility(c, s, repo, now) }));
  }

  async dropCard(key: { repoId: number; issue: number }, now: number): Promise<void> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await dropPostgresCard(c, s, key, now) }));
  }

  async forgetRepos(forget: RepoForget, now: number): Promise<number> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await forgetPostgresRepos(c, s, forget, now) }));
  }

  async boardRepo(name: string): Promise<(RepoInfo & { private: boolean | null }) | null> {
    return postgresBoardRepo((text, values) => this.db.query(text, values), pg.escapeIdentifier(this.schema), name);
  }

  async boardLeases(query: BoardQuery, now: number): Promise<BoardPage> {
    const s = pg.escapeIdentifier(this.schema);
    return postgresBoardLeases((text, values) => this.db.query(text, values), s, query, nowParam(1), this.db.stmtNow(now));
  }

  async boardPanels(query: BoardPanelsQuery, now: number): Promise<BoardPanels> {
    const s = pg.escapeIdentifier(this.schema);
    return this.db.transaction(now, async (c, now) => ({ value: await postgresBoardPanels(c, s, query, now) }));
  }
}
