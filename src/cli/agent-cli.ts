/**
 * `issue-leases agent …`: the client commands, for bots and shell agents.
 * They talk to the app's HTTP API through the typed client
 * (@issue-leases/client, in packages/client/), with the caller's GitHub
 * token, and are kept apart from the operator commands that open the
 * database (run-cli.ts): other flags, other exit codes (agent-exit.ts), no
 * .env.
 */
import { parseArgs } from "node:util";
import {
  checkBaseUrl,
  LeaseClient,
  LeaseHeldError,
  LeaseNotHolderError,
  type ParsedRef,
  parseRef,
  type RetryOptions,
  ttlMs,
} from "@issue-leases/client";
import { printAnswer, printMine, printVerify } from "./agent-commands.js";
import { AGENT_EXIT, AgentError, describeError, exitCodeOf } from "./agent-exit.js";
import { AGENT_COMMAND_HELP, AGENT_HELP } from "./agent-help.js";
import { agentRun } from "./agent-run.js";

export interface AgentIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Default the global fetch; tests may give another. */
  fetch?: typeof fetch;
  /** Default the client's; tests may retry sooner. */
  retry?: RetryOptions;
}

type OptionSpec = { type: "string" | "boolean"; short?: string };

const COMMON = {
  url: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} satisfies Record<string, OptionSpec>;

const TTL = { ttl: { type: "string" }, instance: { type: "string" } } satisfies Record<string, OptionSpec>;

const OPTIONS: Record<string, Record<string, OptionSpec>> = {
  claim: { ...COMMON, ...TTL },
  renew: { ...COMMON, ...TTL },
  release: { ...COMMON, instance: { type: "string" } },
  status: COMMON,
  verify: { ...COMMON, token: { type: "string" }, instance: { type: "string" } },
  mine: COMMON,
  run: { ...COMMON, ...TTL, grace: { type: "string" } },
};

const NAMES = Object.keys(OPTIONS).join(", ");

/** How long run's command has to exit after SIGTERM, unless --grace says. */
const DEFAULT_GRACE_MS = 10_000;

function usage(message: string, command?: string): AgentError {
  return new AgentError(`${message}; see \`issue-leases agent ${command ? `${command} ` : ""}--help\``, AGENT_EXIT.usage);
}

/** Runs `issue-leases agent <args>`; returns the exit code. Never throws. */
export async function runAgentCli(args: string[], io: AgentIo): Promise<number> {
  try {
    return await dispatch(args, io);
  } catch (error) {
    io.err(`issue-leases: ${describeError(error)}`);
    return exitCodeOf(error);
  }
}

