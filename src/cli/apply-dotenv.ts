/**
 * The CLI reads `.env` from the current directory as the app does, so that
 * `issue-leases doctor` run beside the app's `.env` checks the app's
 * database, not the default file. Probot 14 (`probot run`, `run()`) parses
 * `.env` with Node's `util.parseEnv` and assigns it over `process.env`
 * (node_modules/probot/lib/helpers/apply-env.js): a variable in `.env` wins
 * over the same one in the environment. The CLI does the same, since the
 * point is to read the database the app reads; `--database` still wins over
 * both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";

/** Assigns the variables of `<cwd>/.env` to `env`; returns the file read, or null when there is none. */
export function applyDotenv(env: NodeJS.ProcessEnv, cwd: string): string | null {
  const file = join(cwd, ".env");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  Object.assign(env, parseEnv(text));
  return file;
}
