/**
 * `npm start`: reads the settings, then runs Probot as `probot run
 * ./dist/src/index.js` would, but with a logger that redacts credentials
 * (redacted-log.ts; the app refuses any other) and without Probot's default
 * app (its page at /probot, and / redirecting to it): / is the board's.
 * This launcher exists because Probot reads the private key before it loads
 * the app: a key it cannot read is printed with a stack and the setup page is
 * served instead, as if the app had never been registered. Here a wrong
 * variable ends the process with one line and exit 1.
 *
 * The server's entry point: the one place it reads the environment
 * (process.env, with .env over it), which it hands to the settings
 * (settings/settings.ts) and to Probot, whose own variables are in the same
 * table.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { ProbotOctokit, run } from "probot";
import { readSettings } from "../settings/settings.js";
import { probotWebhookPath } from "./probot-webhook-path.js";
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
const env = process.env;
let webhookProxy: string | undefined;
try {
  const settings = readSettings(env, process.cwd());
  webhookProxy = settings.server.webhookProxy;
  // The app function itself, not its path: Probot then loads no default app
  // (whose GET / would redirect to its /probot page), so / is the board's.
  const log = await redactedLog(settings.server.log);
  if (!settings.app && !settings.server.production) {
    // Not registered yet: Probot's setup pages, and a /health that says so (setup-mode.ts). In production Probot's `run` refuses, naming APP_ID.
    await runSetupMode(settings.server, log);
  } else {
    const { serverApp } = await import("../index.js");
    // Probot knows github.com and GHE_HOST; GITHUB_API_URL (GHE.com, a proxy) is given to its Octokit, which every client of the app's is.
    const api = settings.server.apiUrl;
    const Octokit = api === null ? undefined : ProbotOctokit.defaults((o: Record<string, unknown>) => ({ ...o, baseUrl: api }));
    // Deliveries are the app's route's (webhooks/webhook-route.ts): Probot's own middleware is handed a path no request has.
    const probotEnv = { ...env, WEBHOOK_PATH: probotWebhookPath(settings.server.webhookPath) };
    await run(serverApp(settings), { env: probotEnv, log, ...(Octokit ? { Octokit } : {}) });
  }
} catch (error) {
  // The smee client rejects with an EventSource error event (not an Error)
  // when it cannot reach the channel: the last step of Probot's start.
  if (!(error instanceof Error) && webhookProxy) {
    exitOnStartupError(new StartupError(`cannot connect to WEBHOOK_PROXY_URL ${webhookProxy}: check the URL and the network, or unset WEBHOOK_PROXY_URL`));
  }
  exitOnStartupError(error);
}
