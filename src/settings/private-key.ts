/**
 * The app's private key, read as Probot reads it (@probot/get-private-key)
 * and parsed: a key `createPrivateKey` refuses cannot sign a JWT, and left to
 * Probot it is printed with a stack and the setup page served instead, as if
 * the app had never been registered.
 */
import { createPrivateKey } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Env, SettingError } from "./setting-row.js";
import { rawValue } from "./settings-table.js";

/** Throws SettingError naming PRIVATE_KEY or PRIVATE_KEY_PATH (resolved from `cwd`) when neither gives a key that can sign. */
export function checkPrivateKey(env: Env, cwd: string): void {
  let pem: string;
  let name: string;
  const key = rawValue(env, "PRIVATE_KEY");
  const path = rawValue(env, "PRIVATE_KEY_PATH");
  if (key) {
    name = "PRIVATE_KEY";
    pem = key;
    if (Buffer.from(pem, "base64").toString("base64") === pem) pem = Buffer.from(pem, "base64").toString();
    pem = pem.replace(/\\n/g, "\n");
  } else if (path) {
    name = "PRIVATE_KEY_PATH";
    const file = resolve(cwd, path);
    if (!existsSync(file)) throw new SettingError(`PRIVATE_KEY_PATH names ${file}, which does not exist: set it to the .pem file downloaded from the GitHub App's settings`);
    pem = readFileSync(file, "utf8");
  } else {
    throw new SettingError("APP_ID is set but neither PRIVATE_KEY nor PRIVATE_KEY_PATH is: set one to the GitHub App's private key (.pem)");
  }
  try {
    createPrivateKey(pem);
  } catch (error) {
    const reason = (error as Error).message.split("\n")[0];
    throw new SettingError(
      `${name} is not a readable private key (${reason}): set it to the PEM the GitHub App's settings page generates (newlines as \\n in PRIVATE_KEY)`,
    );
  }
}
