/**
 * What the GitHub Actions runner does around a JavaScript action, for tests
 * that run the committed bundle as the runner runs it: every input of
 * action.yml set as `INPUT_<NAME>` (its default when the workflow gives
 * none, `${{ github.token }}` evaluated), the job's variables
 * (`GITHUB_EVENT_PATH`, `GITHUB_REPOSITORY`, `GITHUB_RUN_ID`, …), the step's
 * `GITHUB_OUTPUT` and `GITHUB_STATE` files read back after it, and the main
 * step's state given to the post step as `STATE_<name>`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { ROOT } from "../support/server-process.js";

interface ActionYml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string; post?: string; "post-if"?: string };
}

export const ACTION: ActionYml = parse(readFileSync(join(ROOT, "action.yml"), "utf8")) as ActionYml;

/** The runner's name for an input's variable: upper case, spaces as `_` (a `-` stays). */
export function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;
}

/**
 * A file command file as the runner reads it: `name=value` lines, and
 * `name<<DELIMITER` … `DELIMITER` blocks; a name written twice keeps its last
 * value. Anything else is an error, as it fails the step on the runner.
 */
export function readFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delimiter] = heredoc;
      const end = lines.indexOf(delimiter!, i + 1);
      if (end < 0) throw new Error(`no closing delimiter ${delimiter} for ${name}`);
      out[name!] = lines.slice(i + 1, end).join("\n");
      i = end;
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) throw new Error(`not a file command: ${JSON.stringify(line)}`);
    out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}

export interface Job {
  dir: string;
  /** The event that started the workflow: written to the file GITHUB_EVENT_PATH names. */
  event: { name: string; payload: unknown };
  /** The workflow's GITHUB_TOKEN, what `${{ github.token }}` gives. */
  githubToken: string;
  repository: string;
  runId: string;
  /** The step's env: on top of the runner's. */
  env?: Record<string, string>;
  remove(): void;
}

export function job(spec: Omit<Job, "dir" | "remove" | "runId"> & { runId?: string }): Job {
  const dir = mkdtempSync(join(tmpdir(), "issue-leases-action-"));
  return { runId: String(1_000_000_000 + Math.floor(Math.random() * 1e9)), ...spec, dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface StepResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  state: Record<string, string>;
}

export interface RunningStep {
  process: ChildProcess;
  stdout(): string;
  done: Promise<StepResult>;
}

let steps = 0;

/**
 * Starts the step's entry (`main` or `post` of action.yml) with `node`, as
 * the runner does, with the workflow's `with:` inputs; for the post step,
 * `state` is what the main step saved.
 */
export function startStep(j: Job, entry: "main" | "post", withInputs: Record<string, string>, state: Record<string, string> = {}): RunningStep {
  const n = ++steps;
  const eventPath = join(j.dir, "event.json");
  writeFileSync(eventPath, JSON.stringify(j.event.payload));
  const outputFile = join(j.dir, `output-${n}`);
  const stateFile = join(j.dir, `state-${n}`);
  writeFileSync(outputFile, "");
  writeFileSync(stateFile, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "",
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: j.event.name,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: j.repository,
    GITHUB_RUN_ID: j.runId,
    GITHUB_RUN_ATTEMPT: "1",
    GITHUB_JOB: "work",
    GITHUB_ACTION: "__issue-leases",
    RUNNER_NAME: "GitHub Actions 7",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STATE: stateFile,
    ...j.env,
  };
  for (const [name, spec] of Object.entries(ACTION.inputs)) {
    const given = withInputs[name] ?? (spec.default === "${{ github.token }}" ? j.githubToken : (spec.default ?? ""));
    env[inputVariable(name)] = given;
  }
  for (const name of Object.keys(withInputs)) if (!(name in ACTION.inputs)) throw new Error(`action.yml has no input ${name}`);
  for (const [name, value] of Object.entries(state)) env[`STATE_${name}`] = value;

  const script = entry === "main" ? ACTION.runs.main : ACTION.runs.post!;
  const child = spawn(process.execPath, [join(ROOT, script)], { cwd: j.dir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const done = new Promise<StepResult>((resolve, reject) =>
    child.once("close", (code) => {
      try {
        resolve({
          code,
          stdout,
          stderr,
          outputs: readFileCommands(readFileSync(outputFile, "utf8")),
          state: readFileCommands(readFileSync(stateFile, "utf8")),
        });
      } catch (error) {
        reject(error);
      }
    }),
  );
  return { process: child, stdout: () => stdout, done };
}

/** Runs a step to its end. */
export function runStep(j: Job, entry: "main" | "post", withInputs: Record<string, string>, state?: Record<string, string>): Promise<StepResult> {
  return startStep(j, entry, withInputs, state).done;
}

/** The workflow commands (`::name::message`) a step printed, decoded as the runner decodes them. */
export function workflowCommands(stdout: string): Array<{ command: string; message: string }> {
  return [...stdout.matchAll(/^::([a-z-]+)(?: [^:]*)?::(.*)$/gm)].map((m) => ({
    command: m[1]!,
    message: m[2]!.replace(/%0A/g, "\n").replace(/%0D/g, "\r").replace(/%25/g, "%"),
  }));
}
