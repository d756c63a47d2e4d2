/**
 * Every variable the server reads, parsed once at start-up into one typed
 * object (the table: settings-table.ts). The launcher reads the environment
 * and passes the result down: the app is given its part (app.ts's
 * `settings`), and no other module reads the environment.
 */
import { type AppSettings, appSettings } from "./app-settings.js";
import { databaseSettings } from "./database-settings.js";
import { checkPrivateKey } from "./private-key.js";
import { type ServerSettings, serverSettings } from "./server-settings.js";
import type { Env } from "./setting-row.js";
import { assertWebhookSecret } from "./webhook-secret.js";

export interface Settings {
  server: ServerSettings;
  /** Null before the app is registered (no APP_ID): Probot's setup page needs none of it. */
  app: AppSettings | null;
}

/**
 * Throws, for the first variable that is wrong, an error whose message is
 * one line naming it (SettingError; DatabaseConfigError for DATABASE_*).
 * `cwd`: where PRIVATE_KEY_PATH is relative to.
 */
export function readSettings(env: Env, cwd: string): Settings {
  const server = serverSettings(env);
  // Checked before registration too: a database the app could not use is told before the setup page is served.
  databaseSettings(env);
  if (!server.registered) return { server, app: null };
  const app = appSettings(env);
  checkPrivateKey(env, cwd);
  assertWebhookSecret(env);
  return { server, app };
}
