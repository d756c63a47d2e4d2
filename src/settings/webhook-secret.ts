/**
 * The webhook secret is what stops anyone on the internet from sending the
 * app forged deliveries (a `/release` in someone else's name, a close that
 * ends a lease). An empty secret, or one that ships in examples and
 * defaults, protects nothing, so the app refuses to start with one outside
 * development and tests.
 */
import { type Env, SettingError } from "./setting-row.js";
import { rawValue } from "./settings-table.js";

/** Secrets found in examples and defaults: Probot's own default is "development". */
const KNOWN_DEFAULTS = new Set(["", "development", "secret", "test", "changeme", "webhook-secret"]);

/** Throws, saying how to fix it, when WEBHOOK_SECRET is empty or a known default outside development and tests (NODE_ENV). */
export function assertWebhookSecret(env: Env): void {
  const nodeEnv = rawValue(env, "NODE_ENV");
  if (nodeEnv === "development" || nodeEnv === "test") return;
  const secret = rawValue(env, "WEBHOOK_SECRET") ?? "";
  if (!KNOWN_DEFAULTS.has(secret.trim().toLowerCase())) return;
  const what = secret.trim() === "" ? "is empty" : `is "${secret}", a default anyone can guess`;
  throw new SettingError(
    `WEBHOOK_SECRET ${what}, so anyone could send this app forged webhooks. ` +
      "Generate a secret (e.g. `openssl rand -hex 32`), set it as the webhook secret in your GitHub App's settings " +
      "and as WEBHOOK_SECRET in the environment (or .env), then start again. " +
      "For local development only, NODE_ENV=development allows it.",
  );
}
