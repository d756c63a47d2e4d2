/**
 * The operator CLI: reads the ledger the app writes, and ends a lease the
 * way the app would (through the ledger and its outbox). Parsing and
 * dispatch live here; each command's logic is in a file of its own.
 *
 * Grammar: `issue-leases [--database URL] <command> [args] [flags]`, flags
 * anywhere after the program name, parsed strictly per command.
 */
import { parseArgs } from "node:util";
import { DEFAULT_DATABASE_URL } from "../ledger/open-ledger.js";
import { CliError, EXIT, usageError } from "./cli-error.js";
import type { CliIo } from "./cli-io.js";
import { ADOPT_HELP, runAdopt } from "./adopt.js";
import { BACKUP_HELP } from "./backup.js";
import { CHECK_CONFIG_HELP, runCheckConfig } from "./check-config.js";
import { runAgentCli } from "./agent-cli.js";
import { runMcpCli } from "./mcp-cli.js";
import { packageVersion } from "../mcp/package-version.js";
import { AGENT_SUMMARY } from "./agent-help.js";
import { DATABASE_HELP } from "./database-help.js";
import { DOCTOR_HELP, runDoctor } from "./doctor.js";
import { EVENTS_HELP, runEvents, sinceOption } from "./events.js";
import { findRepo } from "./find-repo.js";
import { FORCE_RELEASE_HELP, forceReleaseReason, RELEASE_RENAMED, runForceRelease } from "./force-release.js";
import { HISTORY_HELP, runHistory } from "./history.js";
import { IMPORT_CONFIG_HELP, runImportConfig } from "./import-config.js";
import { LIST_HELP, repoOption, runList } from "./list.js";
import { oneLine, openDatabase } from "./open-database.js";
import { RESTORE_HELP } from "./restore.js";
import { runBackup, runRestore } from "./run-backup-restore.js";
import { runTokenFloor, TOKEN_FLOOR_HELP, tokenFloorRaise } from "./token-floor.js";
import { type IssueRef, parseIssueRef } from "./parse-issue-ref.js";
import { printWebhookKey, repoInstallation, WEBHOOK_KEY_HELP, webhookKeyTarget, webhookSecret } from "./webhook-key.js";


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
    help: LIST_HELP,
  },
  history: { options: { json: { type: "boolean" } }, help: HISTORY_HELP },
  "force-release": { options: { reason: { type: "string" } }, help: FORCE_RELEASE_HELP },
  doctor: { options: { json: { type: "boolean" } }, help: DOCTOR_HELP },
  backup: { options: { force: { type: "boolean" } }, help: BACKUP_HELP },
  restore: { options: { "token-gap": { type: "string" }, "token-floor": { type: "string" } }, help: RESTORE_HELP },
  "token-floor": { options: { gap: { type: "string" }, floor: { type: "string" } }, help: TOKEN_FLOOR_HELP },
  "import-config": { options: { from: { type: "string" } }, help: IMPORT_CONFIG_HELP },
  adopt: { options: { ttl: { type: "string" }, reply: { type: "boolean" }, json: { type: "boolean" } }, help: ADOPT_HELP },
  "check-config": { options: { json: { type: "boolean" } }, help: CHECK_CONFIG_HELP },
  events: { options: { since: { type: "string" }, json: { type: "boolean" } }, help: EVENTS_HELP },
  "webhook-key": { options: { installation: { type: "string" } }, help: WEBHOOK_KEY_HELP },
} satisfies Record<string, CommandSpec>;

type CommandName = keyof typeof COMMANDS;

const COMMAND_NAMES = Object.keys(COMMANDS).join(", ");

