// The app function `npm start` (startup/start.ts) gives Probot, configured
// from the environment (see .env.example). It is also the package's main,
// so `probot run ./dist/src/index.js` can load it; that is refused, below.
import type { ApplicationFunction } from "probot";
import { issueLeases } from "./app.js";
import { checkEnvironment, checkPortFree } from "./startup/check-environment.js";
import { redactsCredentials } from "./startup/redacted-log.js";
import { exitOnStartupError, StartupError } from "./startup/startup-error.js";

const app = issueLeases();

// Checked here, where the app is configured from the environment, before the
// ledger opens: a server that would accept forged deliveries must not start,
// and a wrong variable ends the process with one line naming it, whichever
// way the app was started. Tests and benchmarks that embed the app give
// Probot their own secret and ledger.
const fromEnvironment: ApplicationFunction = async (probot, options) => {
  try {
    // `probot run` builds its logger, and the HTTP logger from it, before it
    // loads the app: the app cannot add redaction afterwards, and each
    // request's log line would carry its Authorization header (API callers'
    // GitHub tokens, METRICS_TOKEN) and cookies (board sessions).
    if (!redactsCredentials(probot.log)) {
      throw new StartupError(
        "this Probot logger would write request headers, tokens and cookies included, to the logs: start the app with `npm start` " +
          "(node dist/src/startup/start.js), which redacts them, not `probot run`",
      );
    }
    checkEnvironment(process.env);
    await checkPortFree(Number(process.env.PORT) || 3000, process.env.HOST || undefined);
    return await app(probot, options);
  } catch (error) {
    exitOnStartupError(error);
  }
};

export default fromEnvironment;
