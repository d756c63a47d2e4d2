/**
 * `issue-leases doctor`: what an operator wants to know first when leases
 * look wrong on GitHub. A failed check means the app cannot work (exit 1); a
 * warning means GitHub may lag behind the ledger, which the app repairs on
 * its own once the cause is gone.
 */
import type { OutboxStats } from "../ledger/outbox/outbox-types.js";
import type { SchemaVersion, LedgerAdmin, LedgerHealth } from "../ledger/admin/admin-roles.js";
import { formatAge } from "./format-table.js";

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  message: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
  schema?: SchemaVersion;
  outbox?: OutboxStats;
}

/**
 * The drainer takes an effect within a second of it being queued, and backs
 * off for at most five minutes between attempts; an effect pending for longer
 * than this means no app is draining, or GitHub keeps refusing.
 */
export const OLD_PENDING_MS = 15 * 60_000;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What to do about a schema the app has not migrated to this version yet. */
export function schemaBehind(version: SchemaVersion): string {
  return (
    `at schema version ${version.current} of ${version.latest}: start (or restart) the app of this version, ` +
    "which migrates it on start; the CLI never changes the schema"
  );
}

function schemaCheck(schema: SchemaVersion): Check {
  if (schema.current < schema.latest) return { name: "schema", status: "fail", message: schemaBehind(schema) };
  if (schema.current > schema.latest) {
    return {
      name: "schema",
      status: "warn",
      message: `at version ${schema.current}, newer than this issue-leases knows (${schema.latest}): upgrade the CLI`,
    };
  }
  return { name: "schema", status: "ok", message: `at version ${schema.current}, the latest` };
}

/**
 * The report on a database the CLI would not open, its schema being behind:
 * it answered (its version was read), and the other checks need it open.
 */
export function schemaBehindReport(database: string, schema: SchemaVersion): DoctorReport {
  return {
    ok: false,
    checks: [{ name: "database", status: "ok", message: `${database} answers` }, schemaCheck(schema)],
    schema,
  };
}

/** The checks that need an open ledger; `database` describes where it is, for messages. */
export async function doctorChecks(ledger: LedgerHealth & LedgerAdmin, database: string, now: number): Promise<DoctorReport> {
  const checks: Check[] = [];
  const done = (extra: Omit<DoctorReport, "ok" | "checks"> = {}): DoctorReport => ({
    ok: checks.every((c) => c.status !== "fail"),
    checks,
    ...extra,
  });

  if (!(await ledger.ping())) {
    checks.push({ name: "database", status: "fail", message: `${database} does not answer: check DATABASE_URL and the server` });
    return done();
  }
  checks.push({ name: "database", status: "ok", message: `${database} answers` });

  const schema = await ledger.schemaVersion();
  checks.push(schemaCheck(schema));

  const outbox = await ledger.outboxStats();
  const age = outbox.oldestPendingAt === null ? null : now - outbox.oldestPendingAt;
  if (outbox.pending === 0 || age === null) {
    checks.push({ name: "pending", status: "ok", message: "no effects waiting to be applied to GitHub" });
  } else if (age > OLD_PENDING_MS) {
    checks.push({
      name: "pending",
      status: "warn",
      message:
        `${plural(outbox.pending, "effect")} pending, the oldest for ${formatAge(age)}: ` +
        "check that the app is running, and its logs for GitHub errors or rate limits",
    });
  } else {
    checks.push({
      name: "pending",
      status: "ok",
      message: `${plural(outbox.pending, "effect")} pending, the oldest for ${formatAge(age)}`,
    });
  }

  if (outbox.parked > 0) {
    checks.push({
      name: "parked",
      status: "warn",
      message:
        `${plural(outbox.parked, "effect")} parked after repeated failures: the app retries them when it restarts; ` +
        "the outbox table's last_error column says why they failed",
    });
  } else {
    checks.push({ name: "parked", status: "ok", message: "no effects parked" });
  }
  return done({ schema, outbox });
}