async function dispatch(args: string[], io: AgentIo): Promise<number> {
  const name = args[0];
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    const topic = name === "help" ? args[1] : undefined;
    if (topic !== undefined && !Object.hasOwn(OPTIONS, topic)) throw usage(`unknown command ${JSON.stringify(topic)}: expected ${NAMES}`);
    if (name === undefined) {
      io.err(AGENT_HELP);
      return AGENT_EXIT.usage;
    }
    io.out(topic ? AGENT_COMMAND_HELP[topic]! : AGENT_HELP);
    return AGENT_EXIT.ok;
  }
  if (!Object.hasOwn(OPTIONS, name)) throw usage(`unknown command ${JSON.stringify(name)}: expected ${NAMES}`);

  // run's own arguments end at `--`; what follows is the command, passed as it is.
  const dash = args.indexOf("--");
  const own = name === "run" && dash >= 0 ? args.slice(1, dash) : args.slice(1);
  const command = name === "run" && dash >= 0 ? args.slice(dash + 1) : [];
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS[name]!, strict: true, allowPositionals: true });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split(/\. (?=[A-Z])/)[0]!.replace(/\.$/, "");
    throw usage(message, name);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (values.help) {
    io.out(AGENT_COMMAND_HELP[name]!);
    return AGENT_EXIT.ok;
  }

  // Every argument is checked before the API is asked anything.
  const positionals = parsed.positionals;
  const fromEnv = name === "verify" ? io.env.ISSUE_LEASES_REF : undefined;
  let ref: ParsedRef | null = null;
  if (name !== "mine") {
    const text = positionals[0] ?? fromEnv;
    if (text === undefined) throw usage(`${name} needs an issue as owner/repo#N`, name);
    ref = issueRef(text);
  }
  const extra = positionals.slice(name === "mine" ? 0 : 1);
  if (extra.length > 0) {
    throw usage(name === "run" ? `put the command after --: issue-leases agent run ${positionals[0]} -- ${extra.join(" ")}` : `unexpected argument ${extra[0]}`, name);
  }
  const ttl = stringOption(values, "ttl");
  if (ttl !== undefined && ttlMs(ttl) === null) throw usage(`--ttl ${JSON.stringify(ttl)} is not a duration: use 30s, 45m, 2h, 3d or 2w`, name);
  const instance = stringOption(values, "instance") ?? (name === "verify" ? io.env.ISSUE_LEASES_INSTANCE : undefined);
  if (instance !== undefined && instance.trim() === "") throw usage("--instance is empty", name);
  let token: number | undefined;
  if (name === "verify") {
    const text = stringOption(values, "token") ?? io.env.ISSUE_LEASES_TOKEN;
    if (text === undefined) throw usage("verify needs --token N (the fencing token you hold)", name);
    if (!/^[1-9]\d{0,14}$/.test(text)) throw usage(`--token ${JSON.stringify(text)} is not a lease token: a whole number from 1`, name);
    token = Number(text);
  }
  let graceMs = DEFAULT_GRACE_MS;
  if (name === "run") {
    if (dash < 0 || command.length === 0) throw usage("run needs a command after --, e.g. issue-leases agent run owner/repo#12 --ttl 30m -- ./agent.sh", name);
    const grace = stringOption(values, "grace");
    if (grace !== undefined) {
      const ms = ttlMs(grace);
      if (ms === null) throw usage(`--grace ${JSON.stringify(grace)} is not a duration: use 5s, 30s or 2m`, name);
      graceMs = ms;
    }
  }

  const client = clientFor(values, io);
  const json = values.json === true;
  switch (name) {
    case "claim":
      return await answerOrConflict(() => client.claim(ref!, { ttl, instance }), json, io);
    case "renew":
      return await answerOrConflict(() => client.renew(ref!, { ttl, instance }), json, io);
    case "release":
      return await answerOrConflict(() => client.release(ref!, { instance }), json, io);
    case "status":
      return await answerOrConflict(() => client.status(ref!), json, io);
    case "verify":
      return printVerify(ref!, token!, await client.verify(ref!, token!, { instance }), json, io);
    case "mine":
      return printMine(await client.mine(), json, io);
    default:
      return await agentRun(client, ref!, { ttl, instance, graceMs, json }, command, io);
  }
}

/** Prints an answer; a 409 (held, not_holder) is printed too with --json, and exits 75 or 76. */
async function answerOrConflict(call: () => Promise<Parameters<typeof printAnswer>[0]>, json: boolean, io: AgentIo): Promise<number> {
  try {
    return printAnswer(await call(), json, io);
  } catch (error) {
    if (json && (error instanceof LeaseHeldError || error instanceof LeaseNotHolderError)) io.out(JSON.stringify(error.lease, null, 2));
    throw error;
  }
}

function issueRef(text: string): ParsedRef {
  try {
    return parseRef(text);
  } catch {
    throw new AgentError(`not an issue: ${JSON.stringify(text.slice(0, 200))}; write it as owner/repo#N, e.g. octo-org/widgets#12`, AGENT_EXIT.usage);
  }
}

function stringOption(values: Record<string, string | boolean | undefined>, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

function clientFor(values: Record<string, string | boolean | undefined>, io: AgentIo): LeaseClient {
  const flag = stringOption(values, "url");
  const url = flag ?? io.env.ISSUE_LEASES_URL;
  if (!url) throw new AgentError("ISSUE_LEASES_URL is not set: set it to the app's URL (e.g. https://leases.example.com), or pass --url", AGENT_EXIT.config);
  const allowHttp = /^(1|true)$/i.test(io.env.ISSUE_LEASES_ALLOW_HTTP?.trim() ?? "");
  let base: URL;
  try {
    base = checkBaseUrl(url, { name: flag === undefined ? "ISSUE_LEASES_URL" : "--url", allowHttp, allowHow: "set ISSUE_LEASES_ALLOW_HTTP=1" });
  } catch (error) {
    throw new AgentError((error as Error).message, AGENT_EXIT.config);
  }
  // gh's order: GH_TOKEN first.
  const token = io.env.GH_TOKEN || io.env.GITHUB_TOKEN;
  if (!token) throw new AgentError("no GitHub token: set GITHUB_TOKEN or GH_TOKEN", AGENT_EXIT.denied);
  return new LeaseClient({ baseUrl: base, allowHttp, token, fetch: io.fetch, retry: io.retry, userAgent: "issue-leases-cli" });
}
