// Probot entry: `probot run ./dist/src/index.js` (or `npm start`, through
// startup/start.ts) loads this app function. Everything is configured from
// the environment (see .env.example).
import type { ApplicationFunction } from "probot";
import { issueLeases } from "./app.js";
import { checkEnvironment, checkPortFree } from "./startup/check-environment.js";
import { exitOnStartupError } from "./startup/startup-error.js";

const app = issueLeases();

// Checked here, where the app is configured from the environment, before the
// ledger opens: a server that would accept forged deliveries must not start,
// and a wrong variable ends the process with one line naming it, whichever
// way the app was started. Tests and benchmarks that embed the app give
// Probot their own secret and ledger.
const fromEnvironment: ApplicationFunction = async (probot, options) => {
  try {
    checkEnvironment(process.env);
    await checkPortFree(Number(process.env.PORT) || 3000, process.env.HOST || undefined);
    return await app(probot, options);
  } catch (error) {
    exitOnStartupError(error);
  }
};

export default fromEnvironment;
