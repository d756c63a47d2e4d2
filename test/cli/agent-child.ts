/**
 * `issue-leases agent run` as an agent's supervisor starts it: the built CLI
 * in a child process, in a temporary folder, with shell commands whose pid
 * files say when they are ready for a signal, and that are killed after
 * each test whatever happens (they run in sessions of their own).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll } from "vitest";
import { BUILT_CLI, ROOT } from "../support/cli-process.js";

export interface Child {
  process: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
}

export interface AgentChildren {
  /** The temporary folder the children run in. */
  readonly dir: string;
  /** The built CLI with `args`, a GitHub token and `env` (nothing else of the test's environment but PATH). */
  spawnCli(args: string[], env: Record<string, string>): Child;
  /**
   * `sh -c "TRAP; echo $$ > PIDFILE; BODY"`: the pid file appears once the trap
   * is set, so a test that waits for it (`ready`) signals a command that is
   * ready for the signal; and the command can be cleaned up after.
   */
  shell(trap: string, body: string): { argv: string[]; ready(): boolean; pid(): number };
}

/** A command that runs until stopped. */
export const LOOP = "while :; do sleep 0.1; done";

/** Builds the CLI when stale and makes the folder before the file's tests; cleans up after each and after all. */
export function agentChildren(): AgentChildren {
  let dir = "";
  const pidFiles: string[] = [];
  beforeAll(() => {
    execFileSync(process.execPath, ["scripts/build-if-needed.mjs"], { cwd: ROOT, stdio: "pipe" });
    dir = mkdtempSync(join(tmpdir(), "issue-leases-agent-"));
  });
  afterEach(() => {
    for (const file of pidFiles.splice(0)) {
      const pid = readPid(file);
      if (pid > 0) killIfAlive(pid);
    }
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    spawnCli(args, env) {
      const child = spawn(process.execPath, [BUILT_CLI, ...args], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", GITHUB_TOKEN: "ghp_from_env", ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c));
      child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
      const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
        child.once("exit", (code, signal) => child.once("close", () => resolve({ code, signal, stdout, stderr }))),
      );
      return { process: child, stderr: () => stderr, done };
    },
    shell(trap, body) {
      const file = join(dir, `command-${pidFiles.length}-${Date.now()}.pid`);
      pidFiles.push(file);
      return { argv: ["sh", "-c", `${trap}; echo $$ > ${file}; ${body}`], ready: () => readPid(file) > 0, pid: () => readPid(file) };
    },
  };
}

function readPid(file: string): number {
  try {
    return Number(readFileSync(file, "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

/** Whether the process group `pid` leads has any process left. */
export function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function killIfAlive(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Gone, as it should be.
  }
}

export async function waitUntil(check: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
}
