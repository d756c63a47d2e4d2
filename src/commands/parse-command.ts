/**
 * Comment commands, one to a line, as people type them:
 *
 *   /claim [@login] [DURATION] [note]   take the issue (for @login: a maintainer
 *                                       gives it), for DURATION or the repo's default
 *   /renew [DURATION] [note]            extend your lease
 *   /release [@login] [note]            end your own lease, or @login's
 *   /lease [note]                       say who holds the issue
 *   /help, /lease help                  list the commands this repository reads
 *
 * A command line is a line whose first text, after any spaces or tabs, is one
 * of those four words in any case (`/Claim`), followed by the end of the line,
 * whitespace, or punctuation (`/claim.`, `/claim!`, `/release:`; the
 * punctuation is dropped). `/claimed`, `/claim-it` and `x /claim` are not
 * commands. Text on other lines is fine ("Thanks!\n/claim"), and so are CRLF
 * line endings. What GitHub shows as a quote or as code is never a command
 * (see command-lines.ts for the CommonMark rules followed).
 *
 * A repository may add aliases (`/take` for `/claim`) and the mention form
 * (`@<app-slug> claim`): `words`, see command-words.ts. An alias is read
 * exactly as the command it stands for; messages name the word as typed.
 *
 * The first command line runs. The others do not, and `ignored` counts them so
 * that the reply can say so.
 *
 * Arguments are the rest of the line, with any HTML comment in it removed.
 * Right after the command, in either order:
 *
 *   - a mention, `@login`: a GitHub login (1-39 letters, digits and single
 *     hyphens or underscores, as Enterprise Managed Users have them
 *     (`alice_contoso`), neither at either end) optionally followed by
 *     `[bot]`; `target` is the login as typed, without the `@` and without
 *     punctuation after it (`@octocat,`). `/claim` and `/release` take one;
 *   - a duration that `parseDuration` accepts (`2h`, `3 days`; ttl in ms).
 *     `/claim` and `/renew` take one. A word starting with a digit (or a sign
 *     and a digit) is read as a duration, so `/claim 2` or `/claim 2h 30m` is
 *     a ParseError rather than a lease of a length nobody asked for.
 *
 * Whatever follows is a note (`/claim I'd like to work on this`, `/claim 2h so
 * I can finish`, `/release (no time, sorry)`): kept in `note`, never an error.
 * A mention where the command takes none (`/renew @x`), a second mention
 * (`/release @a @b`), a duration where the command takes none (`/release 2h`)
 * or a second one, and a mention or a duration that does not parse are each a
 * ParseError whose message says what is accepted and never echoes the user's
 * text. Whether a duration is within the repo's limits is not decided here.
 *
 * The parser is pure, never throws, and runs in time linear in the length of
 * the body.
 */

import { type CommandLine, type CommandName, type CommandWords, findCommandLines } from "./command-lines.js";
import { DURATION_FORMS, parseDuration } from "./parse-duration.js";

export type { CommandName, CommandWords } from "./command-lines.js";

export type Command =
  /** ttl in ms; null when no duration was given and the repo's default applies. `target`: the login to give the lease to. */
  | { kind: "claim"; ttl: number | null; line: string; ignored: number; target?: string; note?: string }
  | { kind: "renew"; ttl: number | null; line: string; ignored: number; note?: string }
  /** target is a login without the "@"; null means the commenter. */
  | { kind: "release"; target: string | null; line: string; ignored: number; note?: string }
  | { kind: "lease"; line: string; ignored: number; note?: string }
  /** `/help` or `/lease help`: what this repository reads. */
  | { kind: "help"; line: string; ignored: number };

/** A command line whose arguments did not parse; `message` says what is accepted and never echoes the user's text. */
export interface ParseError {
  kind: "error";
  command: CommandName;
  line: string;
  message: string;
  ignored: number;
}

/** The first command in a comment body, a ParseError for it, or null when the body has no command. */
export function parseCommand(body: string, words?: CommandWords): Command | ParseError | null {
  const lines = findCommandLines(body, words);
  const first = lines[0];
  return first === undefined ? null : interpret(first, lines.length - 1);
}

/**
 * Whether a body has a line that a repository's words could make a command
 * (a slash word, or a word after a mention), read by the same rules: only
 * then is the repository's config needed to parse it. A command in a quote or
 * in code is none, and costs no config read.
 */
export function mayNeedWords(body: string): boolean {
  return findCommandLines(body, { anyWord: true }).length > 0;
}

export function isParseError(x: Command | ParseError | null): x is ParseError {
  return x !== null && x.kind === "error";
}

/** What each command takes right after its word. */
const TAKES: Record<CommandName, { mention: boolean; duration: boolean }> = {
  claim: { mention: true, duration: true },
  renew: { mention: false, duration: true },
  release: { mention: true, duration: false },
  lease: { mention: false, duration: false },
  help: { mention: false, duration: false },
};

