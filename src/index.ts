// Probot entry: `probot run ./dist/src/index.js` loads this app function.
// Everything is configured from the environment (see .env.example).
import type { ApplicationFunction } from "probot";
import { issueLeases } from "./app.js";
import { assertWebhookSecret } from "./webhook-secret.js";

const app = issueLeases();

// Checked here, where the app is configured from the environment, before the
// ledger opens: a server that would accept forged deliveries must not start.
// Tests and benchmarks that embed the app give Probot their own secret.
const fromEnvironment: ApplicationFunction = (probot, options) => {
  assertWebhookSecret(process.env);
  return app(probot, options);
};

export default fromEnvironment;
