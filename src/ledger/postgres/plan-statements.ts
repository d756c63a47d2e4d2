/**
 * The SQL of the PostgreSQL plan runner's steps (run-plan.ts), by name: the
 * reads and locks it sends as a plan asks, and the writes it batches.
 */
import pg from "pg";
import { countsTowardLimits } from "../leases/claim-limits.js";
import { LINE_ORDER, PLACE_COLUMNS } from "../queue/queue-types.js";
import { floorOf } from "./token-floor.js";

/** The claim limits' reads, counting leases in review or not (`count_in_review`). */
export function limitSql(s: string, countInReview: boolean) {
  const counted = countsTowardLimits("l", "$4", countInReview);
  const order = "ORDER BY l.repo, l.repo_id, l.issue";
  const inRepo = `SELECT l.* FROM ${s}.leases l WHERE l.holder_id = $2 AND l.repo_id = $1 AND l.issue <> $3 AND ${counted}`;
  return {
    repo: `${inRepo} ${order}`,
    label: `${inRepo}
      AND EXISTS (SELECT 1 FROM ${s}.lease_labels x WHERE x.repo_id = l.repo_id AND x.issue = l.issue AND x.token = l.token AND x.label = $5)
      ${order}`,
    // Every repository of the installation, and this one whether or not it is remembered yet.
    org: `SELECT l.* FROM (SELECT $1::bigint AS repo_id UNION SELECT repo_id FROM ${s}.repos WHERE installation = $5) r
      JOIN ${s}.leases l ON l.repo_id = r.repo_id AND l.holder_id = $2
      WHERE NOT (l.repo_id = $1 AND l.issue = $3) AND ${counted}
      ${order}`,
  };
}

/**
 * The statements of the steps, on the quoted schema `s`.
 *
 * The locks of issues' rows reserve, with each row, the id of the history row
 * its operation appends (next_history): the writes then name it (the lease
 * row's last_history, the history row's own id) and go in one statement, with
 * no round trip to learn it. The id is drawn after the row is locked, in the
 * outer query of a materialised CTE (the locking scan computes its columns
 * before it waits on the lock), so that an issue's ids grow along its chain in
 * the order its transactions commit, and its history in id order is its chain.
 */
