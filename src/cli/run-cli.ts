/**
 * The operator CLI: reads the ledger the app writes, and ends a lease the
 * way the app would (through the ledger and its outbox). Parsing and
 * dispatch live here; each command's logic is in a file of its own.
 *
 * Grammar: `issue-leases [--database URL] <command> [args] [flags]`, flags
 * anywhere after the program name, parsed strictly per command.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_DATABASE_URL, isPostgresUrl, openLedger, sqlitePath } from "../ledger/open-ledger.js";
import { SchemaBehindError } from "../ledger/schema-behind-error.js";
import type { HistoryEntry, Lease, Ledger, RepoInfo } from "../ledger/types.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import { type DoctorReport, doctorChecks, schemaBehind, schemaBehindReport } from "./doctor-checks.js";
import { formatTable, isoTime } from "./format-table.js";
import { BACKUP_HELP } from "./backup.js";
import { runAgentCli } from "./agent-cli.js";
import { AGENT_SUMMARY } from "./agent-help.js";
import { DATABASE_HELP } from "./database-help.js";
import { FORCE_RELEASE_HELP, forceReleaseReason, RELEASE_RENAMED, runForceRelease } from "./force-release.js";
import { RESTORE_HELP } from "./restore.js";
import { runBackup, runRestore } from "./run-backup-restore.js";
import { runTokenFloor, TOKEN_FLOOR_HELP, tokenFloorRaise } from "./token-floor.js";
import { type IssueRef, parseIssueRef, parseRepoName } from "./parse-issue-ref.js";

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** Milliseconds since the epoch. */
  clock(): number;
  env: NodeJS.ProcessEnv;
}

type OptionSpec = { type: "string" | "boolean"; short?: string };

const GLOBAL_OPTIONS = {
  database: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} satisfies Record<string, OptionSpec>;

interface CommandSpec {
  options: Record<string, OptionSpec>;
  help: string;
}


const COMMANDS = {
  list: {
    options: { repo: { type: "string" }, holder: { type: "string" }, json: { type: "boolean" } },
    help: `Usage: issue-leases list [--repo owner/name] [--holder login] [--json]

Lists the live leases: repository, issue, holder, fencing token, when the
tenure was acquired and when it expires (UTC), ordered by repository and issue.

  --repo owner/name  only this repository (exit 3 if the app never saw it)
  --holder login     only leases held by this GitHub login (case-insensitive)
  --json             a JSON array instead of a table

Database:
${DATABASE_HELP}`,
  },
  history: {
    options: { json: { type: "boolean" } },
    help: `Usage: issue-leases history owner/name#N [--json]

Every operation the ledger recorded on an issue, oldest first: time (UTC), op,
outcome, actor, holder, token, expiry and the webhook delivery it came from.
Exit 3 if the repository or the issue is unknown to the ledger.

  --json  a JSON array instead of a table

Database:
${DATABASE_HELP}`,
  },
  "force-release": { options: { reason: { type: "string" } }, help: FORCE_RELEASE_HELP },
  doctor: {
    options: { json: { type: "boolean" } },
    help: `Usage: issue-leases doctor [--json]

Checks that the database answers, that its schema is the latest this
issue-leases knows, and how the outbox of effects on GitHub is doing (pending
effects and the age of the oldest, effects parked after repeated failures).
Each check prints ok, warn or fail. Exit 1 if a check fails; warnings (old
pending or parked effects) do not fail.

  --json  the checks as JSON

Database:
${DATABASE_HELP}`,
  },
  backup: { options: { force: { type: "boolean" } }, help: BACKUP_HELP },
  restore: { options: { "token-gap": { type: "string" }, "token-floor": { type: "string" } }, help: RESTORE_HELP },
  "token-floor": { options: { gap: { type: "string" }, floor: { type: "string" } }, help: TOKEN_FLOOR_HELP },
} satisfies Record<string, CommandSpec>;

type CommandName = keyof typeof COMMANDS;

const COMMAND_NAMES = Object.keys(COMMANDS).join(", ");

