import { describe, expect, it } from "vitest";
import { type CommandWords, isParseError, mayNeedWords, parseCommand, type Command, type ParseError } from "../../src/commands/parse-command.js";
import { asTyped, type Case, cases } from "./command-cases.js";

const HOUR = 3_600_000;

/** A repository's aliases, one for each command, of other lengths than the commands' own words. */
const ALIASES: Record<string, string> = { claim: "take", renew: "extend-it", release: "unassign-me", lease: "who" };
const words: CommandWords = { aliases: new Map(Object.entries(ALIASES).map(([command, alias]) => [alias, command as "claim"])) };

/** `/claim` written as `/take`, keeping its case (`/CLAIM` as `/TAKE`); `/claimed` and `/releases` stay as they are. */
function aliased(text: string): string {
  return text.replace(/\/(claim|renew|release|lease)(?![a-z\d])/gi, (_m, word: string) => {
    const alias = ALIASES[word.toLowerCase()]!;
    return `/${word === word.toUpperCase() ? alias.toUpperCase() : alias}`;
  });
}

function aliasedResult(expected: Command | ParseError | null): Command | ParseError | null {
  return expected === null ? null : { ...expected, line: aliased(expected.line) };
}

describe("aliases, through the parser's own table of cases", () => {
  // Every case, each command typed as its alias: the same command, durations, notes, quotes and code.
  it.each([...cases, ...asTyped] as Case[])("%s", (_name, body, expected) => {
    expect(parseCommand(aliased(body), words)).toEqual(aliasedResult(expected));
  });

  it("reads no alias without the repository's words", () => {
    expect(parseCommand("/take 2h")).toBeNull();
    expect(parseCommand("/take 2h", words)).toEqual({ kind: "claim", ttl: 2 * HOUR, line: "/take 2h", ignored: 0 });
  });

  it("names the word as typed in a message, never the user's text", () => {
    const result = parseCommand("/unassign-me 2h zzqx", words);
    expect(isParseError(result) && result.message).toMatch(/^`\/unassign-me` takes no duration: it ends the lease now/);
    expect(isParseError(result) && result.command).toBe("release");
    const claim = parseCommand("/take @a @zzqx", words);
    expect(isParseError(claim) && claim.message).toMatch(/^`\/take` takes one `@login`/);
    expect(isParseError(claim) && claim.message).not.toContain("zzqx");
  });

  it("runs the first command line, alias or not, and counts the others", () => {
    expect(parseCommand("/claim\n/take 2h", words)).toEqual({ kind: "claim", ttl: null, line: "/claim", ignored: 1 });
    expect(parseCommand("/take 2h\n/claim", words)).toEqual({ kind: "claim", ttl: 2 * HOUR, line: "/take 2h", ignored: 1 });
  });
});

describe("the mention form", () => {
  const mention: CommandWords = { ...words, mention: "issue-leases" };
  const table: Array<[string, string, Command | ParseError | null]> = [
    ["a command", "@issue-leases claim", { kind: "claim", ttl: null, line: "@issue-leases claim", ignored: 0 }],
    ["with a duration and a note", "@issue-leases claim 2h on it", { kind: "claim", ttl: 2 * HOUR, line: "@issue-leases claim 2h on it", ignored: 0, note: "on it" }],
    ["the slug in any case, as a bot", "@Issue-Leases[bot] release", { kind: "release", target: null, line: "@Issue-Leases[bot] release", ignored: 0 }],
    ["with the slash", "@issue-leases /lease", { kind: "lease", line: "@issue-leases /lease", ignored: 0 }],
    ["an alias", "@issue-leases take", { kind: "claim", ttl: null, line: "@issue-leases take", ignored: 0 }],
    ["a maintainer giving it", "@issue-leases claim @alice 3h", { kind: "claim", ttl: 3 * HOUR, line: "@issue-leases claim @alice 3h", ignored: 0, target: "alice" }],
    ["help", "@issue-leases help", { kind: "help", line: "@issue-leases help", ignored: 0 }],
    ["after text", "Thanks!\n@issue-leases claim", { kind: "claim", ttl: null, line: "@issue-leases claim", ignored: 0 }],
    ["another account", "@rustbot claim", null],
    ["a longer slug", "@issue-leases-x claim", null],
    ["a word that is no command", "@issue-leases thanks", null],
    ["the mention alone", "@issue-leases", null],
    ["the mention not first", "cc @issue-leases claim", null],
    ["quoted", "> @issue-leases claim", null],
    ["in code", "```\n@issue-leases claim\n```", null],
    ["a word glued on", "@issue-leases claimed", null],
  ];
  it.each(table)("%s", (_name, body, expected) => {
    expect(parseCommand(body, mention)).toEqual(expected);
  });

  it("is off unless the repository turns it on", () => {
    expect(parseCommand("@issue-leases claim", words)).toBeNull();
  });
});

describe("/help", () => {
  it.each([
    ["/help", { kind: "help", line: "/help", ignored: 0 }],
    ["/HELP!", { kind: "help", line: "/HELP!", ignored: 0 }],
    ["/help me with this", { kind: "help", line: "/help me with this", ignored: 0 }],
    ["/lease help", { kind: "help", line: "/lease help", ignored: 0 }],
    ["/lease Help?", { kind: "help", line: "/lease Help?", ignored: 0 }],
    ["/lease helpful", { kind: "lease", line: "/lease helpful", ignored: 0, note: "helpful" }],
    ["/helpme", null],
    ["`/help`", null],
  ] as Array<[string, Command | null]>)("%s", (body, expected) => {
    expect(parseCommand(body)).toEqual(expected);
  });

  it("is read through an alias of /lease", () => {
    expect(parseCommand("/who help", words)).toEqual({ kind: "help", line: "/who help", ignored: 0 });
  });
});

describe("mayNeedWords: whether the config must be read to parse a body", () => {
  it.each([
    ["/take", true],
    ["/claim", true],
    ["Thanks!\n@issue-leases claim", true],
    ["@alice could you look?", true],
    ["I'd like this", false],
    ["> /take", false],
    ["```\n/take\n```", false],
    ["    /take", false],
    ["`/take`", false],
    ["x /take", false],
    ["<!-- /take -->", false],
  ] as Array<[string, boolean]>)("%s", (body, expected) => {
    expect(mayNeedWords(body)).toBe(expected);
  });
});
