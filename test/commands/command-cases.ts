/**
 * The parser's table of cases: each body and what parseCommand reads in it.
 * parse-command.test.ts runs them as written; command-words.test.ts runs
 * them again with each command typed as a repository's alias.
 */
import { expect } from "vitest";
import type { Command, CommandName, ParseError } from "../../src/commands/parse-command.js";

export type Case = [name: string, body: string, expected: Command | ParseError | null];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const claim = (line: string, ttl: number | null = null, ignored = 0): Command => ({ kind: "claim", ttl, line, ignored });
const renew = (line: string, ttl: number | null = null, ignored = 0): Command => ({ kind: "renew", ttl, line, ignored });
const release = (line: string, target: string | null = null, ignored = 0): Command => ({ kind: "release", target, line, ignored });
const lease = (line: string, ignored = 0): Command => ({ kind: "lease", line, ignored });
/** A claim given to `target` (`/claim @user`). */
const given = (command: Command, target: string): Command => ({ ...(command as Extract<Command, { kind: "claim" }>), target });
/** A command with a note (and, for a claim, a login to give it to). */
const noted = <C extends Command>(command: C, note: string, extra: Partial<C> = {}): C => ({ ...command, ...extra, note });
const error = (command: CommandName, line: string, ignored = 0): ParseError => ({
  kind: "error",
  command,
  line,
  message: expect.any(String) as string,
  ignored,
});

export const cases: Case[] = [
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
  // A tab is four columns: at the start of a body it makes an indented code block (see below).
  ["leading tab after text", "Hi\n\t/renew", renew("/renew")],
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
  ["inline code after a command is a note", "/claim `2h`", noted(claim("/claim `2h`"), "`2h`")],

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
  ["the first command is bad", "/claim 2 parsecs\n/renew", error("claim", "/claim 2 parsecs", 1)],
  ["quoted and fenced commands are not counted", "> /renew\n\n/claim\n```\n/lease\n```\n<!-- /release -->", claim("/claim")],
  ["the same command twice", "/claim 2h\n\n/claim 3d", claim("/claim 2h", 2 * HOUR, 1)],

  // Arguments that do not parse.
  ["claim with a negative duration", "/claim -2h", error("claim", "/claim -2h")],
  ["claim with a zero duration", "/claim 0s", error("claim", "/claim 0s")],
  ["claim with an unknown unit", "/claim 2 parsecs", error("claim", "/claim 2 parsecs")],
  ["claim with two durations", "/claim 2h 30m", error("claim", "/claim 2h 30m")],
  ["claim with a number alone", "/claim 2", error("claim", "/claim 2")],
  ["claim with a number and words", "/claim 2 of them", error("claim", "/claim 2 of them")],
  ["claim with a duration then a second one", "/claim 2h 3 days", error("claim", "/claim 2h 3 days")],
  ["claim with a bad duration after a mention", "/claim @bob 2x", error("claim", "/claim @bob 2x")],
  ["release two people", "/release @a @b", error("release", "/release @a @b")],
  ["claim for two people", "/claim @a @b", error("claim", "/claim @a @b")],
  ["release someone for a duration", "/release @a 2h", error("release", "/release @a 2h")],
  ["renew for someone", "/renew @octocat", error("renew", "/renew @octocat")],
  ["renew with a second duration", "/renew 2h 30m", error("renew", "/renew 2h 30m")],
  ["release @ alone", "/release @", error("release", "/release @")],
  ["release a login with a double hyphen", "/release @a--b", error("release", "/release @a--b")],
  ["release a login starting with a hyphen", "/release @-a", error("release", "/release @-a")],
  ["release a login ending with a hyphen", "/release @a-", error("release", "/release @a-")],
  ["release a 40-character login", `/release @${"a".repeat(40)}`, error("release", `/release @${"a".repeat(40)}`)],
  ["release a login with an apostrophe", "/release @octocat's", error("release", "/release @octocat's")],
  ["release a login with a double underscore", "/release @a__b", error("release", "/release @a__b")],
  ["release a login ending with an underscore", "/release @a_", error("release", "/release @a_")],
  ["release a login starting with an underscore", "/release @_a", error("release", "/release @_a")],
  ["release a misspelt bot", "/release @dependabot[bots]", error("release", "/release @dependabot[bots]")],
  ["release with a duration", "/release 2h", error("release", "/release 2h")],
];

