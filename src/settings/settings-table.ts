/**
 * Every environment variable src/ reads, in one table: its name, what its
 * value must be, its default, what it does and who needs it (the server,
 * the operator's CLI, the agents' commands, the Action), Probot's own
 * included. `.env.example` and docs/reference/environment.md are written
 * from it (`npm run docs:reference`, scripts/render-reference.ts), and
 * test/docs/env-reference.test.ts fails when either differs, or when src/
 * reads a name that is not here.
 *
 * A variable is read by its name through `rawValue`, which takes only the
 * names of this table: a name mistyped, or one added without its row, does
 * not compile.
 */
import type { Env, SettingRow, SettingSection } from "./setting-row.js";
import { APP_SECTIONS } from "./table-app.js";
import { CLIENT_SECTIONS } from "./table-clients.js";
import { SERVER_SECTIONS } from "./table-server.js";

/** The sections in the order the files show them: the server's, then the app's, then the clients'. */
export const SETTING_SECTIONS: readonly SettingSection[] = [...SERVER_SECTIONS, ...APP_SECTIONS, ...CLIENT_SECTIONS];

type Sections = typeof SERVER_SECTIONS | typeof APP_SECTIONS | typeof CLIENT_SECTIONS;

/** A variable of the table (families such as `INPUT_<NAME>` are read by their prefix, in action/runner.ts). */
export type SettingName = Exclude<Sections[number]["rows"][number]["name"], `${string}<NAME>`>;

export const SETTINGS: readonly SettingRow[] = SETTING_SECTIONS.flatMap((s) => s.rows);

const BY_NAME = new Map(SETTINGS.map((row) => [row.name, row]));

export function settingRow(name: SettingName): SettingRow {
  return BY_NAME.get(name)!;
}

/** The variable's text as the environment has it; undefined when unset. */
export function rawValue(env: Env, name: SettingName): string | undefined {
  return env[name];
}

/** The variable's text trimmed; undefined when unset or blank. */
export function givenValue(env: Env, name: SettingName): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === "" ? undefined : text;
}