const MAIN_HELP = `Usage: issue-leases <command> [options]

Operator tool for the issue-leases GitHub App's lease ledger.

Operator commands (read the database directly):
  list [--repo owner/name] [--holder login] [--json]  live leases
  history owner/name#N [--json]                        every operation on an issue
  force-release owner/name#N --reason "…"              end anyone's lease; the running app updates GitHub
  doctor [--json]                                      check the database and the outbox
  backup FILE [--force]                                copy the SQLite ledger, safely while the app runs
  restore BACKUP [--token-gap N | --token-floor N]     put a backup in place (app stopped); tokens stay unique
  token-floor [--gap N | --floor N]                    after pg_restore: new tenures get tokens above every one issued

${AGENT_SUMMARY}

Options:
${DATABASE_HELP}
  -h, --help      this help; \`issue-leases <command> --help\` for a command's
  --version       the version

Exit codes: 0 ok, 1 failure, 2 usage error, 3 repository or issue not found.
Times are UTC, ISO 8601.`;

/** Enough of an issue's history for any issue a person works on; the ledger returns the latest ones. */
const HISTORY_LIMIT = 1_000_000;

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function version(): string {
  // dist/src/cli/ once built, src/cli/ under a TypeScript runner: look upwards.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, "utf8")) as { name?: string; version?: string };
      if (pkg.name === "issue-leases") return pkg.version ?? "unknown";
    }
    dir = dirname(dir);
  }
  return "unknown";
}

/** parseArgs's messages name the problem; ours add where to look. */
function parseError(err: unknown, command: string | null): CliError {
  const message = (err instanceof Error ? err.message : String(err)).split(/\. (?=[A-Z])/)[0]!.replace(/\.$/, "");
  const help = command ? `issue-leases ${command} --help` : "issue-leases --help";
  return usageError(`${message}; see \`${help}\``);
}

function strictParse(args: string[], options: Record<string, OptionSpec>, command: string | null) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: true });
  } catch (err) {
    throw parseError(err, command);
  }
}

