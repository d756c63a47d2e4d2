/**
 * The action's main step (action.yml's `main:`).
 *
 * Without `command`, it claims the issue, writes the outputs (`token`,
 * `expires_at`, `issue`, `instance`) for the job's later steps, and saves in
 * the step's state what the post step needs to release the lease when the
 * job ends, whether those steps passed or failed. Nothing renews the lease
 * between steps: its `ttl` must cover them.
 *
 * With `command`, the command runs under the lease as `issue-leases agent
 * run` runs it (the same code): claimed, renewed every third of the TTL,
 * released when it exits, stopped when the lease is lost; the step ends with
 * its status.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { formatRef, type LeaseClient, LeaseHeldError } from "@issue-leases/client";
import { AGENT_EXIT, describeError } from "../cli/agent-exit.js";
import { agentRun } from "../cli/agent-run.js";
import { error, input, mask, type RunnerIo, saveState, setOutput } from "./runner.js";
import { ACTION_NAMES, type ActionSettings, clientFor, InputError, readSettings } from "./settings.js";

/** While waiting for a held issue, it is asked again when the holder's lease expires, but at least every 15 s and at most every second. */
const POLL_MAX_MS = 15_000;
const POLL_MIN_MS = 1_000;

/** Runs the main step; resolves to the process's exit code (not 0: the step fails, having said why in an `::error::`). */
export async function runMainStep(io: RunnerIo): Promise<number> {
  // Before anything could print it.
  mask(io, input(io, "token"));
  let settings: ActionSettings;
  try {
    // Before the claim: a lease the post step could not be told of would be held until it expires.
    for (const file of ["GITHUB_OUTPUT", "GITHUB_STATE"]) {
      if (!io.env[file]) throw new InputError(`${file} is not set: the action runs as a step of a GitHub Actions job`);
    }
    settings = readSettings(io);
  } catch (e) {
    error(io, e instanceof InputError ? e.message : `reading the inputs failed: ${describeError(e, ACTION_NAMES)}`);
    return 1;
  }
  const client = clientFor(settings);
  try {
    return settings.command === null ? await claim(io, client, settings) : await run(io, client, settings, settings.command);
  } catch (e) {
    const waited = settings.waitMs > 0 ? ` (waited ${Math.round(settings.waitMs / 1000)} s)` : "; set wait (e.g. wait: 10m) to wait for it";
    error(io, `${formatRef(settings.ref)}: ${describeError(e, ACTION_NAMES)}${e instanceof LeaseHeldError ? waited : ""}`);
    return 1;
  }
}

async function claim(io: RunnerIo, client: LeaseClient, settings: ActionSettings): Promise<number> {
  const name = formatRef(settings.ref);
  const lease = await whileHeld(io, settings, () => client.claim(settings.ref, { ttl: settings.ttl, instance: settings.instance }));
  // First, so that the post step releases it whatever fails after.
  saveState(io, "issue", name);
  saveState(io, "instance", settings.instance);
  setOutput(io, "token", String(lease.token));
  setOutput(io, "expires_at", lease.expires_at ?? "");
  setOutput(io, "issue", name);
  setOutput(io, "instance", settings.instance);
  const until = lease.expires_at ? `until ${lease.expires_at}` : "open-ended";
  io.log(`issue-leases: ${name} is yours (instance ${settings.instance}): token ${lease.token}, ${until}; released when the job ends`);
  return 0;
}

async function run(io: RunnerIo, client: LeaseClient, settings: ActionSettings, command: string): Promise<number> {
  const name = formatRef(settings.ref);
  // As a `run:` step runs its script.
  const argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", command];
  let lost = false;
  const status = await whileHeld(io, settings, () =>
    agentRun(client, settings.ref, { ttl: settings.ttl, instance: settings.instance, graceMs: settings.graceMs, json: false, watch: settings.watch }, argv, {
      err: (line) => io.log(line),
      env: commandEnv(io.env, settings),
      names: ACTION_NAMES,
      onEvent(event, fields) {
        if (event === "acquired") {
          const lease = fields.lease as { token: number | null; expires_at: string | null };
          // If this process is killed before it releases, the post step does.
          saveState(io, "issue", name);
          saveState(io, "instance", settings.instance);
          setOutput(io, "token", String(lease.token));
          setOutput(io, "expires_at", lease.expires_at ?? "");
        }
        if (event === "lost") lost = true;
      },
    }),
  );
  // Released (or lost, or ending at its expiry): nothing for the post step. The runner keeps a name's last value.
  saveState(io, "issue", "");
  if (status === AGENT_EXIT.ok) return 0;
  error(io, lost ? `${name}: the lease was lost while the command ran, and the command was stopped` : `${name}: the command exited with status ${status}`);
  return status;
}

/** The command's environment: the step's, less the action's inputs (the token among them), with the app's URL for `issue-leases agent`. */
function commandEnv(env: NodeJS.ProcessEnv, settings: ActionSettings): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(env)) if (!key.startsWith("INPUT_")) out[key] = value;
  out.ISSUE_LEASES_URL = settings.url.href;
  return out;
}

/** `attempt` until it is not refused as held, or `wait` has passed: asked again as the holder's lease ends, or every 15 s. */
async function whileHeld<T>(io: RunnerIo, settings: ActionSettings, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + settings.waitMs;
  for (;;) {
    try {
      return await attempt();
    } catch (e) {
      const left = deadline - Date.now();
      if (!(e instanceof LeaseHeldError) || left <= 0) throw e;
      const expiry = e.expiresAt === null ? Number.NaN : Date.parse(e.expiresAt);
      const untilFree = Number.isNaN(expiry) ? POLL_MAX_MS : expiry - Date.now();
      const pause = Math.min(left, Math.max(POLL_MIN_MS, Math.min(POLL_MAX_MS, untilFree)));
      io.log(`issue-leases: ${e.message}; asking again in ${Math.ceil(pause / 1000)} s (waiting ${Math.ceil(left / 1000)} s more at most)`);
      await sleep(pause);
    }
  }
}
