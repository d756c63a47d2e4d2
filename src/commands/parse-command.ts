/**
 * Comment commands, one to a line:
 *
 *   /claim [DURATION]    take the issue, for DURATION or the repo's default
 *   /renew [DURATION]    extend your lease
 *   /release [@login]    end your own lease, or @login's
 *   /lease               say who holds the issue
 *
 * A command line is a line whose first text, after any spaces or tabs, is one
 * of those four words in any case (`/Claim`), followed by the end of the line
 * or whitespace. `/claimed`, `/claim-it`, `/claim.` and `x /claim` are not
 * commands. Text on other lines is fine ("Thanks!\n/claim"), and so are CRLF
 * line endings.
 *
 * What a reader sees as quoted or as code is never a command, so that bots
 * quoting each other do not loop:
 *
 *   - block quotes: lines whose first text is `>` (`> /claim`, `> > /claim`);
 *   - fenced code: from a line of three or more backticks or tildes to a line
 *     of at least as many of the same character, or to the end of the body.
 *     The fence may be indented, or follow a list marker (`- ```), as in a
 *     list item; a backtick fence's info string has no backticks (CommonMark),
 *     so "```x``` text" is inline code, not a fence;
 *   - inline code: a line starting with a backtick, or starting inside a code
 *     span that an earlier line of the same paragraph opened ("`\n/claim\n`");
 *   - HTML comments, `<!-- ... -->`, anywhere in a line and over any number of
 *     lines; one left open runs to the end of the body. The line on which a
 *     comment closes is not a command line either.
 *
 * The first command line runs. The others do not, and `ignored` counts them so
 * that the reply can say so.
 *
 * Arguments are the rest of the line, trimmed, with any HTML comment in it
 * removed:
 *
 *   /claim, /renew   nothing (ttl null: the repo's default applies) or one
 *                    duration that `parseDuration` accepts (ttl in ms);
 *   /release         nothing (target null: yourself) or one `@login`, a
 *                    GitHub login (1-39 letters, digits and single hyphens, no
 *                    hyphen at either end) optionally followed by `[bot]`;
 *                    target is the login as typed, without the `@`;
 *   /lease           nothing.
 *
 * Anything else is a ParseError whose message says what is accepted. Whether a
 * duration is within the repo's limits is not decided here.
 *
 * The parser never throws, and runs in time linear in the length of the body.
 */

import { DURATION_FORMS, parseDuration } from "./parse-duration.js";

export type CommandName = "claim" | "renew" | "release" | "lease";

export type Command =
  /** ttl in ms; null when no duration was given and the repo's default applies. */
  | { kind: "claim"; ttl: number | null; line: string; ignored: number }
  | { kind: "renew"; ttl: number | null; line: string; ignored: number }
  /** target is a login without the "@"; null means the commenter. */
  | { kind: "release"; target: string | null; line: string; ignored: number }
  | { kind: "lease"; line: string; ignored: number };

/** A command line whose arguments did not parse; `message` says what is accepted and never echoes the user's text. */
export interface ParseError {
  kind: "error";
  command: CommandName;
  line: string;
  message: string;
  ignored: number;
}

/** The first command in a comment body, a ParseError for it, or null when the body has no command. */
export function parseCommand(body: string): Command | ParseError | null {
  const lines = findCommandLines(body);
  const first = lines[0];
  return first === undefined ? null : interpret(first, lines.length - 1);
}

export function isParseError(x: Command | ParseError | null): x is ParseError {
  return x !== null && x.kind === "error";
}

const COMMAND_NAMES: readonly string[] = ["claim", "renew", "release", "lease"] satisfies CommandName[];

/** A command line, trimmed, split into its name and its (trimmed) arguments. */
interface CommandLine {
  name: CommandName;
  args: string;
  line: string;
}

function interpret({ name, args, line }: CommandLine, ignored: number): Command | ParseError {
  const fail = (message: string): ParseError => ({ kind: "error", command: name, line, message, ignored });
  switch (name) {
    case "claim":
    case "renew": {
      if (args === "") return { kind: name, ttl: null, line, ignored };
      const ttl = parseDuration(args);
      if (ttl === null) return fail(`\`/${name}\` takes an optional duration such as ${DURATION_FORMS}.`);
      return { kind: name, ttl, line, ignored };
    }
    case "release": {
      if (args === "") return { kind: "release", target: null, line, ignored };
      const target = parseMention(args);
      if (target === null) {
        return fail(
          "`/release` takes nothing, to end your own lease, or one `@login`, such as `@octocat`, to end that person's.",
        );
      }
      return { kind: "release", target, line, ignored };
    }
    case "lease":
      if (args !== "") return fail("`/lease` takes no arguments: write it on a line of its own.");
      return { kind: "lease", line, ignored };
  }
}

// At most 39 characters with no way to backtrack between the alternatives, so linear.
const MENTION = /^@([a-z\d](?:-?[a-z\d]){0,38}(?:\[bot\])?)$/i;

/** The login in "@login" as typed, or null. */
function parseMention(text: string): string | null {
  return MENTION.exec(text)?.[1] ?? null;
}

/** A line whose first text is a command word, split; null for any other line. */
function splitCommandLine(text: string): CommandLine | null {
  const line = text.trim();
  if (!line.startsWith("/")) return null;
  const space = line.search(/\s/);
  const word = (space === -1 ? line : line.slice(0, space)).slice(1).toLowerCase();
  if (!COMMAND_NAMES.includes(word)) return null;
  return { name: word as CommandName, args: space === -1 ? "" : line.slice(space).trim(), line };
}

