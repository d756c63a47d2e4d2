/**
 * `npm start`: checks the environment, then runs Probot as `probot run
 * ./dist/src/index.js` would, but with a logger that redacts credentials
 * (redacted-log.ts; the app refuses any other) and without Probot's default
 * app (its page at /probot, and / redirecting to it): / is the board's.
 * This launcher exists because Probot reads the private key before it loads
 * the app: a key it cannot read is printed with a stack and the setup page is
 * served instead, as if the app had never been registered. Here a wrong
 * variable ends the process with one line and exit 1.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { ProbotOctokit, run } from "probot";
import { githubApiUrl } from "../github/github-urls.js";
import { checkEnvironment } from "./check-environment.js";
import { redactedLog } from "./redacted-log.js";
import { runSetupMode } from "./setup-mode.js";
import { exitOnStartupError, StartupError } from "./startup-error.js";

/** .env over the environment, as Probot's own `applyEnv` does, so that both see the same values. */
function applyDotEnv(): void {
  try {
    Object.assign(process.env, parseEnv(readFileSync(".env", "utf8")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") exitOnStartupError(error);
  }
}

applyDotEnv();
try {
  checkEnvironment(process.env);
  // The app function itself, not its path: Probot then loads no default app
  // (whose GET / would redirect to its /probot page), so / is the board's.
  const log = await redactedLog(process.env);
  if (!process.env.APP_ID && process.env.NODE_ENV !== "production") {
    // Not registered yet: Probot's setup pages, and a /health that says so (setup-mode.ts). In production Probot's `run` refuses, naming APP_ID.
    await runSetupMode(process.env, log);
  } else {
    const { default: app } = await import("../index.js");
    // Probot knows github.com and GHE_HOST; GITHUB_API_URL (GHE.com, a proxy) is given to its Octokit, which every client of the app's is.
    const api = process.env.GITHUB_API_URL ? githubApiUrl(process.env) : null;
    const Octokit = api === null ? undefined : ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, baseUrl: api }));
    await run(app, { env: process.env, log, ...(Octokit ? { Octokit } : {}) });
  }
} catch (error) {
  // The smee client rejects with an EventSource error event (not an Error)
  // when it cannot reach the channel: the last step of Probot's start.
  if (!(error instanceof Error) && process.env.WEBHOOK_PROXY_URL) {
    exitOnStartupError(
      new StartupError(`cannot connect to WEBHOOK_PROXY_URL ${process.env.WEBHOOK_PROXY_URL}: check the URL and the network, or unset WEBHOOK_PROXY_URL`),
    );
  }
  exitOnStartupError(error);
}
