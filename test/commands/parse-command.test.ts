import { describe, expect, it } from "vitest";
import { isParseError, parseCommand, type Command, type CommandName, type ParseError } from "../../src/commands/parse-command.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const claim = (line: string, ttl: number | null = null, ignored = 0): Command => ({ kind: "claim", ttl, line, ignored });
const renew = (line: string, ttl: number | null = null, ignored = 0): Command => ({ kind: "renew", ttl, line, ignored });
const release = (line: string, target: string | null = null, ignored = 0): Command => ({ kind: "release", target, line, ignored });
const lease = (line: string, ignored = 0): Command => ({ kind: "lease", line, ignored });
const error = (command: CommandName, line: string, ignored = 0): ParseError => ({
  kind: "error",
  command,
  line,
  message: expect.any(String) as string,
  ignored,
});

const cases: Array<[name: string, body: string, expected: Command | ParseError | null]> = [
  // Each command, with and without arguments.
  ["claim", "/claim", claim("/claim")],
  ["claim with a duration", "/claim 2h", claim("/claim 2h", 2 * HOUR)],
  ["claim with a long-form duration", "/claim 3 days", claim("/claim 3 days", 3 * DAY)],
  ["claim with a decimal duration", "/claim 1.5h", claim("/claim 1.5h", 90 * MINUTE)],
  ["renew", "/renew", renew("/renew")],
  ["renew with a duration", "/renew 45m", renew("/renew 45m", 45 * MINUTE)],
  ["release", "/release", release("/release")],
  ["release someone", "/release @octocat", release("/release @octocat", "octocat")],
  ["release keeps the login's case", "/release @OctoCat", release("/release @OctoCat", "OctoCat")],
  ["release a hyphenated login", "/release @my-user-1", release("/release @my-user-1", "my-user-1")],
  ["release a bot", "/release @dependabot[bot]", release("/release @dependabot[bot]", "dependabot[bot]")],
  ["release a 39-character login", `/release @${"a".repeat(39)}`, release(`/release @${"a".repeat(39)}`, "a".repeat(39))],
  ["lease", "/lease", lease("/lease")],

  // Case, whitespace and line endings.
  ["upper case", "/CLAIM 2H", claim("/CLAIM 2H", 2 * HOUR)],
  ["mixed case", "/Release @x", release("/Release @x", "x")],
  ["leading spaces", "   /claim", claim("/claim")],
  ["leading tab", "\t/renew", renew("/renew")],
  ["trailing spaces", "/claim 2h   ", claim("/claim 2h", 2 * HOUR)],
  ["tab before the argument", "/claim\t2h", claim("/claim\t2h", 2 * HOUR)],
  ["several spaces before the argument", "/claim    2h", claim("/claim    2h", 2 * HOUR)],
  ["CRLF", "Thanks!\r\n/claim 2h\r\n", claim("/claim 2h", 2 * HOUR)],
  ["CR alone", "Thanks!\r/lease\r", lease("/lease")],
  ["text before", "Thanks!\n/claim", claim("/claim")],
  ["text around", "I can do this.\n/claim 3d\nWill send a PR soon.", claim("/claim 3d", 3 * DAY)],

  // Not commands at all.
  ["empty body", "", null],
  ["whitespace only", "  \n\t\r\n   ", null],
  ["no command", "I'd like to work on this", null],
  ["a longer word", "/claimed", null],
  ["a hyphenated word", "/claim-it", null],
  ["punctuation after the word", "/claim.", null],
  ["a plural", "/releases", null],
  ["mid-line", "x /claim", null],
  ["mid-line after words", "Could I /claim this?", null],
  ["no slash", "claim", null],
  ["a double slash", "//claim", null],
  ["a slash alone", "/", null],
  ["an unknown command", "/assign", null],

  // Block quotes.
  ["quoted", "> /claim", null],
  ["quoted without a space", ">/claim", null],
  ["nested quote", "> > /claim", null],
  ["nested quote without spaces", ">>/claim", null],
  ["indented quote", "   > /claim", null],
  ["quote then reply", "> /claim\n\n/renew", renew("/renew")],

  // Fenced code.
  ["backtick fence", "```\n/claim\n```", null],
  ["tilde fence", "~~~\n/claim\n~~~", null],
  ["fence with an info string", "```sh\n/claim\n```", null],
  ["indented fence", "   ```\n/claim\n   ```", null],
  ["fence in a list item", "- ```\n  /claim\n  ```", null],
  ["fence in a numbered list item", "1. ```\n   /claim\n   ```", null],
  ["unclosed fence", "```\n/claim", null],
  ["unclosed fence runs to the end", "```\n/claim\n\n\n/renew", null],
  ["command after the fence closes", "```\n/claim\n```\n/renew", renew("/renew")],
  ["longer closing fence", "```\n/claim\n`````\n/renew", renew("/renew")],
  ["shorter fence does not close", "````\n```\n/claim\n````\n/renew", renew("/renew")],
  ["other character does not close", "```\n~~~\n/claim\n```\n/lease", lease("/lease")],
  ["fence with text after does not close", "```\n``` x\n/claim\n```\n/lease", lease("/lease")],
  ["tildes inside a backtick fence", "```\n~~~\n/claim\n~~~\n```", null],
  ["over-indented closing fence does not close", "```\n    ```\n/claim", null],
  ["two backticks are not a fence", "``\n/claim", claim("/claim")],
  ["inline code on its own line is not a fence", "```x``` text\n\n/claim", claim("/claim")],
  ["command before the fence", "/claim\n```\n/renew\n```", claim("/claim")],

  // Inline code.
  ["inline code", "`/claim`", null],
  ["inline code with an argument", "`/claim 2h`", null],
  ["inline code mid-line", "Type `/claim` to take this", null],
  ["inline code spanning lines", "`\n/claim\n`", null],
  ["inline code opened mid-line spanning lines", "Use `the\n/claim` command", null],
  ["double-backtick span spanning lines", "``a\n/claim ` b``", null],
  ["a lone backtick is literal", "can't use ` here\n/claim", claim("/claim")],
  ["a span closed on the same line", "run `x`\n/claim", claim("/claim")],
  ["runs of other lengths do not close", "``x\n/claim\n`", claim("/claim")],
  ["a blank line ends a paragraph and its spans", "`\n\n/claim\n`", claim("/claim")],
  ["inline code after a command", "/claim `2h`", error("claim", "/claim `2h`")],

  // HTML comments.
  ["HTML comment", "<!-- /claim -->", null],
  ["multi-line HTML comment", "<!--\n/claim\n-->", null],
  ["HTML comment opened mid-line", "Text <!--\n/claim\n-->", null],
  ["unclosed HTML comment", "<!--\n/claim", null],
  ["command after the comment ends", "<!--\n/claim\n-->\n/renew 2h", renew("/renew 2h", 2 * HOUR)],
  ["command after a one-line comment", "<!-- issue-leases:{\"v\":1} -->\n/release", release("/release")],
  ["text after the closing is not a command line", "<!--\nx\n--> /claim", null],
  ["a comment before the command on the line", "<!-- x -->/claim", null],
  ["a comment after the command", "/claim 2h <!-- note -->", claim("/claim 2h", 2 * HOUR)],
  ["a comment running past the command line", "/claim <!--\n2h\n-->", claim("/claim")],
  ["a comment that closes itself", "<!-->\n/claim", claim("/claim")],
  ["a fence inside a comment", "<!--\n```\n-->\n/claim", claim("/claim")],
  ["a comment inside a fence", "```\n<!--\n```\n/claim", claim("/claim")],

  // Several commands: the first runs, the others are counted.
  ["two commands", "/claim\n/renew 2h", claim("/claim", null, 1)],
  ["three commands", "/lease\n/claim 2h\n/release", lease("/lease", 2)],
  ["a bad command still counts", "/claim\n/renew forever", claim("/claim", null, 1)],
  ["the first command is bad", "/claim forever\n/renew", error("claim", "/claim forever", 1)],
  ["quoted and fenced commands are not counted", "> /renew\n/claim\n```\n/lease\n```\n<!-- /release -->", claim("/claim")],
  ["the same command twice", "/claim 2h\n\n/claim 3d", claim("/claim 2h", 2 * HOUR, 1)],

  // Arguments that do not parse.
  ["claim with words", "/claim I'll take this", error("claim", "/claim I'll take this")],
  ["claim with a negative duration", "/claim -2h", error("claim", "/claim -2h")],
  ["claim with a zero duration", "/claim 0s", error("claim", "/claim 0s")],
  ["claim with an unknown unit", "/claim 2 parsecs", error("claim", "/claim 2 parsecs")],
  ["claim with two durations", "/claim 2h 30m", error("claim", "/claim 2h 30m")],
  ["claim with a number alone", "/claim 2", error("claim", "/claim 2")],
  ["renew with words", "/renew please", error("renew", "/renew please")],
  ["release without @", "/release octocat", error("release", "/release octocat")],
  ["release two people", "/release @a @b", error("release", "/release @a @b")],
  ["release @ alone", "/release @", error("release", "/release @")],
  ["release a login with a double hyphen", "/release @a--b", error("release", "/release @a--b")],
  ["release a login starting with a hyphen", "/release @-a", error("release", "/release @-a")],
  ["release a login ending with a hyphen", "/release @a-", error("release", "/release @a-")],
  ["release a 40-character login", `/release @${"a".repeat(40)}`, error("release", `/release @${"a".repeat(40)}`)],
  ["release a login with punctuation", "/release @octocat,", error("release", "/release @octocat,")],
  ["release a misspelt bot", "/release @dependabot[bots]", error("release", "/release @dependabot[bots]")],
  ["release with a duration", "/release 2h", error("release", "/release 2h")],
  ["lease with an argument", "/lease extra", error("lease", "/lease extra")],
  ["lease with a mention", "/LEASE @octocat", error("lease", "/LEASE @octocat")],
];

