/**
 * What `issue-leases import-config` makes of another bot's config: the
 * settings of `.github/issue-leases.yml` it maps to, each with the setting
 * it came from; the settings that need none (issue-leases already behaves
 * so), and those that have no equivalent, each with why; and the YAML
 * printed from them, where all are comments. Every key of the other file
 * ends in one of the three: none is dropped without a word.
 *
 * The YAML is written here line by line rather than by a YAML library's
 * document, for its comments: every value written is a number, a boolean, a
 * word, or a JSON string (a valid YAML double-quoted scalar), and every
 * comment is folded to plain lines, so text from the other bot's file (a
 * label, a command) can neither end a comment nor start a value.
 */
import { JsExpression } from "./js-exports.js";

/** What an alias may stand for (the `commands:` of `.github/issue-leases.yml`). */
export const ALIAS_TARGETS = ["claim", "renew", "release", "lease"] as const;
export type AliasTarget = (typeof ALIAS_TARGETS)[number];

export type Value = string | number | boolean | readonly string[];

/** One key of the config (`default_ttl`) or one key of a mapping in it (`labels.claimed`, `commands.take`). */
export interface Setting {
  path: readonly [string] | readonly [string, string];
  value: Value;
  /** Which setting of the other bot it comes from, and how: the comment above it. */
  from: string;
}

/** A setting of the other bot that has no equivalent, and why. */
export interface Unmapped {
  name: string;
  why: string;
}

/** A word an alias may be: what follows the `/` of a command. */
const ALIAS_WORD = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/;

export class Imported {
  readonly settings: Setting[] = [];
  readonly unmapped: Unmapped[] = [];
  /** Settings of the other bot that need no setting here: issue-leases already works that way. */
  readonly same: Unmapped[] = [];
  /** Said at the top of the file, after where it came from. */
  readonly notes: string[] = [];

  constructor(
    /** The other bot, as the file names it: "assign-issue-action". */
    readonly peer: string,
    /** What was read, in a few words: "the `with:` inputs of its step in this workflow". */
    readonly source: string,
  ) {}

  set(path: Setting["path"], value: Value, from: string): void {
    const at = this.settings.findIndex((s) => s.path.join(".") === path.join("."));
    if (at >= 0) this.settings.splice(at, 1);
    this.settings.push({ path, value, from });
  }

  get(path: Setting["path"]): Value | undefined {
    return this.settings.find((s) => s.path.join(".") === path.join("."))?.value;
  }

  none(name: string, why: string): void {
    this.unmapped.push({ name, why });
  }

  /** `name` needs no setting: issue-leases already does what it says (`why`). */
  alreadySo(name: string, why: string): void {
    this.same.push({ name, why });
  }

  /**
   * `/word` (or `word`, as a mention form reads it) kept as an alias of
   * `to`. Nothing is written for one of the four commands themselves; a
   * command that is not a single word, or a word already taken by another
   * alias or command, is named as unmapped instead.
   */
  alias(command: string, to: AliasTarget, name: string, from: string): void {
    const word = command.trim().replace(/^\//, "").toLowerCase();
    if (!ALIAS_WORD.test(word) || word.length > 40) {
      this.none(name, `${show(command)} is not a word issue-leases can read as a command (a \`/\` and a word of letters, digits and dashes).`);
      return;
    }
    const command_ = ALIAS_TARGETS.find((t) => t === word);
    if (command_ !== undefined) {
      if (command_ !== to) this.none(name, `\`/${word}\` is issue-leases' own \`/${word}\` command, which does something else; it is left as it is.`);
      else this.alreadySo(name, `\`/${word}\` is issue-leases' own command, read as it is.`);
      return;
    }
    const taken = this.get(["commands", word]);
    if (taken !== undefined && taken !== to) {
      this.none(name, `\`/${word}\` is already kept as an alias of \`/${String(taken)}\`.`);
      return;
    }
    this.set(["commands", word], to, from);
  }

  /** The `.github/issue-leases.yml` to print. */
  render(): string {
    const out: string[] = [];
    comment(out, "", `.github/issue-leases.yml, made by \`issue-leases import-config\` from ${this.peer}'s config (${this.source}). Read it before you commit it.`);
    for (const note of this.notes) comment(out, "", note);
    const groups = new Map<string, Setting[]>();
    for (const s of this.settings) groups.set(s.path[0], [...(groups.get(s.path[0]) ?? []), s]);
    for (const [key, group] of groups) {
      out.push("");
      const top = group.find((s) => s.path.length === 1);
      if (top !== undefined) {
        comment(out, "", top.from);
        out.push(`${yamlKey(key)}: ${yamlValue(top.value)}`);
        continue;
      }
      out.push(`${yamlKey(key)}:`);
      for (const s of group) {
        comment(out, "  ", s.from);
        out.push(`  ${yamlKey(s.path[1]!)}: ${yamlValue(s.value)}`);
      }
    }
    if (this.same.length > 0) {
      out.push("");
      comment(out, "", `Nothing to set: settings of ${this.peer} that issue-leases already follows.`);
      for (const u of this.same) comment(out, "", `- ${u.name}: ${u.why}`, "    ");
    }
    if (this.unmapped.length > 0) {
      out.push("");
      comment(out, "", `Not imported: settings of ${this.peer} with no equivalent in issue-leases, and why.`);
      for (const u of this.unmapped) comment(out, "", `- ${u.name}: ${u.why}`, "    ");
    }
    return `${out.join("\n")}\n`;
  }
}

/** A value of the other bot's file as a comment shows it: short, on one line. */
export function show(value: unknown): string {
  if (value instanceof JsExpression) return `\`${value.text.replace(/\s+/g, " ").replace(/`/g, "'").slice(0, 80)}\``;
  if (typeof value === "string") return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
  if (Array.isArray(value)) return value.length > 5 ? `[${value.slice(0, 5).map(show).join(", ")}, …]` : `[${value.map(show).join(", ")}]`;
  if (value !== null && typeof value === "object") return "{…}";
  return String(value);
}

const WIDTH = 100;

/** `text` as comment lines of at most WIDTH columns (a longer word stays whole), on one line each however it was written. */
function comment(out: string[], indent: string, text: string, hanging = ""): void {
  // Control characters, line and paragraph separators included, would end the comment.
  const words = text.replace(/[\p{Cc}\p{Zl}\p{Zp}]/gu, " ").split(/\s+/).filter((w) => w !== "");
  let line = `${indent}#`;
  let first = true;
  for (const word of words) {
    if (!first && line.length + 1 + word.length > WIDTH) {
      out.push(line);
      line = `${indent}#${hanging}`;
    }
    line += ` ${word}`;
    first = false;
  }
  out.push(line);
}

const RESERVED = /^(?:true|false|yes|no|on|off|y|n|null|~|none)$/i;

function yamlKey(key: string): string {
  return /^[a-z][a-z0-9_-]*$/i.test(key) && !RESERVED.test(key) ? key : JSON.stringify(key);
}

function yamlValue(value: Value): string {
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (typeof value !== "string") return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
  // Durations (`7d`, `none`) and words stay plain; anything else is quoted, so YAML reads it as the same string.
  if (/^\d+[smhdw]$/.test(value) || value === "none" || (/^[a-z][a-z-]*$/.test(value) && !RESERVED.test(value))) return value;
  return JSON.stringify(value);
}

/** The other file is not this bot's (the format was guessed from its content): the message says what was looked for. */
export class NotThisBot extends Error {}

/** A mapping of the other file; a value a JavaScript config computes (`JsExpression`) is none. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsExpression);
}
