/**
 * A start-up failure the operator fixes in the environment: its message is
 * one line naming the variable to change. Printed as that line, without a
 * stack, because the stack points into our code and not at the fix.
 */
export class StartupError extends Error {
  override name = "StartupError";
}

/** Errors from below whose message is already the one line (the settings and the ledger know nothing of start-up). */
const ONE_LINE_ERRORS = new Set(["StartupError", "SettingError", "DatabaseConfigError", "AlreadyServedError"]);

/** Probot's own start-up refusals, which already name their variable ("App ID is missing ... APP_ID"). */
const PROBOT_CONFIG_ERROR = /is missing, and is required|environment variable/;

/** Prints the one line for a start-up failure on stderr and exits 1; anything unexpected keeps its stack. */
export function exitOnStartupError(error: unknown): never {
  const known = error instanceof Error && (ONE_LINE_ERRORS.has(error.name) || PROBOT_CONFIG_ERROR.test(error.message));
  const text = known ? (error as Error).message.replace(/\s*\n\s*/g, " ") : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`issue-leases: ${text}\n`);
  process.exit(1);
}