export function planStatements(s: string) {
  const next = `nextval(${pg.escapeLiteral(`${s}.history_id_seq`)}::regclass)`;
  const locked = (where: string, order = "") => `WITH l AS MATERIALIZED (SELECT * FROM ${s}.leases WHERE ${where} ${order} FOR UPDATE)`;
  return {
    lock: "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
    lockRow: `${locked("repo_id = $1 AND issue = $2")} SELECT l.*, ${next} AS next_history FROM l`,
    // Acquire's: the token floor read in the same statement, so that a floor
    // an operator raised applies to the next acquire on every replica, at no
    // extra round trip.
    lockRowFloor: `${locked("repo_id = $1 AND issue = $2")} SELECT l.*, ${floorOf(s)} AS token_floor, ${next} AS next_history FROM l`,
    // An issue with history but no row (one migration 16 found so) brings its
    // head into the row: the row names the latest history row from now on.
    insertFree: `WITH head AS (DELETE FROM ${s}.history_heads WHERE repo_id = $1 AND issue = $2 RETURNING last)
                 INSERT INTO ${s}.leases (repo_id, issue, repo, token, updated_at, last_history)
                 VALUES ($1, $2, $3, 0, $4, (SELECT last FROM head))
                 ON CONFLICT (repo_id, issue) DO NOTHING`,
    lockRows: `${locked("repo_id = $1 AND issue = ANY($2::bigint[])", "ORDER BY issue")} SELECT l.*, ${next} AS next_history FROM l ORDER BY l.issue`,
    linksOf: `SELECT pull FROM ${s}.pull_links WHERE repo_id = $1 AND issue = $2 AND author_id = $3 ORDER BY pull`,
    closedBy: `SELECT issue FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $2 ORDER BY issue`,
    replies: `SELECT count(*)::int AS n, max(replied) AS top FROM ${s}.history
              WHERE repo_id = $1 AND actor_id = $2 AND replied > 0 AND at > $3`,
    claimDelivery: `INSERT INTO ${s}.deliveries (id, result, at) VALUES ($1, '', $2) ON CONFLICT (id) DO NOTHING`,
    getDelivery: `SELECT result FROM ${s}.deliveries WHERE id = $1`,
    // A handoff's second history row of its issue: an id drawn under the row's lock, after the one the lock reserved.
    nextHistory: `SELECT ${next} AS id`,
    line: `SELECT ${PLACE_COLUMNS} FROM ${s}.queue WHERE repo_id = $1 AND issue = $2 AND ended_at IS NULL ORDER BY ${LINE_ORDER}`,

    // With the id its issue's lock reserved, and the issue's latest row before it.
    history: `INSERT INTO ${s}.history
                (id, prev, repo_id, repo, issue, op, outcome, actor_id, actor_login, holder_id, holder_login, token, expires_at, at, delivery,
                 replied, actor_instance, holder_instance)
              OVERRIDING SYSTEM VALUE
              VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
    putLease: `UPDATE ${s}.leases SET repo = $3, holder_id = $4, holder_login = $5, token = $6, acquired_at = $7, expires_at = $8,
                 updated_at = $9, remind_at = $10, reminded = false, pulls = $11, exempt = $12, term_ms = $13, holder_instance = $14,
                 last_history = $15
               WHERE repo_id = $1 AND issue = $2`,
    followLease: `UPDATE ${s}.leases SET expires_at = $3, remind_at = $4, reminded = false, pulls = $5, exempt = $6, term_ms = $7, updated_at = $8,
                    last_history = $9
                  WHERE repo_id = $1 AND issue = $2`,
    free: `UPDATE ${s}.leases SET holder_id = NULL, holder_login = NULL, holder_instance = NULL, expires_at = NULL, remind_at = NULL, reminded = false,
             updated_at = $3, pulls = NULL, exempt = false, term_ms = NULL, last_history = $4
           WHERE repo_id = $1 AND issue = $2`,
    markReminded: `UPDATE ${s}.leases SET reminded = true, updated_at = $3, last_history = $4 WHERE repo_id = $1 AND issue = $2`,
    lastHistory: `UPDATE ${s}.leases SET last_history = $3 WHERE repo_id = $1 AND issue = $2`,
    putHead: `INSERT INTO ${s}.history_heads (repo_id, issue, last) VALUES ($1, $2, $3)
              ON CONFLICT (repo_id, issue) DO UPDATE SET last = EXCLUDED.last`,
    dropHead: `DELETE FROM ${s}.history_heads WHERE repo_id = $1 AND issue = $2`,
    rememberLabels: `INSERT INTO ${s}.lease_labels (repo_id, issue, label, token)
                     SELECT $1, $2, label, $4 FROM unnest($3::text[]) AS label
                     ON CONFLICT (repo_id, issue, label) DO UPDATE SET token = EXCLUDED.token`,
    link: `INSERT INTO ${s}.pull_links (repo_id, pull, issue, author_id) SELECT $1, $2, i, $4 FROM unnest($3::bigint[]) AS i
           ON CONFLICT (repo_id, pull, issue) DO UPDATE SET author_id = excluded.author_id`,
    unlink: `DELETE FROM ${s}.pull_links WHERE repo_id = $1 AND pull = $2 AND issue = ANY($3::bigint[])`,
    putDelivery: `UPDATE ${s}.deliveries SET result = $2 WHERE id = $1`,
    freeDelivery: `DELETE FROM ${s}.deliveries WHERE id = $1`,
    addPlace: `INSERT INTO ${s}.queue (repo_id, issue, holder_id, holder_login, holder_instance, author_first, queued_at, until, ttl_ms, remind_ms, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $7)`,
    // The place keeps its arrival (and so its position); the login follows a rename.
    renewPlace: `UPDATE ${s}.queue SET holder_login = $2, until = $3, ttl_ms = $4, remind_ms = $5, updated_at = $6 WHERE id = $1 AND ended_at IS NULL`,
    endPlaces: `UPDATE ${s}.queue SET ended_at = $2, ended_why = $3, updated_at = $2 WHERE id = ANY($1::bigint[]) AND ended_at IS NULL`,
  };
}
