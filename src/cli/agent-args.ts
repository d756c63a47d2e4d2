/**
 * What every `issue-leases agent …` command reads from its arguments and
 * environment, checked before the API is asked anything: the durations,
 * the instance, and the client (ISSUE_LEASES_URL, the GitHub token).
 */
import { checkBaseUrl, LeaseClient, type ParsedRef, parseRef, type RetryOptions, ttlMs } from "@issue-leases/client";
import { AGENT_EXIT, AgentError } from "./agent-exit.js";

export type Values = Record<string, string | boolean | string[] | undefined>;

export interface AgentIo {
  out(text: string): void;
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** Default the global fetch; tests may give another. */
  fetch?: typeof fetch;
  /** Default the client's; tests may retry sooner. */
  retry?: RetryOptions;
}

/** How long run's (and next's) command has to exit after SIGTERM, unless --grace says. */
const DEFAULT_GRACE_MS = 10_000;

export function usage(message: string, command?: string): AgentError {
  return new AgentError(`${message}; see \`issue-leases agent ${command ? `${command} ` : ""}--help\``, AGENT_EXIT.usage);
}

export function stringOption(values: Values, name: string): string | undefined {
  const value = values[name];
  return typeof value === "string" ? value : undefined;
}

/** A repeatable option's values (`--label a --label b`); none: undefined. */
export function listOption(values: Values, name: string, command: string): string[] | undefined {
  const value = values[name];
  if (!Array.isArray(value) || value.length === 0) return undefined;
  if (value.some((v) => v.trim() === "")) throw usage(`--${name} is empty`, command);
  return value;
}

export function issueRef(text: string): ParsedRef {
  try {
    return parseRef(text);
  } catch {
    throw new AgentError(`not an issue: ${JSON.stringify(text.slice(0, 200))}; write it as owner/repo#N, e.g. octo-org/widgets#12`, AGENT_EXIT.usage);
  }
}

/** A duration option, checked; `what` says which forms to suggest. */
export function durationOption(values: Values, name: string, command: string, what = "30s, 45m, 2h, 3d or 2w"): string | undefined {
  const text = stringOption(values, name);
  if (text !== undefined && ttlMs(text) === null) throw usage(`--${name} ${JSON.stringify(text)} is not a duration: use ${what}`, command);
  return text;
}

export function graceMs(values: Values, command: string): number {
  const grace = durationOption(values, "grace", command, "5s, 30s or 2m");
  return grace === undefined ? DEFAULT_GRACE_MS : ttlMs(grace)!;
}

export function instanceOption(values: Values, command: string, fallback?: string): string | undefined {
  const instance = stringOption(values, "instance") ?? fallback;
  if (instance !== undefined && instance.trim() === "") throw usage("--instance is empty", command);
  return instance;
}

export function clientFor(values: Values, io: AgentIo): LeaseClient {
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
