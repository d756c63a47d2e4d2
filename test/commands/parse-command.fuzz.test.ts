import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseCommand, type Command, type ParseError } from "../../src/commands/parse-command.js";

const FRAGMENTS = [
  "/claim", "/renew", "/release", "/lease", "/CLAIM", "/claimed", "/help", " help",
  " 2h", " 3 days", " soon", " @x", " @dependabot[bot]", "@x", "@", " @alice_contoso", ".", "!", "    ", "\t", "# ",
  "```", "~~~", "````", "`", "``", "> ", ">", "- ", "1. ",
  "<!--", "-->", "<!-->",
  "\n", "\r\n", "\r", " ", "\t", "x", "Thanks!",
];

/** Bodies built from the pieces the parser cares about, mixed with arbitrary text. */
const body = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 4 }), fc.string({ unit: "binary", maxLength: 4 })), {
    maxLength: 60,
  })
  .map((parts) => parts.join(""));

const KINDS = ["claim", "renew", "release", "lease", "help", "error"];

/** Fails unless `result` is null or a well-formed Command or ParseError. */
function expectWellFormed(result: Command | ParseError | null): void {
  if (result === null) return;
  expect(KINDS).toContain(result.kind);
  expect(Number.isInteger(result.ignored) && result.ignored >= 0).toBe(true);
  expect(result.line).toBe(result.line.trim());
  // The word ends at the end of the line, whitespace, or punctuation (`/claim.`).
  expect(result.line).toMatch(/^\/(claim|renew|release|lease|help)([\s.!?,;:]|$)/i);
  expect(result.line).not.toMatch(/[\r\n]/);
  switch (result.kind) {
    case "claim":
      if (result.target !== undefined) expect(result.target).toMatch(/^[a-z\d_-]{1,39}(\[bot\])?$/i);
      if (result.ttl !== null) expect(result.ttl > 0 && Number.isFinite(result.ttl)).toBe(true);
      break;
    case "renew":
      if (result.ttl !== null) expect(result.ttl > 0 && Number.isFinite(result.ttl)).toBe(true);
      break;
    case "release":
      if (result.target !== null) expect(result.target).toMatch(/^[a-z\d_-]{1,39}(\[bot\])?$/i);
      break;
    case "error":
      expect(result.message.length).toBeGreaterThan(0);
      break;
    case "lease":
    case "help":
      break;
  }
}

const lines = (text: string): string[] => text.split(/\r\n?|\n/);

