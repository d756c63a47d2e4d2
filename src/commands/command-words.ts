/**
 * The words a command line may start with: the app's own (`/claim`,
 * `/renew`, `/release`, `/lease`, `/help`), a repository's aliases for the
 * first four (`/take` for `/claim`, from `commands:` in its config), and,
 * where the repository turns it on, the mention form `@<app-slug> claim`
 * (`@<app-slug> take`), as triagebot and zulipbot read theirs.
 *
 * An alias is read exactly as the command it stands for: the same
 * CommonMark rules (command-lines.ts), durations, mentions and notes.
 */

export type CommandName = "claim" | "renew" | "release" | "lease" | "help";
/** What an alias may stand for. */
export type AliasTarget = Exclude<CommandName, "help">;

export const COMMAND_NAMES: readonly CommandName[] = ["claim", "renew", "release", "lease", "help"];
export const ALIAS_TARGETS: readonly AliasTarget[] = ["claim", "renew", "release", "lease"];

/** A repository's words beyond the app's own. */
export interface CommandWords {
  /** Aliases, lower case and without the slash, and the command each stands for. */
  aliases?: ReadonlyMap<string, AliasTarget>;
  /** The app's slug, lower case: `@slug claim` is read as `/claim`. Absent: the mention form is off. */
  mention?: string;
  /**
   * Read every word as a command (as `/lease`), after any mention: where a
   * repository's words could be, before its config is read (`mayNeedWords`).
   */
  anyWord?: boolean;
}

/** A command line, trimmed, split into its command, the word typed for it and its (trimmed) arguments. */
export interface CommandLine {
  name: CommandName;
  /** The word as typed, lower case and without its slash: `claim`, or an alias such as `take`. */
  word: string;
  args: string;
  line: string;
}

/** How a word may be written: a letter, then letters, digits and single hyphens, at most 30 characters. */
export const WORD = /^[a-z](?:[a-z\d]|-(?=[a-z\d])){0,29}$/;

// The command word, then the end of the line, whitespace, or punctuation that
// ends a sentence or a clause (`/claim.`, `/claim!`, `/release:`). The word
// is read greedily, so `/claim-it` and `/claimed` are words of their own.
const SLASH_WORD = /^\/([a-z][a-z\d-]{0,30})(?=$|[\s.!?,;:])/i;
// `@slug` (or `@slug[bot]`), spaces, then the word, with or without its slash.
const MENTION_WORD = /^@([a-z\d][a-z\d-]{0,38})(?:\[bot\])?[ \t]+\/?([a-z][a-z\d-]{0,30})(?=$|[\s.!?,;:])/i;
const WORD_END_PUNCTUATION = /^[.!?,;:]+/;

/** A line whose first text is a command word, split; null for any other line. */
export function splitCommandLine(text: string, words: CommandWords = {}): CommandLine | null {
  const line = text.trim();
  let match: RegExpExecArray | null = null;
  let word: string | undefined;
  if (line.startsWith("/")) {
    match = SLASH_WORD.exec(line);
    word = match?.[1];
  } else if ((words.mention !== undefined || words.anyWord) && line.startsWith("@")) {
    match = MENTION_WORD.exec(line);
    word = match !== null && (words.anyWord || match[1]!.toLowerCase() === words.mention) ? match[2] : undefined;
  }
  if (match === null || word === undefined) return null;
  const typed = word.toLowerCase();
  const name = nameOf(typed, words);
  if (name === null) return null;
  const args = line.slice(match[0].length).replace(WORD_END_PUNCTUATION, "").trim();
  return { name, word: typed, args, line };
}

function nameOf(word: string, words: CommandWords): CommandName | null {
  if ((COMMAND_NAMES as readonly string[]).includes(word)) return word as CommandName;
  return words.aliases?.get(word) ?? (words.anyWord ? "lease" : null);
}
