/**
 * The GitHub Actions runner's side of a JavaScript action, written out
 * rather than taken from @actions/core (whose few functions this is): inputs
 * come as `INPUT_<NAME>` variables, state saved by the main step comes back
 * to the post step as `STATE_<name>`, outputs and state are appended to the
 * files named by `GITHUB_OUTPUT` and `GITHUB_STATE`, and workflow commands
 * (`::error::`, `::add-mask::`) are lines on stdout.
 */
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";

export interface RunnerIo {
  env: NodeJS.ProcessEnv;
  /** A line for the step's log (stdout, where the runner reads workflow commands). */
  log(line: string): void;
}

/**
 * The step's own process: its environment, and its stdout, one line per
 * call: a line break inside (a message of the API's) becomes a space, so that
 * no text the action prints can start a workflow command of its own.
 */
export function processIo(): RunnerIo {
  return { env: process.env, log: (line) => process.stdout.write(`${line.replace(/[\r\n]+/g, " ")}\n`) };
}

/**
 * An input's value, trimmed, "" when unset. The runner names the variable
 * after the input as action.yml spells it, spaces turned to `_` and upper
 * case (`allow-http` is `INPUT_ALLOW-HTTP`).
 */
export function input(io: RunnerIo, name: string): string {
  return (io.env[`INPUT_${name.replace(/ /g, "_").toUpperCase()}`] ?? "").trim();
}

/** What the main step saved with `saveState`, in the post step; "" when it saved nothing. */
export function state(io: RunnerIo, name: string): string {
  return io.env[`STATE_${name}`] ?? "";
}

export function setOutput(io: RunnerIo, name: string, value: string): void {
  appendFileCommand(io, "GITHUB_OUTPUT", name, value);
}

export function saveState(io: RunnerIo, name: string, value: string): void {
  appendFileCommand(io, "GITHUB_STATE", name, value);
}

/**
 * `name<<DELIMITER`, the value, `DELIMITER`: the form that carries any value,
 * newlines included. The delimiter is random, so that no value can end the
 * block early and write a variable of its own.
 */
function appendFileCommand(io: RunnerIo, variable: "GITHUB_OUTPUT" | "GITHUB_STATE", name: string, value: string): void {
  const file = io.env[variable];
  if (!file) throw new Error(`${variable} is not set: this runs as a step of a GitHub Actions job`);
  const delimiter = `ghadelimiter_${randomUUID()}`;
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`the value of ${name} holds its own delimiter`);
  appendFileSync(file, `${name}<<${delimiter}\n${value}\n${delimiter}\n`, "utf8");
}

/** Hides `secret` from the rest of the job's log: the runner prints `***` in its place. */
export function mask(io: RunnerIo, secret: string): void {
  if (secret !== "") io.log(`::add-mask::${escapeData(secret)}`);
}

/** An error annotation: shown on the run's summary, and in red in the log. */
export function error(io: RunnerIo, message: string): void {
  io.log(`::error::${escapeData(message)}`);
}

export function warning(io: RunnerIo, message: string): void {
  io.log(`::warning::${escapeData(message)}`);
}

/** A command's message may hold no raw newline: the runner's escapes for it (and for `%`, which starts one). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}
