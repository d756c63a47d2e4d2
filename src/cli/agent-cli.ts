/**
 * `issue-leases agent …`: the client commands, for bots and shell agents.
 * They talk to the app's HTTP API through the typed client
 * (@issue-leases/client, in packages/client/), with the caller's GitHub
 * token, and are kept apart from the operator commands that open the
 * database (run-cli.ts): other flags, other exit codes (agent-exit.ts), no
 * .env.
 */
import { parseArgs } from "node:util";
import { LeaseHeldError, LeaseNotHolderError, type ParsedRef, ttlMs } from "@issue-leases/client";
import {
  type AgentIo,
  clientFor,
  durationOption,
  graceMs,
  instanceOption,
  issueRef,
  stringOption,
  usage,
  type Values,
} from "./agent-args.js";
import { printAnswer, printMine, printVerify } from "./agent-commands.js";
import { AGENT_EXIT, describeError, exitCodeOf } from "./agent-exit.js";
import { AGENT_COMMAND_HELP, AGENT_HELP } from "./agent-help.js";
import { agentNext } from "./agent-next.js";
import { agentRun } from "./agent-run.js";
import { waitInLine } from "./agent-wait.js";

export type { AgentIo } from "./agent-args.js";

type OptionSpec = { type: "string" | "boolean"; short?: string; multiple?: boolean };

const COMMON = {
  url: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} satisfies Record<string, OptionSpec>;

const TTL = { ttl: { type: "string" }, instance: { type: "string" } } satisfies Record<string, OptionSpec>;

const OPTIONS: Record<string, Record<string, OptionSpec>> = {
  claim: { ...COMMON, ...TTL, wait: { type: "boolean" }, "wait-timeout": { type: "string" } },
  renew: { ...COMMON, ...TTL },
  release: { ...COMMON, instance: { type: "string" } },
  status: COMMON,
  verify: { ...COMMON, token: { type: "string" }, instance: { type: "string" } },
  mine: COMMON,
  run: { ...COMMON, ...TTL, grace: { type: "string" }, "no-watch": { type: "boolean" } },
  next: {
    ...COMMON,
    ...TTL,
    grace: { type: "string" },
    "no-watch": { type: "boolean" },
    org: { type: "string" },
    label: { type: "string", multiple: true },
    "any-label": { type: "string", multiple: true },
    "exclude-label": { type: "string", multiple: true },
    order: { type: "string", multiple: true },
    milestone: { type: "string" },
  },
};

const NAMES = Object.keys(OPTIONS).join(", ");

/** The commands whose own arguments end at `--`, what follows being a command to run, passed as it is. */
const RUNS = new Set(["run", "next"]);

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

  const dash = RUNS.has(name) ? args.indexOf("--") : -1;
  const own = dash >= 0 ? args.slice(1, dash) : args.slice(1);
  const command = dash >= 0 ? args.slice(dash + 1) : null;
  let parsed;
  try {
    parsed = parseArgs({ args: own, options: OPTIONS[name]!, strict: true, allowPositionals: true });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split(/\. (?=[A-Z])/)[0]!.replace(/\.$/, "");
    throw usage(message, name);
  }
  const values = parsed.values as Values;
  if (values.help) {
    io.out(AGENT_COMMAND_HELP[name]!);
    return AGENT_EXIT.ok;
  }
  if (name === "next") return await agentNext(values, parsed.positionals, command, io);

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
  const ttl = durationOption(values, "ttl", name);
  const instance = instanceOption(values, name, name === "verify" ? io.env.ISSUE_LEASES_INSTANCE : undefined);
  let token: number | undefined;
  if (name === "verify") {
    const text = stringOption(values, "token") ?? io.env.ISSUE_LEASES_TOKEN;
    if (text === undefined) throw usage("verify needs --token N (the fencing token you hold)", name);
    if (!/^[1-9]\d{0,14}$/.test(text)) throw usage(`--token ${JSON.stringify(text)} is not a lease token: a whole number from 1`, name);
    token = Number(text);
  }
  if (name === "run" && (command === null || command.length === 0)) {
    throw usage("run needs a command after --, e.g. issue-leases agent run owner/repo#12 --ttl 30m -- ./agent.sh", name);
  }
  const grace = name === "run" ? graceMs(values, name) : 0;
  // --wait-timeout alone means --wait.
  const waitTimeout = durationOption(values, "wait-timeout", name, "10m, 1h or 1d");
  const wait = values.wait === true || waitTimeout !== undefined;

  const client = clientFor(values, io);
  const json = values.json === true;
  switch (name) {
    case "claim":
      return await answerOrConflict(async () => {
        if (!wait) return await client.claim(ref!, { ttl, instance });
        const got = await waitInLine(client, ref!, { ttl, instance, timeoutMs: waitTimeout === undefined ? undefined : ttlMs(waitTimeout)!, json }, io);
        return "signalled" in got ? got.signalled : got;
      }, json, io);
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
      return await agentRun(client, ref!, { ttl, instance, graceMs: grace, json, watch: values["no-watch"] !== true }, command!, io);
  }
}

/** Prints an answer (or exits with a status given instead); a 409 (held, not_holder) is printed too with --json, and exits 75 or 76. */
async function answerOrConflict(call: () => Promise<Parameters<typeof printAnswer>[0] | number>, json: boolean, io: AgentIo): Promise<number> {
  try {
    const answer = await call();
    return typeof answer === "number" ? answer : printAnswer(answer, json, io);
  } catch (error) {
    if (json && (error instanceof LeaseHeldError || error instanceof LeaseNotHolderError)) io.out(JSON.stringify(error.lease, null, 2));
    throw error;
  }
}