/** Where the database is, as it may be shown: no password (nor query string, which may carry one). */
function describeDatabase(url: string, env: NodeJS.ProcessEnv): string {
  if (!isPostgresUrl(url)) {
    // Absolute: the operator sees which file was read, whatever directory the CLI ran in.
    const file = sqlitePath(url);
    return file === ":memory:" ? file : resolve(file);
  }
  try {
    const u = new URL(url);
    const schema = env.DATABASE_SCHEMA ? ` schema ${env.DATABASE_SCHEMA}` : "";
    return `${u.protocol}//${u.username ? `${u.username}@` : ""}${u.host}${u.pathname}${schema}`;
  } catch {
    return "the PostgreSQL server in DATABASE_URL";
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** A database whose schema is behind this CLI's: a failure, with what to do about it. */
class SchemaBehindCliError extends CliError {
  constructor(
    where: string,
    readonly behind: SchemaBehindError,
  ) {
    super(`the database at ${where} is ${schemaBehind(behind.version)}`, EXIT.failure);
  }
}

async function open(url: string, env: NodeJS.ProcessEnv): Promise<Ledger> {
  const where = describeDatabase(url, env);
  if (!isPostgresUrl(url)) {
    const file = sqlitePath(url);
    // Opening a missing file would create an empty ledger and answer "no leases": a typo must not look like that.
    if (file !== ":memory:" && !existsSync(file)) {
      throw new CliError(
        `no database at ${file}: check DATABASE_URL or --database (the app creates the file when it first starts)`,
        EXIT.failure,
      );
    }
  }
  try {
    // Not migrating: an older app may be serving this database, and a
    // migration could drop what its statements use.
    return await openLedger(url, { migrate: false });
  } catch (err) {
    if (err instanceof SchemaBehindError) throw new SchemaBehindCliError(where, err);
    const message = oneLine(err instanceof Error ? err.message : String(err));
    // openPostgres already says what to check when the server cannot be reached.
    if (/check DATABASE_URL/.test(message)) throw new CliError(message, EXIT.failure);
    throw new CliError(`cannot open database at ${where} (${message}): check DATABASE_URL or --database`, EXIT.failure);
  }
}

async function findRepo(ledger: Ledger, typed: string): Promise<RepoInfo> {
  const info = await ledger.findRepo(typed);
  if (!info) {
    throw new CliError(
      `unknown repository ${typed}: the app has not seen a command in it (check the spelling, or \`issue-leases list\`)`,
      EXIT.notFound,
    );
  }
  return info;
}

function issueArg(positionals: string[], command: CommandName): IssueRef {
  const [text, ...extra] = positionals;
  if (text === undefined) throw usageError(`${command} needs an issue as owner/name#N; see \`issue-leases ${command} --help\``);
  if (extra.length > 0) throw usageError(`unexpected argument ${extra[0]}; see \`issue-leases ${command} --help\``);
  const ref = parseIssueRef(text);
  if (!ref) throw usageError(`not an issue: ${JSON.stringify(text)}; write it as owner/name#N, e.g. octo-org/octo-repo#12`);
  return ref;
}

function noArgs(positionals: string[], command: CommandName): void {
  if (positionals.length > 0) {
    throw usageError(`unexpected argument ${positionals[0]}; see \`issue-leases ${command} --help\``);
  }
}

function leaseJson(l: Lease) {
  return {
    repo: l.repo,
    repoId: l.repoId,
    issue: l.issue,
    holder: l.holder,
    token: l.token,
    acquiredAt: isoTime(l.acquiredAt),
    expiresAt: isoTime(l.expiresAt),
  };
}

function historyJson(h: HistoryEntry) {
  return {
    id: h.id,
    at: isoTime(h.at),
    op: h.op,
    outcome: h.outcome,
    actor: h.actor,
    holder: h.holder,
    token: h.token,
    expiresAt: isoTime(h.expiresAt),
    delivery: h.delivery,
  };
}

type Values = Record<string, string | boolean | undefined>;

function repoOption(values: Values): string | null {
  if (typeof values.repo !== "string") return null;
  const name = parseRepoName(values.repo);
  if (!name) throw usageError(`not a repository: ${JSON.stringify(values.repo)}; write it as owner/name`);
  return name;
}

async function list(ledger: Ledger, values: Values, io: CliIo): Promise<number> {
  const now = io.clock();
  const repo = repoOption(values);
  let leases: Lease[];
  if (repo !== null) {
    leases = await ledger.list((await findRepo(ledger, repo)).repoId, now);
  } else {
    leases = await ledger.listAll(now);
  }
  if (typeof values.holder === "string") {
    const login = values.holder.replace(/^@/, "").toLowerCase();
    leases = leases.filter((l) => l.holder.login.toLowerCase() === login);
  }
  if (values.json) {
    io.out(JSON.stringify(leases.map(leaseJson), null, 2));
  } else if (leases.length === 0) {
    io.out("no live leases");
  } else {
    io.out(
      formatTable(
        ["REPO", "ISSUE", "HOLDER", "TOKEN", "ACQUIRED", "EXPIRES"],
        leases.map((l) => [
          l.repo,
          `#${l.issue}`,
          l.holder.login,
          String(l.token),
          isoTime(l.acquiredAt)!,
          isoTime(l.expiresAt) ?? "never",
        ]),
      ),
    );
  }
  return EXIT.ok;
}

async function history(ledger: Ledger, ref: IssueRef, values: Values, io: CliIo): Promise<number> {
  const info = await findRepo(ledger, ref.repo);
  const entries = await ledger.history({ repoId: info.repoId, issue: ref.issue }, HISTORY_LIMIT);
  if (entries.length === 0) {
    throw new CliError(
      `no history for ${info.repo}#${ref.issue}: the app has recorded no operation on this issue`,
      EXIT.notFound,
    );
  }
  if (values.json) {
    io.out(JSON.stringify(entries.map(historyJson), null, 2));
    return EXIT.ok;
  }
  const dash = (v: string | number | null | undefined) => (v === null || v === undefined ? "-" : String(v));
  io.out(
    formatTable(
      ["TIME", "OP", "OUTCOME", "ACTOR", "HOLDER", "TOKEN", "EXPIRES", "DELIVERY"],
      entries.map((h) => [
        isoTime(h.at)!,
        h.op,
        h.outcome,
        dash(h.actor?.login),
        dash(h.holder?.login),
        dash(h.token),
        // A lease's expiry null is open-ended; an entry without a lease has none.
        h.token === null ? "-" : (isoTime(h.expiresAt) ?? "never"),
        dash(h.delivery),
      ]),
    ),
  );
  return EXIT.ok;
}

function printDoctor(report: DoctorReport, json: boolean, io: CliIo): number {
  if (json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    const width = Math.max(...report.checks.map((c) => c.name.length));
    for (const c of report.checks) io.out(`${c.status.padEnd(4)}  ${c.name.padEnd(width)}  ${c.message}`);
  }
  return report.ok ? EXIT.ok : EXIT.failure;
}

async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === "agent") return await runAgentCli(args.slice(1), io);
  // A first, lenient pass only finds the command: option values are not mistaken for it.
  const allOptions: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS };
  for (const spec of Object.values(COMMANDS)) Object.assign(allOptions, spec.options);
  const { tokens } = parseArgs({ args, options: allOptions, strict: false, allowPositionals: true, tokens: true });
  const first = tokens.find((t) => t.kind === "positional");
  const name = first?.kind === "positional" ? first.value : undefined;

  if (name === undefined || name === "help") {
    const { values, positionals } = strictParse(args, GLOBAL_OPTIONS, null);
    if (values.version) {
      io.out(version());
      return EXIT.ok;
    }
    if (name === "help") {
      const topic = positionals[1];
      if (topic === undefined) io.out(MAIN_HELP);
      else if (topic === "release") throw usageError(RELEASE_RENAMED);
      else if (isCommand(topic)) io.out(COMMANDS[topic].help);
      else throw usageError(`unknown command ${JSON.stringify(topic)}: expected ${COMMAND_NAMES}`);
      return EXIT.ok;
    }
    if (values.help) {
      io.out(MAIN_HELP);
      return EXIT.ok;
    }
    io.err(MAIN_HELP);
    return EXIT.usage;
  }
  if (name === "release") throw usageError(RELEASE_RENAMED);
  if (!isCommand(name)) {
    throw usageError(
      `unknown command ${JSON.stringify(name)}: expected ${COMMAND_NAMES}; see \`issue-leases --help\``,
    );
  }

  const spec: CommandSpec = COMMANDS[name];
  const { values, positionals: all } = strictParse(args, { ...GLOBAL_OPTIONS, ...spec.options }, name);
  const positionals = all.slice(1);
  if (values.help) {
    io.out(spec.help);
    return EXIT.ok;
  }
  if (values.version) {
    io.out(version());
    return EXIT.ok;
  }

  const url = (typeof values.database === "string" && values.database) || io.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (name === "backup") return await runBackup(url, positionals, values, io);
  if (name === "restore") return await runRestore(url, positionals, values, io);

  // Arguments are checked before the database is opened: a typo costs no connection.
  let ref: IssueRef | null = null;
  let reason = "";
  if (name === "history" || name === "force-release") ref = issueArg(positionals, name);
  else noArgs(positionals, name);
  if (name === "list") repoOption(values);
  const raise = name === "token-floor" ? tokenFloorRaise(values) : null;
  if (name === "force-release") reason = forceReleaseReason(values);

  if (name === "doctor") {
    let ledger: Ledger;
    try {
      ledger = await open(url, io.env);
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

  const ledger = await open(url, io.env);
  try {
    switch (name) {
      case "list":
        return await list(ledger, values, io);
      case "history":
        return await history(ledger, ref!, values, io);
      case "force-release":
        return await runForceRelease(ledger, await findRepo(ledger, ref!.repo), ref!.issue, reason, io);
      case "token-floor":
        return await runTokenFloor(ledger, raise!, io);
    }
  } finally {
    await ledger.close();
  }
}

/** Runs the CLI on `args` (without the program name); returns the exit code. Never throws. */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  try {
    return await run(args, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`issue-leases: ${err.message}`);
      return err.exitCode;
    }
    // A database failing mid-command: its message, not a stack trace.
    io.err(`issue-leases: ${oneLine(err instanceof Error ? err.message : String(err))}`);
    return EXIT.failure;
  }
}
