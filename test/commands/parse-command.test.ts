import { describe, expect, it } from "vitest";
import { isParseError, parseCommand } from "../../src/commands/parse-command.js";
import { asTyped, cases } from "./command-cases.js";

describe("parseCommand", () => {
  it.each(cases)("%s", (_name, body, expected) => {
    expect(parseCommand(body)).toEqual(expected);
  });
});

describe("parseCommand on commands as people type them", () => {
  it.each(asTyped)("%s", (_name, body, expected) => {
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
    expect(messageOf("/claim 2 soon")).toBe(
      "`/claim` reads a number right after it as a duration: write one such as `30s`, `45m`, `2h`, `3d`, `2w`, or `2 hours`, `3 days`, " +
        "or start your note with a word.",
    );
    expect(messageOf("/renew 5x")).toMatch(/^`\/renew` reads a number right after it as a duration/);
  });

  it("says /release takes one @login, with an example of an underscore", () => {
    expect(messageOf("/release @bob!x")).toMatch(/`\/release` takes one `@login`.*`@alice_contoso`/);
  });

  it("says /release takes no duration", () => {
    expect(messageOf("/release 2h")).toMatch(/`\/release` takes no duration: it ends the lease now/);
  });

  it("says /renew takes no @login", () => {
    expect(messageOf("/renew @bob")).toMatch(/`\/renew` extends your own lease and takes no `@login`/);
  });

  it.each(["/claim 9zzqx", "/renew 9zzqx", "/release @zz!qx", "/release 9zzqx", "/renew @zzqx", "/claim @zz @qx"])(
    "does not echo the user's text: %s",
    (body) => {
      expect(messageOf(body)).not.toContain("zzqx");
    },
  );
});

describe("isParseError", () => {
  it("tells errors from commands and null", () => {
    expect(isParseError(parseCommand("/claim 2 soon"))).toBe(true);
    expect(isParseError(parseCommand("/claim soon"))).toBe(false);
    expect(isParseError(parseCommand("/claim"))).toBe(false);
    expect(isParseError(parseCommand("hello"))).toBe(false);
  });
});
