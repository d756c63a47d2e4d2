/**
 * `issue-leases agent next owner/repo [filters] [-- COMMAND {issue}…]`: the
 * next ready issue, taken in one call (`LeaseClient.next`). With a command
 * it is `agent run` on that issue (agent-run.ts: the same heartbeat,
 * stopping and release); without one it prints the lease, as `agent claim`
 * does, and leaves it held. Nothing ready exits 66 with how many issues
 * matched and how many of them are held.
 */
import { type NextFilters, type NextScope, NothingReadyError } from "@issue-leases/client";
import {
  type AgentIo,
  clientFor,
  durationOption,
  graceMs,
  instanceOption,
  listOption,
  stringOption,
  usage,
  type Values,
} from "./agent-args.js";
import { printAnswer } from "./agent-commands.js";
import { AGENT_EXIT } from "./agent-exit.js";
import { agentRunNext } from "./agent-run.js";

const REPO = /^([^/#\s]+)\/([^/#\s]+)$/;

export async function agentNext(values: Values, positionals: string[], command: string[] | null, io: AgentIo): Promise<number> {
  const org = stringOption(values, "org");
  let scope: NextScope;
  let name: string;
  if (org !== undefined) {
    if (positionals.length > 0) throw usage(`give owner/repo or --org, not both (${positionals[0]})`, "next");
    scope = { org };
    name = `${org}'s repositories`;
  } else {
    const text = positionals[0];
    if (text === undefined) throw usage("next needs a repository as owner/repo (or --org OWNER)", "next");
    const m = REPO.exec(text);
    if (!m) throw usage(`not a repository: ${JSON.stringify(text.slice(0, 200))}; write it as owner/repo, e.g. octo-org/widgets`, "next");
    scope = { owner: m[1]!, repo: m[2]! };
    name = text;
  }
  const extra = positionals.slice(org === undefined ? 1 : 0);
  if (extra.length > 0) throw usage(`put the command after --: issue-leases agent next ${positionals[0]} -- ${extra.join(" ")}`, "next");
  if (command !== null && command.length === 0) throw usage("next needs a command after --, e.g. issue-leases agent next octo-org/widgets -- ./agent.sh {issue}", "next");

  const filters: NextFilters = {};
  const lists = [
    ["label", "labels"],
    ["any-label", "anyLabels"],
    ["exclude-label", "excludeLabels"],
    ["order", "order"],
  ] as const;
  for (const [flag, field] of lists) {
    const value = listOption(values, flag, "next");
    if (value !== undefined) filters[field] = value;
  }
  const milestone = stringOption(values, "milestone");
  if (milestone !== undefined) {
    if (milestone.trim() === "") throw usage("--milestone is empty", "next");
    filters.milestone = milestone;
  }
  const ttl = durationOption(values, "ttl", "next");
  const instance = instanceOption(values, "next");
  const grace = graceMs(values, "next");
  const json = values.json === true;

  const client = clientFor(values, io);
  try {
    if (command === null) return printAnswer(await client.next(scope, filters, { ttl, instance }), json, io);
    return await agentRunNext(client, scope, filters, { ttl, instance, graceMs: grace, json, watch: values["no-watch"] !== true }, command, io);
  } catch (error) {
    if (!(error instanceof NothingReadyError)) throw error;
    if (json) io.out(JSON.stringify(error.body, null, 2));
    const issues = error.matched === 1 ? "issue matches" : "issues match";
    io.err(`issue-leases: nothing ready in ${name}: ${error.matched} open ${issues} the filters, ${error.held} of them held`);
    return AGENT_EXIT.nothing_ready;
  }
}
