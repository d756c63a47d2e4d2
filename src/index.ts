// The app function `npm start` (startup/start.ts) gives Probot, configured
// by the settings read from the environment (settings/; see .env.example).
// It is also the package's main, so `probot run ./dist/src/index.js` can
// load it; that is refused, below.
import type { ApplicationFunction } from "probot";
import { issueLeases } from "./app.js";
import { readSettings, type Settings } from "./settings/settings.js";
import { checkPortFree } from "./startup/check-port-free.js";
import { redactsCredentials } from "./startup/redacted-log.js";
import { exitOnStartupError, StartupError } from "./startup/startup-error.js";

/**
 * The app as the server runs it, with `settings` read at start-up. Checked
 * here, before the ledger opens: a server that would log credentials or
 * whose port is taken must not start, and any start-up error ends the
 * process with one line naming what to fix, whichever way the app was
 * started. Tests and benchmarks that embed the app give Probot their own
 * secret and ledger.
 */
export function serverApp(settings: Settings): ApplicationFunction {
  return async (probot, options) => {
    try {
      refuseUnredacted(probot.log);
      if (!settings.app) throw new StartupError("APP_ID is not set: register the GitHub App with `npm start` first");
      await checkPortFree(settings.server.port, settings.server.host);
      return await issueLeases({ settings: settings.app, handleSignals: true })(probot, options);
    } catch (error) {
      exitOnStartupError(error);
    }
  };
}

/**
 * `probot run` builds its logger, and the HTTP logger from it, before it
 * loads the app: the app cannot add redaction afterwards, and each request's
 * log line would carry its Authorization header (API callers' GitHub tokens,
 * METRICS_TOKEN) and cookies (board sessions).
 */
function refuseUnredacted(log: object): void {
  if (!redactsCredentials(log)) {
    throw new StartupError(
      "this Probot logger would write request headers, tokens and cookies included, to the logs: start the app with `npm start` " +
        "(node dist/src/startup/start.js), which redacts them, not `probot run`",
    );
  }
}

/** `probot run ./dist/src/index.js`, an entry point of its own: refused for its logger, before the environment is read. */
const fromEnvironment: ApplicationFunction = async (probot, options) => {
  let settings: Settings;
  try {
    refuseUnredacted(probot.log);
    settings = readSettings(process.env, process.cwd());
  } catch (error) {
    exitOnStartupError(error);
  }
  return serverApp(settings)(probot, options);
};

export default fromEnvironment;
