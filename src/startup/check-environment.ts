/**
 * Checks the environment before anything starts, so that a mistake ends the
 * process with one line naming the variable to fix. Without this, Probot
 * prints a stack for a key it cannot read and then serves the setup page (as
 * if the app were not registered), and a wrong port or database only shows
 * as an uncaught stack.
 */
import { createPrivateKey } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { resolve } from "node:path";
import { rateLimitSettings } from "../api/rate-limit.js";
import { eventsKeepMs } from "../events/retention.js";
import { githubApiUrl } from "../github/github-urls.js";
import { databaseKind, DEFAULT_DATABASE_URL } from "../ledger/open-ledger.js";
import { assertWebhookSecret } from "../webhooks/webhook-secret.js";
import { StartupError } from "./startup-error.js";

/** Throws StartupError for the first variable that is wrong. Registration (no APP_ID yet) needs none of them. */
export function checkEnvironment(env: NodeJS.ProcessEnv, cwd = process.cwd()): void {
  if (env.PORT && !/^\d+$/.test(env.PORT.trim())) throw new StartupError(`PORT is "${env.PORT}", not a port number: set PORT to e.g. 3000`);
  databaseKind(env.DATABASE_URL || DEFAULT_DATABASE_URL);
  try {
    githubApiUrl(env);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
  if (!env.APP_ID) return; // Probot serves its setup page to register the app
  if (!/^\d+$/.test(env.APP_ID.trim())) throw new StartupError(`APP_ID is "${env.APP_ID}", not a number: copy the App ID from the GitHub App's settings page`);
  checkPrivateKey(env, cwd);
  try {
    assertWebhookSecret(env);
    rateLimitSettings(env);
    eventsKeepMs(env);
  } catch (error) {
    throw new StartupError((error as Error).message);
  }
}

/** The key as Probot reads it (@probot/get-private-key), then parsed: a key `createPrivateKey` refuses cannot sign a JWT. */
function checkPrivateKey(env: NodeJS.ProcessEnv, cwd: string): void {
  let pem: string;
  let name: string;
  if (env.PRIVATE_KEY) {
    name = "PRIVATE_KEY";
    pem = env.PRIVATE_KEY;
    if (Buffer.from(pem, "base64").toString("base64") === pem) pem = Buffer.from(pem, "base64").toString();
    pem = pem.replace(/\\n/g, "\n");
  } else if (env.PRIVATE_KEY_PATH) {
    name = "PRIVATE_KEY_PATH";
    const file = resolve(cwd, env.PRIVATE_KEY_PATH);
    if (!existsSync(file)) throw new StartupError(`PRIVATE_KEY_PATH names ${file}, which does not exist: set it to the .pem file downloaded from the GitHub App's settings`);
    pem = readFileSync(file, "utf8");
  } else {
    throw new StartupError("APP_ID is set but neither PRIVATE_KEY nor PRIVATE_KEY_PATH is: set one to the GitHub App's private key (.pem)");
  }
  try {
    createPrivateKey(pem);
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    throw new StartupError(
      `${name} is not a readable private key (${reason}): set it to the PEM the GitHub App's settings page generates (newlines as \\n in PRIVATE_KEY)`,
    );
  }
}

/**
 * Refuses a port another process listens on, before Probot's server tries
 * it: its failure is logged with a stack and left uncaught. (Whoever takes
 * the port between this probe and Probot's listen still gets that stack.)
 */
export function checkPortFree(port: number, host: string | undefined): Promise<void> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") fail(new StartupError(`PORT ${port} is already in use on ${host ?? "localhost"}: stop the other process or set PORT to a free port`));
      else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") fail(new StartupError(`HOST ${host} is not an address of this machine (${error.code}): set HOST, e.g. 0.0.0.0 or 127.0.0.1`));
      else if (error.code === "EACCES") fail(new StartupError(`PORT ${port} needs privileges this process lacks (EACCES): set PORT above 1023`));
      else fail(error);
    });
    probe.listen({ port, host: host ?? "localhost" }, () => probe.close(() => done()));
  });
}
