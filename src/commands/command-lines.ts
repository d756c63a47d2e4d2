/**
 * Which lines of a comment are command lines: a line whose first text is a
 * command word, and that a reader sees as ordinary text. What GitHub shows as
 * quoted or as code is never a command, so that bots quoting each other do
 * not loop. The rules followed are CommonMark's (GitHub Flavored Markdown is
 * CommonMark plus extensions that do not change them):
 *
 *   - block quotes (CommonMark 5.1): lines whose first text is `>`, and the
 *     lazy continuation lines of a quoted paragraph, which GitHub shows inside
 *     the quote: "> I said\n/claim" quotes the `/claim`. A line that starts a
 *     block of its own (a list item, a heading, a fence, a thematic break, an
 *     HTML tag) ends the quote, and so does a blank line;
 *   - fenced code (4.5): from a line of three or more backticks or tildes to
 *     a line of at least as many of the same character, or to the end of the
 *     body. The fence may be indented up to three spaces, or follow a list
 *     marker (`- ```), as in a list item; a backtick fence's info string has
 *     no backticks, so "```x``` text" is inline code, not a fence;
 *   - indented code (4.4): a line indented four or more columns (a tab counts
 *     to the next multiple of four) where no paragraph is open, so after a
 *     blank line or at the start of the body, and the lines after it that are
 *     blank or indented as much. It cannot interrupt a paragraph
 *     ("Thanks!\n    /claim" is text), and inside a list item the item's
 *     own indentation comes first: "- a\n\n    /claim" continues the item
 *     as ordinary text;
 *   - inline code (6.1): a line starting with a backtick, or starting inside
 *     a code span that an earlier line of the same paragraph opened
 *     ("`\n/claim\n`"). A run of n backticks opens a span that the next run
 *     of exactly n backticks closes; with no such run it is literal text;
 *   - HTML comments (6.6), `<!-- ... -->`, anywhere in a line and over any
 *     number of lines; one left open runs to the end of the body. The line on
 *     which a comment closes is not a command line either.
 *
 * Everything here runs in time linear in the length of the body.
 */

import { type CommandLine, type CommandWords, splitCommandLine } from "./command-words.js";

export type { CommandLine, CommandName, CommandWords } from "./command-words.js";

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

