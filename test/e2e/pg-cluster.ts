/**
 * Several real App processes (`probot run`) on one PostgreSQL database, each
 * test on a schema of its own, sharing one fake GitHub; the test plays the
 * load balancer. Shared by the replica and PostgreSQL fault tests.
 */
import pg from "pg";
import { type FakeGitHub, startFakeGitHub } from "../support/fake-github.js";
import { commentPayload, INSTALLATION_ID, REPO, type UserSpec } from "../support/payloads.js";
import { type FreshSchema, freshSchema, TEST_DATABASE_URL } from "../support/pg-schema.js";
import { type ServerProcess, startServer, waitFor } from "../support/server-process.js";
import { runReport } from "./issue-view.js";
import { E2E_WRITES } from "./live-app.js";

export interface Cluster {
  readonly fake: FakeGitHub;
  readonly db: FreshSchema;
  /** Starts a replica on the test's schema; `databaseUrl` defaults to the test database, `github` to the fake. */
  start(env?: Record<string, string>, opts?: { github?: { host: string }; databaseUrl?: string }): Promise<ServerProcess>;
  /** Runs `sql` with `$S` standing for the test's schema. */
  query<R extends pg.QueryResultRow>(sql: string, values?: unknown[]): Promise<R[]>;
  /** Waits until the outbox (shared by all replicas) has no pending effect. */
  settled(server: ServerProcess, timeoutMs?: number): Promise<void>;
}

export async function withCluster(test: (c: Cluster) => Promise<void>): Promise<void> {
  const fake = await startFakeGitHub();
  // The payloads' repository by its id: the node ids webhooks carry (R_…, I_…) name the fake's records.
  fake.addRepo(`${REPO.owner}/${REPO.name}`, { id: REPO.id });
  const db = await freshSchema();
  const servers: ServerProcess[] = [];
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  client.on("error", () => undefined);
  await client.connect();
  const c: Cluster = {
    fake,
    db,
    async start(env = {}, opts = {}) {
      const databaseUrl = opts.databaseUrl ?? db.connectionString;
      const server = await startServer({
        fake: opts.github ?? fake,
        dbFile: databaseUrl,
        // REST unless told otherwise, as live-app.ts says why. Pools of 4: the
        // replica tests run side by side, a dozen processes on one server
        // whose max_connections is 100, and pools of 10 exhausted it.
        env: { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: db.schema, DATABASE_POOL_SIZE: "4", GITHUB_WRITES: E2E_WRITES, ...env },
      });
      servers.push(server);
      return server;
    },
    async query(sql, values = []) {
      return (await client.query(sql.replaceAll("$S", pg.escapeIdentifier(db.schema)), values)).rows;
    },
    async settled(server, timeoutMs = 60_000) {
      await waitFor("an empty outbox", async () => (await server.health()).body.outbox.pending === 0, timeoutMs, 200);
    },
  };
  try {
    await test(c);
  } catch (error) {
    console.log(runReport(fake, servers));
    throw error;
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
    await fake.close();
    await client.end();
    await db.drop();
  }
}

/** An `issue_comment.created` delivery, from installation `installation`. */
export function comment(body: string, author: UserSpec, issue: number, installation = INSTALLATION_ID): Record<string, any> {
  const p = commentPayload({ body, author, issue });
  p.installation = { id: installation, node_id: `I_${installation}` };
  return p;
}

export interface HistoryRow {
  issue: number;
  op: string;
  outcome: string;
  holder_login: string | null;
  token: number | null;
  delivery: string | null;
}

export const historyOf = (c: Cluster, issue: number) =>
  c.query<HistoryRow>("SELECT issue::int AS issue, op, outcome, holder_login, token::int AS token, delivery FROM $S.history WHERE issue = $1 ORDER BY id", [
    issue,
  ]);
