/**
 * `issue-leases agent run owner/repo#N -- COMMAND…`: a shell agent's work
 * under a lease. The lease is held with the client's `withLease` (claim,
 * heartbeat, release); COMMAND runs as a child in a process group of its
 * own with the fencing token in its environment, and is stopped (SIGTERM to
 * the group, SIGKILL after the grace period) as soon as the lease is lost:
 * withLease watches the app's event stream for its end (unless --no-watch),
 * and renewals notice it too.
 * run exits with COMMAND's status, or 76 when the lease was lost.
 * `agent next … -- COMMAND` is the same, on the issue `next` takes.
 */
import { spawn } from "node:child_process";
import { constants } from "node:os";
import {
  formatRef,
  type HeldLease,
  type LeaseAnswer,
  type LeaseClient,
  LeaseLostError,
  type NextFilters,
  type NextScope,
  type ParsedRef,
  type WatchState,
  type WithLeaseOptions,
} from "@issue-leases/client";
import { holderText } from "./agent-commands.js";
import { AGENT_EXIT, describeError, type SettingNames } from "./agent-exit.js";

export interface RunOptions {
  ttl: string | undefined;
  instance: string | undefined;
  graceMs: number;
  json: boolean;
  /** Watch the app's event stream for the lease's end (`--no-watch`: false); default true. */
  watch?: boolean;
}

interface RunIo {
  err(text: string): void;
  env: NodeJS.ProcessEnv;
  /** What a failure's fix names; default the CLI's variables. */
  names?: SettingNames;
  /** Told of each event as it is printed (the GitHub Action keeps the lease's token, and whether it was lost). */
  onEvent?(event: RunEvent, fields: Record<string, unknown>): void;
}

/**
 * What `run --json` prints on stderr, one JSON line each (`{"event", "issue",
 * …}`), and what each means: the help lists them from here, so that it names
 * exactly the events run prints.
 */
export const RUN_EVENTS = {
  acquired: "the lease is held (\"lease\": the API's answer); COMMAND starts",
  not_started: "COMMAND could not be run (\"status\" 127 or 126, \"error\")",
  exited: "COMMAND exited (\"status\"); the lease is released",
  lost: "the lease was lost (\"reason\", \"token\"); COMMAND is stopped",
  renew_failed: "a renewal failed (\"error\"); it is tried again until the expiry",
  release_failed: "the release failed (\"error\"); the lease ends at its expiry",
} as const;

export type RunEvent = keyof typeof RUN_EVENTS;

/** Signals run passes on to the command; before it runs, they end the run (and its claim) instead. */
const FORWARDED: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];

const statusOf = (signal: NodeJS.Signals) => 128 + (constants.signals[signal] ?? 0);

export function agentRun(client: LeaseClient, ref: ParsedRef, options: RunOptions, command: string[], io: RunIo): Promise<number> {
  return runHeld((o, fn) => client.withLease(ref, o, fn), formatRef(ref), options, () => command, io);
}

/**
 * `agent next … -- COMMAND`: as `agent run`, on the issue `next` takes;
 * `{issue}` in COMMAND's arguments is its number. Rejects with
 * `NothingReadyError`, running nothing, when no issue is free.
 */
export function agentRunNext(
  client: LeaseClient,
  scope: NextScope,
  filters: NextFilters,
  options: RunOptions,
  command: string[],
  io: RunIo,
): Promise<number> {
  const withIssue = (issue: number) => command.map((arg) => arg.replaceAll("{issue}", String(issue)));
  return runHeld((o, fn) => client.withNextLease(scope, filters, o, fn), null, options, withIssue, io);
}

/** How the lease is held: `withLease` of one issue, or `withNextLease`. */
type Hold = (options: WithLeaseOptions, fn: (lease: HeldLease, signal: AbortSignal) => Promise<number>) => Promise<number>;

