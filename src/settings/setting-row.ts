/**
 * What the table of settings (settings-table.ts) says of each environment
 * variable, and the error a wrong value ends the start with.
 */

/** The environment as a process sees it: names to text. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * Who reads a variable: the server (`npm start`), the operator's commands
 * (`issue-leases list`, `doctor`, `backup`, …), the agents' commands
 * (`issue-leases agent …`, `issue-leases mcp`: never from `.env`), or the
 * GitHub Action's steps.
 */
export type Reader = "server" | "cli" | "agent" | "action";

/**
 * Who sets a variable. The operator sets the server's and the CLI's (in the
 * environment or `.env`); the others are a protocol: the GitHub Actions
 * runner gives a step its inputs, state and files (`INPUT_*`, `GITHUB_*`),
 * `agent run` gives the command it runs its lease, and Node's own
 * convention `NODE_ENV` is the platform's.
 */
export type Setter = "operator" | "runner" | "agent run" | "platform";

/** What a value must be, as the reference page shows it. */
export type ValueType =
  | "whole number"
  | "number"
  | "duration"
  | "on/off"
  | "choice"
  | "text"
  | "secret"
  | "URL"
  | "path";

export interface SettingRow {
  /** The variable, or a family of them (`INPUT_<NAME>`). */
  readonly name: string;
  readonly type: ValueType;
  /** The value when unset, as the reference shows it; null: none (the feature is off, or the value is required). */
  readonly default: string | null;
  /** What it does, for the reference page and `.env.example`: sentences, no line breaks. */
  readonly meaning: string;
  readonly who: readonly Reader[];
  /** Default `operator`. */
  readonly setBy?: Setter;
  /** Read by Probot itself, from the environment the app's launcher hands it (startup/start.ts). */
  readonly probot?: true;
  /**
   * Its line in `.env.example`: a value for `# NAME=value` (commented out),
   * `set` with a value for `NAME=value` (`NAME=` to fill in). Absent: not
   * in `.env.example` (not for a server's `.env`: the reference page says
   * who sets it).
   */
  readonly example?: string | { readonly set: string };
}

/** The sections of `.env.example` and of the reference page, in their order; each row belongs to one. */
export interface SettingSection {
  readonly title: string;
  /** What the section is about, for both files; sentences. */
  readonly about: string;
  readonly rows: readonly SettingRow[];
}

/**
 * A variable with a value it cannot take. Its message is one line naming the
 * variable and what it must be: start-up prints it as that line, no stack.
 */
export class SettingError extends Error {
  override name = "SettingError";
}