/**
 * Commands as people type them (issue 11): comment bodies of the kinds
 * triagebot's, prow's and assign-issue-action's tests feed their parsers,
 * mapped to our commands. Text after a command is a note; punctuation may end
 * the command word; logins may have underscores; what GitHub shows as code or
 * as a quote is never a command.
 */
export const asTyped: Case[] = [
  // Text after the command is a note, not an error.
  ["claim with a sentence", "/claim I'd like to work on this", noted(claim("/claim I'd like to work on this"), "I'd like to work on this")],
  ["claim please", "/claim please", noted(claim("/claim please"), "please")],
  ["claim with words", "/claim I'll take this", noted(claim("/claim I'll take this"), "I'll take this")],
  ["release with an excuse in parentheses", "/release (no time, sorry)", noted(release("/release (no time, sorry)"), "(no time, sorry)")],
  ["release with a bare word", "/release octocat", noted(release("/release octocat"), "octocat")],
  ["renew please", "/renew please", noted(renew("/renew please"), "please")],
  ["lease with a word", "/lease extra", noted(lease("/lease extra"), "extra")],
  ["lease with a mention", "/LEASE @octocat", noted(lease("/LEASE @octocat"), "@octocat")],
  ["a mention later in the note is text", "/claim I'll pair with @bob", noted(claim("/claim I'll pair with @bob"), "I'll pair with @bob")],
  ["a number later in the note is text", "/claim should take 2 days", noted(claim("/claim should take 2 days"), "should take 2 days")],
  ["a note after an HTML comment", "/claim <!-- x --> soon", noted(claim("/claim   soon"), "soon")],
  ["words in another script", "/claim 我来做", noted(claim("/claim 我来做"), "我来做")],

  // A duration right after the command is still a duration; what follows it is the note.
  ["claim 2h and a note", "/claim 2h so I can finish", noted(claim("/claim 2h so I can finish", 2 * HOUR), "so I can finish")],
  ["claim 3 days and a note", "/claim 3 days, then a PR", noted(claim("/claim 3 days, then a PR", 3 * DAY), "then a PR")],
  ["claim a duration ending a sentence", "/claim 2h.", claim("/claim 2h.", 2 * HOUR)],
  ["claim a long-form duration ending a sentence", "/claim 3 days.", claim("/claim 3 days.", 3 * DAY)],
  ["renew 1d and a note", "/renew 1d almost done", noted(renew("/renew 1d almost done", DAY), "almost done")],

  // Punctuation after the command word.
  ["claim with a full stop", "/claim.", claim("/claim.")],
  ["claim with an exclamation mark", "/claim!", claim("/claim!")],
  ["claim with an exclamation mark and a note", "/claim! Sounds fun", noted(claim("/claim! Sounds fun"), "Sounds fun")],
  ["release with a full stop", "/release.", release("/release.")],
  ["lease with a question mark", "/lease?", lease("/lease?")],
  ["claim with a colon and a duration", "/claim: 2h", claim("/claim: 2h", 2 * HOUR)],
  ["claim with a comma and a note", "/claim, thanks", noted(claim("/claim, thanks"), "thanks")],
  ["an ellipsis", "/claim...", claim("/claim...")],
  ["a hyphen still makes another word", "/claim-it", null],
  ["a slash still makes another word", "/claim/x", null],
  ["a parenthesis still makes another word", "/claim(x)", null],

  // Logins with underscores (Enterprise Managed Users), everywhere a login goes.
  ["release a login with an underscore", "/release @alice_contoso", release("/release @alice_contoso", "alice_contoso")],
  ["release a login with hyphens and an underscore", "/release @mona-lisa_octo-corp", release("/release @mona-lisa_octo-corp", "mona-lisa_octo-corp")],
  ["release a mention followed by a comma", "/release @octocat, inactive", noted(release("/release @octocat, inactive", "octocat"), "inactive")],
  ["release a login with punctuation", "/release @octocat,", release("/release @octocat,", "octocat")],
  ["release someone with a note", "/release @x inactive for a month", noted(release("/release @x inactive for a month", "x"), "inactive for a month")],

  // `/claim @user`: a maintainer gives the lease; never a note.
  ["claim for someone", "/claim @bob", given(claim("/claim @bob"), "bob")],
  ["claim for someone with an underscore", "/claim @alice_contoso", given(claim("/claim @alice_contoso"), "alice_contoso")],
  ["claim for someone, then a duration", "/claim @bob 3d", given(claim("/claim @bob 3d", 3 * DAY), "bob")],
  ["claim a duration, then for someone", "/claim 3d @bob", given(claim("/claim 3d @bob", 3 * DAY), "bob")],
  ["claim for someone with a note", "/claim @bob, who asked on Slack", noted(claim("/claim @bob, who asked on Slack"), "who asked on Slack", { target: "bob" })],
  ["claim for a bot", "/claim @renovate[bot]", given(claim("/claim @renovate[bot]"), "renovate[bot]")],

  // An indented code block: four columns after a blank line, or at the start of the body.
  ["indented code after a blank line", "Try this:\n\n    /claim", null],
  ["indented code at the start", "    /claim", null],
  ["a tab at the start", "\t/renew", null],
  ["indented code runs over blank lines", "x\n\n    a\n\n    /claim", null],
  // Found by the fuzz test: a list marker indented four columns is code, not a list item.
  ["indented code that starts like a list item", "Run this:\n\n    1. \n    /claim", null],
  ["indented code with a bullet", "x\n\n    - a\n    /claim", null],
  ["a list item's text indented four past its content is still the item's", "- a\n\n      1. x\n  /claim", claim("/claim")],
  ["a command after the indented code", "x\n\n    code\n/claim", claim("/claim")],
  ["three spaces are not code", "x\n\n   /claim", claim("/claim")],
  ["an indented line continues a paragraph", "Thanks!\n    /claim", claim("/claim")],
  ["a fence indented four spaces is code, not a fence", "\n    ```\n/claim", claim("/claim")],
  ["indented code after a heading", "# Plan\n    /claim", null],
  ["inside a list item the same indent is text", "- first\n\n    /claim", claim("/claim")],
  ["inside a numbered list item too", "1. first\n\n    /claim 2h", claim("/claim 2h", 2 * HOUR)],
  ["inside a list item, four more columns are code", "- first\n\n      /claim", null],
  ["a list ends at a line less indented than its content", "- first\n\n      x\n\nafter\n\n    /claim", null],
  ["a command in a list after indented code", "- a\n\n      code\n\n  /claim", claim("/claim")],

  // Lazy continuation: a line right after a quoted paragraph is in the quote.
  ["a line after a quote", "> I'll do it\n/claim", null],
  ["lines after a quote", "> I'll do it\nme too\n/claim", null],
  ["a line after a nested quote", "> > quoted twice\n/claim", null],
  ["a quote of a list item", "> - item\n/claim", null],
  ["a blank line ends the quote", "> I'll do it\n\n/claim", claim("/claim")],
  ["an empty quote line holds no paragraph", "> text\n>\n/claim", claim("/claim")],
  ["a quoted heading holds no paragraph", "> # Title\n/claim", claim("/claim")],
  ["a quoted fence holds no paragraph", "> ```\n/claim", claim("/claim")],
  ["quoted indented code holds no paragraph", ">     code\n/claim", claim("/claim")],
  ["a list item ends the quote", "> quote\n- item\n\n/claim", claim("/claim")],
  ["an indented line continues the quote", "> quote\n    /claim", null],
];