describe("parseCommand on arbitrary input", () => {
  it("never throws and returns null, a Command or a ParseError", () => {
    fc.assert(
      fc.property(fc.oneof(body, fc.string(), fc.string({ unit: "binary" })), (text) => {
        expectWellFormed(parseCommand(text));
      }),
      { numRuns: 2000 },
    );
  });

  it("finds nothing in a body whose every line is quoted", () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(parseCommand(lines(text).map((line) => `> ${line}`).join("\n"))).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it("finds nothing in a body without a slash", () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(parseCommand(text.replaceAll("/", "|"))).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  it("reads CRLF bodies as it reads LF bodies", () => {
    fc.assert(
      fc.property(body, (text) => {
        fc.pre(!text.includes("\r"));
        expect(parseCommand(text.replaceAll("\n", "\r\n"))).toEqual(parseCommand(text));
      }),
      { numRuns: 1000 },
    );
  });

  it("finds nothing in a body indented four spaces after a blank line (an indented code block)", () => {
    fc.assert(
      fc.property(body, (text) => {
        expect(parseCommand(`Run this:\n\n${lines(text).map((line) => `    ${line}`).join("\n")}`)).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  const commandLine = fc.constantFrom("/claim", "/renew 2h", "/release @x", "/lease", "/claim soon", "/claim.", "/release @alice_contoso");

  it("finds nothing right after a quoted paragraph (a lazy continuation line)", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[A-Za-z][^\r\n<`>]{0,20}$/), commandLine, (quoted, command) => {
        expect(parseCommand(`> ${quoted}\n${command}`)).toBeNull();
        expect(parseCommand(`> ${quoted}\n\n${command}`)?.line).toBe(command);
      }),
      { numRuns: 500 },
    );
  });

  it("reads text after a command as a note, leaving the command as it was", () => {
    // A note that starts with a letter: not a duration, not a mention.
    const note = fc.stringMatching(/^[A-Za-z(][^\r\n<]{0,40}$/);
    fc.assert(
      fc.property(fc.constantFrom("claim", "renew", "release", "lease"), note, (name, text) => {
        const plain = parseCommand(`/${name}`)!;
        const result = parseCommand(`/${name} ${text}`);
        expect(result).toEqual({ ...plain, line: `/${name} ${text}`.trim(), note: text.trim() });
      }),
      { numRuns: 1000 },
    );
  });

  it("runs the first command line and counts the rest", () => {
    fc.assert(
      fc.property(fc.array(commandLine, { minLength: 1, maxLength: 20 }), (commands) => {
        const result = parseCommand(commands.join("\n"));
        expect(result?.line).toBe(commands[0]);
        expect(result?.ignored).toBe(commands.length - 1);
      }),
    );
  });
});

describe("parseCommand on huge input", () => {
  const SIZE = 65_536;

  it("parses random 64 KiB bodies", () => {
    fc.assert(
      fc.property(fc.string({ minLength: SIZE, maxLength: SIZE }), (text) => {
        expectWellFormed(parseCommand(text));
      }),
      { numRuns: 10 },
    );
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...FRAGMENTS), { minLength: 20_000, maxLength: 20_000 }),
        (parts) => {
          expectWellFormed(parseCommand(parts.join("")));
        },
      ),
      { numRuns: 10 },
    );
  });

  // Lengths of backtick runs 1, 2, 3, ... on separate lines: each opener looks for a closer of its own length.
  const growingRuns = Array.from({ length: 360 }, (_, i) => "`".repeat(i + 1)).join(" x\n") + "\n/claim";

  const adversarial: Array<[name: string, text: string]> = [
    ["backticks", "`".repeat(SIZE)],
    ["backticks and spaces", "` ".repeat(SIZE / 2)],
    ["backtick lines", "`\n".repeat(SIZE / 2)],
    ["backtick and command lines", "`\n/claim\n".repeat(SIZE / 9)],
    ["backtick runs and a command", "` `` ```` ".repeat(SIZE / 10) + "\n/claim"],
    ["growing backtick runs", growingRuns],
    ["fence lines", "```\n".repeat(SIZE / 4)],
    ["tilde lines", "~~~\n".repeat(SIZE / 4)],
    ["an opening fence then text", "```\n" + "x".repeat(SIZE)],
    ["a fence with a long info string", "```" + "x".repeat(SIZE) + "`"],
    ["comment openers", "<!--".repeat(SIZE / 4)],
    ["comment openers on lines", "<!--\n".repeat(SIZE / 5)],
    ["comment closers", "-->".repeat(SIZE / 3)],
    ["dashes", "<!" + "-".repeat(SIZE)],
    ["quotes", "> ".repeat(SIZE / 2)],
    ["spaces", " ".repeat(SIZE)],
    ["newlines", "\n".repeat(SIZE)],
    ["CRs", "\r".repeat(SIZE)],
    ["a claim with trailing spaces", "/claim " + " ".repeat(SIZE)],
    ["a claim with a long number", "/claim " + "1".repeat(SIZE) + "h"],
    ["a claim with spaces before the unit", "/claim 1" + " ".repeat(SIZE) + "h"],
    ["a long mention", "/release @" + "a".repeat(SIZE)],
    ["a long hyphenated mention", "/release @" + "a-".repeat(SIZE / 2)],
    ["many command lines", "/claim\n".repeat(Math.floor(SIZE / 7))],
    ["many slashes", "/".repeat(SIZE)],
    ["list markers", "- ".repeat(SIZE / 2)],
    ["digits", "1".repeat(SIZE) + ". ```"],
    // Issue 11's rules: lazy continuation, indented code, list items, notes, punctuation.
    ["a quote then command lines", "> a\n" + "/claim\n".repeat(Math.floor(SIZE / 7))],
    ["indented command lines", "\n" + "    /claim\n".repeat(Math.floor(SIZE / 11))],
    ["tabs then a command", "\t".repeat(SIZE) + "/claim"],
    ["list items and blank lines", "- a\n\n".repeat(Math.floor(SIZE / 5))],
    ["a list item indented deeply", " ".repeat(SIZE) + "- /claim"],
    ["nested quote markers with spaces", "> ".repeat(SIZE / 2) + "x\n/claim"],
    ["dashes and spaces (a thematic break) then text", "- ".repeat(SIZE / 2) + "x\n/claim"],
    ["a claim with many mentions", "/claim " + "@a ".repeat(Math.floor(SIZE / 3))],
    ["a claim with a long note", "/claim " + "note ".repeat(Math.floor(SIZE / 5))],
    ["a claim with punctuation", "/claim" + ".".repeat(SIZE)],
    ["a claim with a long login", "/claim @" + "a_".repeat(SIZE / 2)],
  ];

  // No timing assertions here (the machine is shared and noisy): a parser that
  // backtracked catastrophically on these would hit the test timeout instead.
  it.each(adversarial)("parses %s without throwing", (_name, text) => {
    expectWellFormed(parseCommand(text));
  });

  it("counts every command line of a huge body", () => {
    const count = Math.floor(SIZE / 7);
    expect(parseCommand("/claim\n".repeat(count))).toEqual({ kind: "claim", ttl: null, line: "/claim", ignored: count - 1 });
  });
});
