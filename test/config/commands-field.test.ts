import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";

const errorOf = (raw: unknown): string => {
  const result = parseConfig(raw);
  if (result.ok) throw new Error("expected the config to be refused");
  return result.error;
};

describe("commands: a repository's aliases", () => {
  it("reads words with or without the slash, in any case, each to its command", () => {
    const result = parseConfig({ commands: { take: "claim", "/Assign-Me": "claim", abandon: "release", "release-assignment": "release" } });
    expect(result.ok && result.config.aliases).toEqual([
      { word: "take", command: "claim" },
      { word: "assign-me", command: "claim" },
      { word: "abandon", command: "release" },
      { word: "release-assignment", command: "release" },
    ]);
  });

  it.each(["claim", "/Release", "renew", "lease", "help"])("refuses %s, which would shadow a command", (word) => {
    expect(errorOf({ commands: { [word]: "claim" } })).toBe(
      `\`.github/issue-leases.yml\`: \`commands.${word}\`: would shadow the app's own \`/${word.replace("/", "").toLowerCase()}\`; choose another word.`,
    );
  });

  it.each(["thanks", "done", "OK", "me", "/s", "lgtm", "table", "details"])("refuses %s, which conversation would run", (word) => {
    expect(errorOf({ commands: { [word]: "claim" } })).toMatch(/is written in ordinary comments .* choose a word nobody writes by chance\.$/);
  });

  it("refuses two keys for one word", () => {
    expect(errorOf({ commands: { take: "claim", "/Take": "release" } })).toMatch(/`commands\.\/Take`: names a word already listed/);
  });

  it.each(["take it", "2take", "take-", "-take", "ta--ke", "x".repeat(31), "", "tåke"])("refuses %j, which is no word", (word) => {
    expect(errorOf({ commands: { [word]: "claim" } })).toMatch(/is not a word people can type as a command/);
  });

  it("refuses a command that is not one of the four, without echoing markup", () => {
    expect(errorOf({ commands: { take: "assign" } })).toMatch(/`commands\.take`: must be one of `claim`, `renew`, `release`, `lease`/);
    expect(errorOf({ commands: { take: "help" } })).toMatch(/must be one of `claim`, `renew`, `release`, `lease`/);
  });

  it("refuses a list, and more than 20 aliases", () => {
    expect(errorOf({ commands: ["take"] })).toMatch(/`commands`: must be a mapping of words to commands, such as `take: claim`/);
    const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`word${i}`, "claim"]));
    expect(errorOf({ commands: many })).toMatch(/lists 21 aliases; at most 20 are allowed/);
  });
});

describe("mentions", () => {
  it("is off by default and takes a boolean", () => {
    expect(parseConfig({}).ok && (parseConfig({}) as { config: { mentions: boolean } }).config.mentions).toBe(false);
    const on = parseConfig({ mentions: true });
    expect(on.ok && on.config.mentions).toBe(true);
    expect(errorOf({ mentions: "yes" })).toMatch(/`mentions`: must be `true` or `false`/);
  });
});