function interpret({ name, word, args, line }: CommandLine, ignored: number): Command | ParseError {
  if (name === "help" || (name === "lease" && /^help[.!?]*$/i.test(args))) return { kind: "help", line, ignored };
  const read = readArgs(name, word, args);
  if (typeof read === "string") return { kind: "error", command: name, line, message: read, ignored };
  const note = read.note === "" ? {} : { note: read.note };
  switch (name) {
    case "claim":
      return { kind: "claim", ttl: read.ttl, line, ignored, ...(read.target !== null ? { target: read.target } : {}), ...note };
    case "renew":
      return { kind: "renew", ttl: read.ttl, line, ignored, ...note };
    case "release":
      return { kind: "release", target: read.target, line, ignored, ...note };
    case "lease":
      return { kind: "lease", line, ignored, ...note };
  }
}

interface Args {
  target: string | null;
  ttl: number | null;
  note: string;
}

// A word read as a duration: it starts with a digit, or a sign or a point and a digit.
const NUMBER_LIKE = /^[-+.]?\d/;
const NUMBER = /^\d{1,9}(?:\.\d{1,6})?$/;
// Punctuation that may follow a mention or a duration in a sentence: `@octocat,`, `2h.`.
const TRAILING_PUNCTUATION = /[.,;:!?)]+$/;
// At most 39 characters with no way to backtrack between the alternatives, so linear.
const LOGIN = /^[a-z\d](?:[a-z\d]|[-_](?=[a-z\d])){0,38}(?:\[bot\])?$/i;

/** The arguments of a command line typed as `word` (the command's or an alias), or the message of a ParseError. */
function readArgs(name: Exclude<CommandName, "help">, typed: string, args: string): Args | string {
  const takes = TAKES[name];
  const say = (message: (name: CommandName, shown: string) => string) => message(name, `/${typed}`);
  const read: Args = { target: null, ttl: null, note: args };
  if (!takes.mention && !takes.duration) return read;
  for (let slot = 0; slot < 2; slot++) {
    const word = firstWord(read.note);
    if (word.startsWith("@") && read.target === null) {
      if (!takes.mention) return say(MESSAGES.noMention);
      const login = word.slice(1).replace(TRAILING_PUNCTUATION, "");
      if (!LOGIN.test(login)) return say(MESSAGES.mention);
      read.target = login;
      read.note = read.note.slice(word.length).trimStart();
    } else if (NUMBER_LIKE.test(word) && read.ttl === null) {
      if (!takes.duration) return say(MESSAGES.noDuration);
      const duration = readDuration(read.note, word);
      if (duration === null) return say(MESSAGES.duration);
      read.ttl = duration.ms;
      read.note = read.note.slice(duration.length).trimStart();
    } else {
      break;
    }
  }
  const next = firstWord(read.note);
  if (read.target !== null && next.startsWith("@")) return say(MESSAGES.mention);
  if (NUMBER_LIKE.test(next) && (read.ttl !== null || !takes.duration)) {
    return takes.duration ? say(MESSAGES.duration) : say(MESSAGES.noDuration);
  }
  return read;
}

function firstWord(text: string): string {
  const end = text.search(/\s/);
  return end === -1 ? text : text.slice(0, end);
}

/** A duration at the start of `text`, whose first word is `word`: one word (`2h`), or a number and a unit (`3 days`). */
function readDuration(text: string, word: string): { ms: number; length: number } | null {
  if (NUMBER.test(word)) {
    const unit = /^\s{1,3}([a-z]{1,7}[.,;:!?)]*)(?=\s|$)/i.exec(text.slice(word.length));
    const ms = unit ? parseDuration(`${word} ${unit[1]!.replace(TRAILING_PUNCTUATION, "")}`) : null;
    if (ms !== null) return { ms, length: word.length + unit![0].length };
  }
  const ms = parseDuration(word.replace(TRAILING_PUNCTUATION, ""));
  return ms === null ? null : { ms, length: word.length };
}

const MESSAGES = {
  duration: (_name: CommandName, shown: string) =>
    `\`${shown}\` reads a number right after it as a duration: write one such as ${DURATION_FORMS}, ` +
    "or start your note with a word.",
  noDuration: (name: CommandName, shown: string) =>
    `\`${shown}\` takes no duration${name === "release" ? ": it ends the lease now" : ""}. ` +
    "Write it on its own, or start your note with a word.",
  mention: (_name: CommandName, shown: string) =>
    `\`${shown}\` takes one \`@login\`, such as \`@octocat\` or \`@alice_contoso\` ` +
    "(letters, digits, and single hyphens or underscores between them).",
  noMention: (name: CommandName, shown: string) =>
    name === "renew"
      ? `\`${shown}\` extends your own lease and takes no \`@login\`; a maintainer can \`/release @login\` someone else's.`
      : `\`${shown}\` takes no \`@login\`.`,
};
