/**
 * `GET /health`: whether the database answers, how deep the outbox is and how
 * old its oldest pending effect, parked failures, and when the sweeper last
 * ran. 503 when the database does not answer; `"status": "degraded"`, with
 * the `problems` and what to fix, when GitHub's 404s say the app's address
 * for GitHub is wrong. No secrets, no user data.
 */
import type { LedgerHealth } from "../ledger/admin/admin-roles.js";
import type { Drainer } from "../outbox/drainer.js";
import type { Sweeper } from "../leasing/sweeper.js";

export async function healthReport(deps: {
  ledger: LedgerHealth;
  drainer: Drainer;
  sweeper: Sweeper;
  clock: () => number;
}): Promise<{ ok: boolean; body: Record<string, unknown> }> {
  const now = deps.clock();
  const database = await deps.ledger.ping();
  let outbox: Record<string, unknown> = { pending: null, parked: null, oldest_pending_age_ms: null };
  if (database) {
    try {
      const s = await deps.ledger.outboxStats();
      outbox = {
        pending: s.pending,
        parked: s.parked,
        oldest_pending_age_ms: s.oldestPendingAt === null ? null : Math.max(0, now - s.oldestPendingAt),
      };
    } catch {
      // Reported through `database: false` below on the next ping.
    }
  }
  const last = deps.sweeper.lastSweep;
  // Still 200: commands are recorded, and the effects wait (parked) for the address to be fixed and the app restarted.
  const github = deps.drainer.problems().map((p) => ({ problem: p.problem, since: new Date(p.since).toISOString(), parked: p.parked }));
  return {
    ok: database,
    body: {
      status: !database ? "database unreachable" : github.length > 0 ? "degraded" : "ok",
      ...(github.length > 0 ? { problems: github } : {}),
      database,
      outbox: { ...outbox, paused_installations: deps.drainer.paused(now).length },
      last_sweep: last ? { at: new Date(last.at).toISOString(), expired: last.expired, reminded: last.reminded } : null,
    },
  };
}