describe("parseCommand", () => {
  it.each(cases)("%s", (_name, body, expected) => {
    expect(parseCommand(body)).toEqual(expected);
  });
});

describe("parse error messages", () => {
  const messageOf = (body: string): string => {
    const result = parseCommand(body);
    if (!isParseError(result)) throw new Error(`expected a parse error for ${JSON.stringify(body)}`);
    return result.message;
  };

  it("says what a duration looks like", () => {
    expect(messageOf("/claim soon")).toBe(
      "`/claim` takes an optional duration such as `30s`, `45m`, `2h`, `3d`, `2w`, or `2 hours`, `3 days`.",
    );
    expect(messageOf("/renew soon")).toMatch(/^`\/renew` takes an optional duration such as /);
  });

  it("says /release takes nothing or an @login", () => {
    expect(messageOf("/release bob")).toMatch(/`\/release` takes nothing.*`@login`/);
  });

  it("says /lease takes nothing", () => {
    expect(messageOf("/lease now")).toMatch(/`\/lease` takes no arguments/);
  });

  it.each(["/claim <script>zzqx", "/renew zzqx", "/release zzqx", "/lease zzqx"])(
    "does not echo the user's text: %s",
    (body) => {
      expect(messageOf(body)).not.toContain("zzqx");
    },
  );
});

describe("isParseError", () => {
  it("tells errors from commands and null", () => {
    expect(isParseError(parseCommand("/claim soon"))).toBe(true);
    expect(isParseError(parseCommand("/claim"))).toBe(false);
    expect(isParseError(parseCommand("hello"))).toBe(false);
  });
});
