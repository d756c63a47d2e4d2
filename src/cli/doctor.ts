/**
 * `issue-leases doctor`: the checks of doctor-checks.ts, printed. A database
 * that cannot be opened is a failed check, not an error.
 */
import type { Ledger } from "../ledger/ledger.js";
import { CliError, EXIT } from "./cli-error.js";
import { DATABASE_HELP } from "./database-help.js";
import { type DoctorReport, doctorChecks, schemaBehindReport } from "./doctor-checks.js";
import { githubCheck } from "./doctor-github.js";
import { describeDatabase, openDatabase, SchemaBehindCliError } from "./open-database.js";
import type { CliIo } from "./cli-io.js";

export const DOCTOR_HELP = `Usage: issue-leases doctor [--json]

Checks that the database answers, that its schema is the latest this
issue-leases knows, how the outbox of effects on GitHub is doing (pending
effects and the age of the oldest, effects parked after repeated failures),
and where GitHub is: with GHE_HOST or GITHUB_API_URL set, that GitHub's REST
API and GraphQL endpoint answer there (a 404 is a wrong address, which parks
every effect). Each check prints ok, warn or fail. Exit 1 if a check fails;
warnings (old pending or parked effects, GitHub not answering) do not fail.

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
  const github = githubCheck(io.env);
  const print = async (report: DoctorReport) => {
    const checks = [...report.checks, await github];
    return printDoctor({ ...report, ok: report.ok && checks.every((c) => c.status !== "fail"), checks }, !!values.json, io);
  };
  let ledger: Ledger;
  try {
    ledger = await openDatabase(url, io.env);
  } catch (err) {
    if (err instanceof SchemaBehindCliError) return print(schemaBehindReport(describeDatabase(url, io.env), err.behind.version));
    if (!(err instanceof CliError)) throw err;
    return print({ ok: false, checks: [{ name: "database", status: "fail", message: err.message }] });
  }
  try {
    return await print(await doctorChecks(ledger, describeDatabase(url, io.env), io.clock()));
  } finally {
    await ledger.close();
  }
}
