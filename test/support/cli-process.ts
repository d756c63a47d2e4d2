/**
 * The operator CLI as an operator runs it: a child process, its exit code and
 * both streams. DATABASE_URL and DATABASE_SCHEMA come only from the `env`
 * given, never from the test's own environment, so a test names the database
 * it means.
 */
import { execFile } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The built CLI (`npm run build`, or scripts/build-if-needed.mjs, first). */
export const BUILT_CLI = join(ROOT, "dist/src/cli/main.js");

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd` (a script with a shebang, or node) in `cwd`. */
export function runProcess(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  const { DATABASE_URL: _url, DATABASE_SCHEMA: _schema, ...inherited } = process.env;
  return new Promise((done) => {
    execFile(cmd, args, { cwd, env: { ...inherited, ...env } }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Runs the built CLI with `args` in `cwd`. */
export function runBuiltCli(args: string[], cwd: string, env: Record<string, string> = {}): Promise<Run> {
  return runProcess(process.execPath, [BUILT_CLI, ...args], cwd, env);
}