/** The command lines of a body, in order, leaving out quotes, code and HTML comments; `words`: a repository's aliases and mention form. */
export function findCommandLines(body: string, words: CommandWords = {}): CommandLine[] {
  const found: CommandLine[] = [];
  let fence: Fence | null = null;
  let inComment = false;
  let paragraph: ParagraphLine[] = [];
  /** Whether the last line left a paragraph open (an indented line then continues it, not code). */
  let paragraphOpen = false;
  /** Whether the last line was (or lazily continued) a quoted paragraph: a text line now continues the quote. */
  let quoteOpen = false;
  /** The indentation, in columns, of an indented code block being read; null outside one. */
  let codeIndent: number | null = null;
  /** The column where the content of the list item being read starts; null outside a list. */
  let listContent: number | null = null;
  let blankBefore = true;
  const endParagraph = (): void => {
    collectCommands(paragraph, found);
    paragraph = [];
    paragraphOpen = false;
  };

  for (const line of body.split(/\r\n?|\n/)) {
    const blank = line.trim() === "";
    const wasBlank = blankBefore;
    blankBefore = blank;
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
    const indent = columns(line);
    if (codeIndent !== null) {
      if (blank || indent >= codeIndent) continue;
      codeIndent = null;
    }
    if (blank) {
      endParagraph();
      quoteOpen = false;
      continue;
    }
    const first = line.trimStart();
    if (first.startsWith(">")) {
      endParagraph();
      quoteOpen = quotedParagraph(first);
      continue;
    }
    if (quoteOpen) {
      if (!startsBlock(line)) continue; // a lazy continuation line: GitHub shows it in the quote
      quoteOpen = false;
    }
    // A list marker indented four columns past the list's content is not one: it is code, or a paragraph's text.
    const marker = LIST_ITEM.exec(line);
    const item = marker !== null && indent < 4 + (listContent ?? 0) ? marker : null;
    if (item !== null) {
      listContent = itemContentColumn(item[0]);
    } else if (wasBlank && listContent !== null && indent < listContent) {
      listContent = null; // text less indented than the item's content, after a blank line, ends the list
    }
    if (!paragraphOpen && item === null && indent >= (listContent ?? 0) + 4) {
      endParagraph();
      codeIndent = (listContent ?? 0) + 4;
      continue;
    }
    const opened = openFence(line);
    if (opened !== null) {
      endParagraph();
      fence = opened;
      continue;
    }
    const { text, open } = hideComments(line);
    inComment = open;
    // The command word must be the line's first text as written: "<!-- -->/claim" is not a command.
    const word = first.startsWith("/") || ((words.mention !== undefined || words.anyWord === true) && first.startsWith("@"));
    paragraph.push({ text, command: word ? splitCommandLine(text, words) : null });
    paragraphOpen = text.trim() !== "" && !ATX_HEADING.test(first) && !THEMATIC_BREAK.test(first);
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
// A list item as a whole line: up to three spaces, the marker, and its spaces (or the end of the line).
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)/;
const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;
const THEMATIC_BREAK = /^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/;

function leadingBlanks(line: string): number {
  let i = 0;
  while (line[i] === " " || line[i] === "\t") i++;
  return i;
}

/** The indentation of a line in columns, a tab advancing to the next multiple of four (CommonMark 2.2). */
function columns(text: string): number {
  let column = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === " ") column++;
    else if (text[i] === "\t") column += 4 - (column % 4);
    else break;
  }
  return column;
}

/** Where a list item's content starts: after the marker and its spaces, or one column after the marker when there are none or five or more (then the rest is indented code). */
function itemContentColumn(item: string): number {
  let column = 0;
  let i = 0;
  for (; item[i] === " " || item[i] === "\t"; i++) column = item[i] === " " ? column + 1 : column + 4 - (column % 4);
  for (; i < item.length && item[i] !== " " && item[i] !== "\t"; i++) column++;
  const markerEnd = column;
  for (; i < item.length; i++) column = item[i] === " " ? column + 1 : column + 4 - (column % 4);
  const spaces = column - markerEnd;
  return spaces >= 1 && spaces <= 4 ? column : markerEnd + 1;
}

/** Whether a `>` line (trimmed at the start) holds paragraph text, which a following text line would continue lazily. */
function quotedParagraph(quoted: string): boolean {
  // Nested markers, each with one optional space: `> > x`, `>>x`. By index: a line of 30,000 markers is read once.
  let i = 0;
  for (;;) {
    i++; // the `>`
    if (quoted[i] === " " || quoted[i] === "\t") i++;
    let j = i;
    while (j < i + 3 && quoted[j] === " ") j++;
    if (quoted[j] !== ">") break;
    i = j;
  }
  const rest = quoted.slice(i);
  if (rest.trim() === "" || columns(rest) >= 4) return false; // nothing, or indented code inside the quote
  const content = rest.trimStart();
  if (ATX_HEADING.test(content) || THEMATIC_BREAK.test(content.trimEnd())) return false;
  return openFence(content) === null;
}

/** Whether a line starts a block of its own, so that it cannot continue a quoted paragraph lazily. */
function startsBlock(line: string): boolean {
  if (columns(line) >= 4) return false; // indented code cannot interrupt a paragraph
  const content = line.trimStart();
  return (
    LIST_ITEM.test(line) ||
    ATX_HEADING.test(content) ||
    THEMATIC_BREAK.test(content.trimEnd()) ||
    content.startsWith("<") ||
    openFence(line) !== null
  );
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
