/**
 * `issue-leases doctor`: the checks of doctor-checks.ts, printed. A database
 * that cannot be opened is a failed check, not an error.
 */
import type { Ledger } from "../ledger/roles.js";
import { CliError, EXIT } from "./cli-error.js";
import { DATABASE_HELP } from "./database-help.js";
import { type DoctorReport, doctorChecks, schemaBehindReport } from "./doctor-checks.js";
import { describeDatabase, openDatabase, SchemaBehindCliError } from "./open-database.js";
import type { CliIo } from "./cli-io.js";

export const DOCTOR_HELP = `Usage: issue-leases doctor [--json]

Checks that the database answers, that its schema is the latest this
issue-leases knows, and how the outbox of effects on GitHub is doing (pending
effects and the age of the oldest, effects parked after repeated failures).
Each check prints ok, warn or fail. Exit 1 if a check fails; warnings (old
pending or parked effects) do not fail.

  --json  the checks as JSON

Database:
${DATABASE_HELP}`;

function printDoctor(report: DoctorReport, json: boolean, io: CliIo): number {
  if (json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    const width = Math.max(...report.checks.map((c) => c.name.length));
    for (const c of report.checks) io.out(`${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.message}`);
  }
  return report.ok ? EXIT.ok : EXIT.failure;
}

type Values = Record<string, string | boolean | undefined>;

export async function runDoctor(url: string, values: Values, io: CliIo): Promise<number> {
  let ledger: Ledger;
  try {
    ledger = await openDatabase(url, io.env);
  } catch (err) {
    if (err instanceof SchemaBehindCliError) {
      return printDoctor(schemaBehindReport(describeDatabase(url, io.env), err.behind.version), !!values.json, io);
    }
    if (!(err instanceof CliError)) throw err;
    return printDoctor({ ok: false, checks: [{ name: "database", status: "fail", message: err.message }] }, !!values.json, io);
  }
  try {
    return printDoctor(await doctorChecks(ledger, describeDatabase(url, io.env), io.clock()), !!values.json, io);
  } finally {
    await ledger.close();
  }
}