/** Holds the lease with `hold` while the command runs; `ref` names the issue, or null to name it as the lease does (next's). */
async function runHeld(hold: Hold, ref: string | null, options: RunOptions, commandFor: (issue: number) => string[], io: RunIo): Promise<number> {
  // Every event is told once the lease is held, so that `name` is known by then.
  let name = ref ?? "";
  let command: string[] = [];
  const say = (event: RunEvent, text: string, fields: Record<string, unknown> = {}) => {
    io.err(options.json ? JSON.stringify({ event, issue: name, ...fields }) : `issue-leases: ${text}`);
    io.onEvent?.(event, fields);
  };

  // From the start: a signal during the claim lets the claim finish, runs
  // nothing and releases, rather than leave a lease nobody releases.
  let received: NodeJS.Signals | null = null;
  let forward: ((signal: NodeJS.Signals) => void) | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (forward) return forward(signal);
    received ??= signal;
  };
  for (const s of FORWARDED) process.on(s, onSignal);

  // The watch is silent but for a debug log: without the stream, renewals notice as they always did.
  const debug = /^(1|true)$/i.test(io.env.ISSUE_LEASES_DEBUG?.trim() ?? "");
  try {
    return await hold(
      {
        ttl: options.ttl,
        instance: options.instance,
        watch: options.watch !== false,
        ...(debug ? { onWatch: (state: WatchState) => io.err(debugLine(watchText(state, name), name, options.json)) } : {}),
        onError: (error, during) =>
          say(
            `${during}_failed`,
            `${during === "renew" ? "renewing" : "releasing"} ${name} failed: ${describeError(error, io.names)}${
              during === "renew" ? "; trying again until it expires" : "; it ends at its expiry"
            }`,
            { error: describeError(error, io.names) },
          ),
      },
      async (lease, signal) => {
        name = ref ?? `${lease.repo}#${lease.issue}`;
        command = commandFor(lease.issue);
        // Interrupted before the command ran: as a shell reports a signal.
        if (received) return statusOf(received);
        say("acquired", `${name} is yours: token ${lease.token}, ${lease.expires_at ? `expires ${lease.expires_at}` : "open-ended"}; running ${command[0]}`, {
          lease,
        });
        const child = startChild(command, childEnv(io.env, name, lease, options.instance), options.graceMs, (why, code) =>
          say("not_started", `cannot run ${command[0]}: ${why}`, { status: code, error: why }),
        );
        forward = child.stop;
        const onLost = () => child.stop("SIGTERM");
        signal.addEventListener("abort", onLost, { once: true });
        if (signal.aborted) onLost();
        const status = await child.status;
        signal.removeEventListener("abort", onLost);
        forward = null;
        if (child.started() && (!signal.aborted || received)) say("exited", `${command[0]} exited with status ${status}; releasing ${name}`, { status });
        return status;
      },
    );
  } catch (error) {
    if (error instanceof LeaseLostError) {
      const cause = error.cause instanceof Error && "lease" in error.cause ? (error.cause as { lease: LeaseAnswer }).lease : null;
      const now = cause?.holder ? ` (now held by ${holderText(cause)} with token ${cause.token})` : "";
      say("lost", `${error.message}${now}; stopped ${command[0]}`, { reason: error.reason, token: error.token });
      return AGENT_EXIT.lost;
    }
    throw error;
  } finally {
    for (const s of FORWARDED) process.off(s, onSignal);
  }
}

/** A debug line: with --json, a JSON line with no "event" (it is none of run's events), so that every line still parses. */
function debugLine(text: string, name: string, json: boolean): string {
  return json ? JSON.stringify({ debug: text, issue: name }) : `issue-leases: debug: ${text}`;
}

/** What the watch of `name`'s events is doing, for a debug line. */
function watchText(state: WatchState, name: string): string {
  if (state.state === "open") return `watching ${name}'s lease events${state.resumed ? " again, from the last one seen" : ""}`;
  const again = Math.max(1, Math.round(state.retryInMs / 1000));
  // The error as it is: describeError's hints are about the lease API's answers, not the stream's.
  const error = state.error instanceof Error ? state.error : new Error(String(state.error));
  const cause = error.cause instanceof Error ? ` (${(error.cause as { code?: string }).code ?? error.cause.message})` : "";
  return `the event stream is down (${error.message}${cause}): renewals alone notice a lost lease; trying it again in ${again} s`;
}

function childEnv(env: NodeJS.ProcessEnv, name: string, lease: LeaseAnswer, instance: string | undefined): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, ISSUE_LEASES_TOKEN: String(lease.token), ISSUE_LEASES_REF: name, ISSUE_LEASES_ISSUE: String(lease.issue) };
  // A stale one from an outer run must not leak into this one.
  delete out.ISSUE_LEASES_INSTANCE;
  if (instance !== undefined) out.ISSUE_LEASES_INSTANCE = instance;
  return out;
}

function groupAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

interface RunningChild {
  /** The exit status: 128+N for a signal, 127 when not found, 126 when it cannot be executed. */
  status: Promise<number>;
  /** Sends `signal` to the command's group, then SIGKILL after the grace period; a second call kills at once. */
  stop(signal: NodeJS.Signals): void;
  /** Whether the command ran at all (it may not be found). */
  started(): boolean;
}

function startChild(command: string[], env: NodeJS.ProcessEnv, graceMs: number, notStarted: (why: string, status: number) => void): RunningChild {
  // detached: a process group (and session) of its own, so that the whole group can be signalled.
  const child = spawn(command[0]!, command.slice(1), { stdio: "inherit", env, detached: true });
  let killTimer: NodeJS.Timeout | undefined;
  let stopping = false;
  let exited = false;

  const signalGroup = (signal: NodeJS.Signals) => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      // The group is gone already.
    }
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second request (a second Ctrl-C): no more grace.
      signalGroup("SIGKILL");
      return;
    }
    stopping = true;
    signalGroup(signal);
    killTimer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
  };

  const status = new Promise<number>((resolve) => {
    const finish = (code: number) => {
      if (exited) return;
      exited = true;
      // What a stopped command started may outlive it: while its group has members, they get the rest of the grace, then SIGKILL.
      if (!stopping || !groupAlive(child.pid)) clearTimeout(killTimer);
      resolve(code);
    };
    child.once("error", (error: NodeJS.ErrnoException) => {
      const code = error.code === "ENOENT" ? 127 : 126;
      notStarted(error.code === "ENOENT" ? "not found" : error.message, code);
      finish(code);
    });
    child.once("exit", (code, signal) => finish(code ?? (signal ? statusOf(signal) : 1)));
  });
  return { status, stop, started: () => child.pid !== undefined };
}