interface Fence {
  char: string;
  length: number;
  /** The closing fence may be indented this much and no more. */
  maxIndent: number;
}

/** A line of a paragraph: its text with HTML comments hidden, and the command it holds if it is a command line. */
interface ParagraphLine {
  text: string;
  command: CommandLine | null;
}

/** The command lines of a body, in order, leaving out quotes, code and HTML comments. */
function findCommandLines(body: string): CommandLine[] {
  const found: CommandLine[] = [];
  let fence: Fence | null = null;
  let inComment = false;
  let paragraph: ParagraphLine[] = [];
  const endParagraph = (): void => {
    collectCommands(paragraph, found);
    paragraph = [];
  };

  for (const line of body.split(/\r\n?|\n/)) {
    if (fence !== null) {
      if (closesFence(line, fence)) fence = null;
      continue;
    }
    if (inComment) {
      const end = line.indexOf("-->");
      if (end !== -1) inComment = hideComments(line.slice(end + 3)).open;
      endParagraph();
      continue;
    }
    const opened = openFence(line);
    if (opened !== null) {
      endParagraph();
      fence = opened;
      continue;
    }
    const first = line.trimStart();
    if (first === "" || first.startsWith(">")) {
      endParagraph();
      continue;
    }
    const { text, open } = hideComments(line);
    inComment = open;
    // The command word must be the line's first text as written: "<!-- -->/claim" is not a command.
    paragraph.push({ text, command: first.startsWith("/") ? splitCommandLine(text) : null });
  }
  endParagraph();
  return found;
}

/** `line` with each HTML comment replaced by a space; `open` when the last comment runs past the line. */
function hideComments(line: string): { text: string; open: boolean } {
  let text = "";
  let from = 0;
  for (;;) {
    const start = line.indexOf("<!--", from);
    if (start === -1) return { text: text + line.slice(from), open: false };
    text += line.slice(from, start) + " ";
    // From start + 2, so that "<!-->" and "<!--->" close themselves, as in CommonMark.
    const end = line.indexOf("-->", start + 2);
    if (end === -1) return { text, open: true };
    from = end + 3;
  }
}

const LIST_MARKER = /^(?:[-*+]|\d{1,9}[.)])[ \t]+/;

function leadingBlanks(line: string): number {
  let i = 0;
  while (line[i] === " " || line[i] === "\t") i++;
  return i;
}

function openFence(line: string): Fence | null {
  let rest = line.slice(leadingBlanks(line));
  const marker = LIST_MARKER.exec(rest);
  if (marker !== null) rest = rest.slice(marker[0].length);
  const char = rest[0];
  if (char !== "`" && char !== "~") return null;
  let length = 1;
  while (rest[length] === char) length++;
  if (length < 3) return null;
  if (char === "`" && rest.includes("`", length)) return null;
  // CommonMark allows a closing fence three spaces of indentation; inside a list item that counts from the item's content.
  const indent = line.length - rest.length;
  return { char, length, maxIndent: indent <= 3 ? 3 : indent + 3 };
}

function closesFence(line: string, fence: Fence): boolean {
  const indent = leadingBlanks(line);
  if (indent > fence.maxIndent) return false;
  let end = indent;
  while (line[end] === fence.char) end++;
  return end - indent >= fence.length && line.slice(end).trim() === "";
}

/** Adds to `found` the command lines of a paragraph that do not start inside a code span. */
function collectCommands(paragraph: ParagraphLine[], found: CommandLine[]): void {
  if (!paragraph.some((line) => line.command !== null)) return;
  const inCode = linesStartingInCode(paragraph.map((line) => line.text));
  paragraph.forEach((line, i) => {
    if (line.command !== null && !inCode[i]) found.push(line.command);
  });
}

/**
 * For each line of a paragraph, whether it starts inside a code span opened on
 * an earlier line. As in CommonMark, a run of n backticks opens a span that the
 * next run of exactly n backticks closes; with no such run it is literal text.
 */
function linesStartingInCode(lines: string[]): boolean[] {
  const runs: Array<{ line: number; length: number }> = [];
  lines.forEach((text, line) => {
    let i = 0;
    while (i < text.length) {
      if (text[i] !== "`") {
        i++;
        continue;
      }
      const start = i;
      while (text[i] === "`") i++;
      runs.push({ line, length: i - start });
    }
  });

  // Runs of each length, in order, and how far each list has been passed, so that the matching is linear.
  const byLength = new Map<number, number[]>();
  runs.forEach((run, index) => {
    const list = byLength.get(run.length);
    if (list === undefined) byLength.set(run.length, [index]);
    else list.push(index);
  });
  const passed = new Map<number, number>();

  const inCode = lines.map(() => false);
  let r = 0;
  while (r < runs.length) {
    const open = runs[r]!;
    const sameLength = byLength.get(open.length)!;
    let k = passed.get(open.length) ?? 0;
    while (k < sameLength.length && sameLength[k]! <= r) k++;
    passed.set(open.length, k);
    const close = sameLength[k];
    if (close === undefined) {
      r++;
      continue;
    }
    for (let line = open.line + 1; line <= runs[close]!.line; line++) inCode[line] = true;
    r = close + 1;
  }
  return inCode;
}
