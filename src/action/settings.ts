/**
 * The action's inputs (action.yml), read and checked before the API is asked
 * anything: a mistake is one error naming the input and what to write. And
 * the client they make.
 */
import { createHash, randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { checkBaseUrl, LeaseClient, type ParsedRef, parseRef, ttlMs } from "@issue-leases/client";
import type { SettingNames } from "../cli/agent-exit.js";
import { input, type RunnerIo } from "./runner.js";

/** What a failure's fix names: the action's inputs. */
export const ACTION_NAMES: SettingNames = { url: "the url input", token: "the token input" };

/** Where the app is and who calls it: what the post step needs too. */
export interface Connection {
  url: URL;
  allowHttp: boolean;
  /** The GitHub token the API is called with. */
  token: string;
}

export interface ActionSettings extends Connection {
  ref: ParsedRef;
  ttl: string | undefined;
  instance: string;
  /** How long to wait for a held issue to be free; 0: fail at once. */
  waitMs: number;
  /** A shell command to run under the lease; null: claim now, release in the post step. */
  command: string | null;
  graceMs: number;
  /** With a command: watch the event stream for the lease's end (`watch: false`: renewals alone). */
  watch: boolean;
}

/** A mistake in the step's inputs (or its event): the step fails with this message. */
export class InputError extends Error {
  override name = "InputError";
}

const DEFAULT_GRACE_MS = 10_000;

export function readConnection(io: RunnerIo): Connection {
  const allowHttp = booleanInput(io, "allow-http");
  const urlText = input(io, "url");
  if (urlText === "") throw new InputError("the url input is empty: set it to the issue-leases app's URL, e.g. https://leases.example.com");
  let url: URL;
  try {
    url = checkBaseUrl(urlText, { name: "the url input", allowHttp, allowHow: "set allow-http: true" });
  } catch (error) {
    throw new InputError((error as Error).message);
  }
  const token = input(io, "token");
  if (token === "") throw new InputError("the token input is empty: leave it out for the workflow's GITHUB_TOKEN, or pass one, e.g. token: ${{ secrets.BOT_TOKEN }}");
  return { url, allowHttp, token };
}

export function clientFor(connection: Connection): LeaseClient {
  return new LeaseClient({ baseUrl: connection.url, allowHttp: connection.allowHttp, token: connection.token, userAgent: "issue-leases-action" });
}

export function readSettings(io: RunnerIo): ActionSettings {
  const connection = readConnection(io);
  const ttl = input(io, "ttl") || undefined;
  if (ttl !== undefined && ttlMs(ttl) === null) throw new InputError(`ttl ${JSON.stringify(ttl.slice(0, 200))} is not a duration: use 30s, 45m, 2h, 3d or 2w`);
  const command = input(io, "command");
  return {
    ...connection,
    ref: issueRef(io),
    ttl,
    instance: input(io, "instance") || defaultInstance(io.env),
    waitMs: duration(io, "wait", 0),
    command: command === "" ? null : command,
    graceMs: duration(io, "grace", DEFAULT_GRACE_MS),
    watch: booleanInput(io, "watch", true),
  };
}

/**
 * The issue: the `issue` input as `owner/repo#N`, or `N` (or `#N`) in the
 * workflow's repository; without it, the issue of the event that started the
 * workflow (`issues`, `issue_comment`).
 */
function issueRef(io: RunnerIo): ParsedRef {
  const text = input(io, "issue");
  const repository = io.env.GITHUB_REPOSITORY ?? "";
  if (text !== "") {
    const number = /^#?(\d{1,15})$/.exec(text);
    try {
      return parseRef(number ? `${repository}#${number[1]}` : text);
    } catch {
      throw new InputError(`issue ${JSON.stringify(text.slice(0, 200))} is not an issue: write owner/repo#N, or N for an issue of ${repository || "this repository"}`);
    }
  }
  const path = io.env.GITHUB_EVENT_PATH;
  const event = io.env.GITHUB_EVENT_NAME ?? "this event";
  let payload: { issue?: { number?: unknown }; repository?: { full_name?: unknown } };
  try {
    payload = JSON.parse(readFileSync(path ?? "", "utf8")) as typeof payload;
  } catch {
    throw new InputError("the issue input is empty and the event's payload (GITHUB_EVENT_PATH) cannot be read: set issue, e.g. issue: 12");
  }
  const number = payload?.issue?.number;
  const repo = typeof payload?.repository?.full_name === "string" ? payload.repository.full_name : repository;
  if (typeof number !== "number") throw new InputError(`the issue input is empty and ${event} is not about an issue: set issue, e.g. issue: 12 or owner/repo#12`);
  try {
    return parseRef(`${repo}#${number}`);
  } catch {
    throw new InputError(`the event's issue ${JSON.stringify(`${repo}#${number}`)} is not an issue: set the issue input`);
  }
}

/**
 * One holder per job step: every workflow of a repository calls with the
 * same GITHUB_TOKEN account (github-actions[bot]), and two holders of one
 * account are told apart by their instance only. The run, its attempt, and
 * the job, runner and step hashed (matrix jobs share a job id but not a
 * runner); at most 40 characters, as the API takes.
 */
function defaultInstance(env: NodeJS.ProcessEnv): string {
  const run = env.GITHUB_RUN_ID;
  if (!run || !/^\d{1,20}$/.test(run)) return `gha-${randomUUID().slice(0, 13)}`;
  const attempt = /^\d{1,4}$/.test(env.GITHUB_RUN_ATTEMPT ?? "") ? env.GITHUB_RUN_ATTEMPT : "1";
  const where = createHash("sha256").update(`${env.GITHUB_JOB ?? ""}\n${env.RUNNER_NAME ?? ""}\n${env.GITHUB_ACTION ?? ""}`).digest("hex").slice(0, 8);
  return `gha-${run}-${attempt}-${where}`;
}

/** A duration input (`30s`, `10m`, or `0`); `fallback` when it is not given. */
function duration(io: RunnerIo, name: string, fallback: number): number {
  const text = input(io, name);
  if (text === "") return fallback;
  if (text === "0") return 0;
  const ms = ttlMs(text);
  if (ms === null) throw new InputError(`${name} ${JSON.stringify(text.slice(0, 200))} is not a duration: use 30s, 10m or 1h`);
  return ms;
}

/** YAML 1.2's core booleans, as @actions/core's getBooleanInput takes them; `fallback` when it is not given. */
function booleanInput(io: RunnerIo, name: string, fallback = false): boolean {
  const text = input(io, name);
  if (text === "") return fallback;
  if (["false", "False", "FALSE"].includes(text)) return false;
  if (["true", "True", "TRUE"].includes(text)) return true;
  throw new InputError(`${name} ${JSON.stringify(text.slice(0, 200))} is not a boolean: write true or false`);
}