const MAIN_HELP = `Usage: issue-leases <command> [options]

Operator tool for the issue-leases GitHub App's lease ledger.

Operator commands (read the database directly):
  list [--repo owner/name] [--holder login] [--json]  live leases
  history owner/name#N [--json]                        every operation on an issue
  events [--since 1h] [--json]                         lease events (acquired, renewed, released, …), oldest first
  force-release owner/name#N --reason "…"              end anyone's lease; the running app updates GitHub
  doctor [--json]                                      check the database and the outbox
  backup FILE [--force]                                copy the SQLite ledger, safely while the app runs
  restore BACKUP [--token-gap N | --token-floor N]     put a backup in place (app stopped); tokens stay unique
  token-floor [--gap N | --floor N]                    after pg_restore: new tenures get tokens above every one issued
  webhook-key owner/name | --installation N            the key that signs an installation's outgoing webhooks

Switching from another claim bot:
  import-config [FILE] [--from BOT]                    print the .github/issue-leases.yml its config amounts to
  adopt owner/name [--ttl D] [--reply] [--json]        leases for the issues already assigned (asks GitHub as the app)

For maintainers of a repository (offline: no database, no network):
  check-config [FILE] [--json]                         check .github/issue-leases.yml before committing it

${AGENT_SUMMARY}

For agent hosts (Claude Code, Codex, VS Code, …):
  mcp [--instance NAME] [--keep-leases]                the lease tools as an MCP server over stdio

Options:
${DATABASE_HELP}
  -h, --help      this help, or a command's own: \`issue-leases <command> --help\`
  --version       the version

Exit codes: 0 ok, 1 failure, 2 usage error, 3 repository or issue not found.
Times are UTC, ISO 8601.`;

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
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

async function run(args: string[], io: CliIo): Promise<number> {
  if (args[0] === "agent") return await runAgentCli(args.slice(1), io);
  // Standard output is the protocol's: mcp writes its help and errors to standard error.
  if (args[0] === "mcp") return await runMcpCli(args.slice(1), { ...io, version: packageVersion() });
  // A first, lenient pass only finds the command: option values are not mistaken for it.
  const allOptions: Record<string, OptionSpec> = { ...GLOBAL_OPTIONS };
  for (const spec of Object.values(COMMANDS)) Object.assign(allOptions, spec.options);
  const { tokens } = parseArgs({ args, options: allOptions, strict: false, allowPositionals: true, tokens: true });
  const first = tokens.find((t) => t.kind === "positional");
  const name = first?.kind === "positional" ? first.value : undefined;

  if (name === undefined || name === "help") {
    const { values, positionals } = strictParse(args, GLOBAL_OPTIONS, null);
    if (values.version) {
      io.out(packageVersion());
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
    io.out(packageVersion());
    return EXIT.ok;
  }

  // Read a file and print: no database, no GitHub.
  if (name === "import-config") return await runImportConfig(positionals, values, io);
  if (name === "check-config") return runCheckConfig(positionals, values, io);

  const url = (typeof values.database === "string" && values.database) || io.env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (name === "backup") return await runBackup(url, positionals, values, io);
  if (name === "restore") return await runRestore(url, positionals, values, io);
  // Asks GitHub first, then opens the database (a typo in the repository's name costs no connection).
  if (name === "adopt") return await runAdopt(url, positionals, values, io);
  if (name === "webhook-key") {
    const target = webhookKeyTarget(positionals, values);
    const secret = webhookSecret(io.env);
    if ("installation" in target) return printWebhookKey(secret, target.installation, io);
    const ledger = await openDatabase(url, io.env);
    try {
      return printWebhookKey(secret, await repoInstallation(ledger, target.repo), io);
    } finally {
      await ledger.close();
    }
  }

  // Arguments are checked before the database is opened: a typo costs no connection.
  let ref: IssueRef | null = null;
  let reason = "";
  if (name === "history" || name === "force-release") ref = issueArg(positionals, name);
  else noArgs(positionals, name);
  if (name === "list") repoOption(values);
  if (name === "events") sinceOption(values);
  const raise = name === "token-floor" ? tokenFloorRaise(values) : null;
  if (name === "force-release") reason = forceReleaseReason(values);

  if (name === "doctor") return await runDoctor(url, values, io);

  const ledger = await openDatabase(url, io.env);
  try {
    switch (name) {
      case "list":
        return await runList(ledger, values, io);
      case "history":
        return await runHistory(ledger, ref!, values, io);
      case "events":
        return await runEvents(ledger, values, io);
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
