import { describe, expect, it } from "vitest";
import { cleanReason, MAX_REASON } from "../../src/cli/operator-release.js";
import { formatAge, formatTable } from "../../src/cli/format-table.js";
import { parseIssueRef, parseRepoName } from "../../src/cli/parse-issue-ref.js";

describe("parseIssueRef", () => {
  it.each([
    ["octo-org/octo-repo#12", { repo: "octo-org/octo-repo", issue: 12 }],
    ["O/r.js#1", { repo: "O/r.js", issue: 1 }],
    ["a-b/c_d-e.f#9007199254740991", { repo: "a-b/c_d-e.f", issue: 9007199254740991 }],
  ])("reads %s", (text, ref) => {
    expect(parseIssueRef(text)).toEqual(ref);
  });

  it.each([
    "octo-org/octo-repo#x",
    "octo-org/octo-repo#0",
    "octo-org/octo-repo#-1",
    "octo-org/octo-repo#1.5",
    "octo-org/octo-repo#9007199254740993",
    "octo-org/octo-repo",
    "octo-repo#1",
    "#1",
    "a/b/c#1",
    "-org/repo#1",
    "org/..#1",
    "org/re po#1",
    " org/repo#1",
  ])("refuses %j", (text) => {
    expect(parseIssueRef(text)).toBeNull();
  });
});

describe("parseRepoName", () => {
  it("reads owner/name and nothing else", () => {
    expect(parseRepoName("Octo-Org/Widgets")).toBe("Octo-Org/Widgets");
    expect(parseRepoName("octo-org")).toBeNull();
    expect(parseRepoName("octo-org/widgets#1")).toBeNull();
    expect(parseRepoName("octo org/widgets")).toBeNull();
  });
});

describe("cleanReason", () => {
  it("folds whitespace to one line", () => {
    expect(cleanReason("  left\n\n> quoted\tthing  ")).toBe("left > quoted thing");
  });

  it(`caps the length at ${MAX_REASON} characters`, () => {
    const reason = cleanReason("y".repeat(1000));
    expect(reason).toHaveLength(MAX_REASON);
    expect(reason.endsWith("…")).toBe(true);
    expect(cleanReason("z".repeat(MAX_REASON))).toBe("z".repeat(MAX_REASON));
  });
});

describe("formatting", () => {
  it("pads every column but the last", () => {
    expect(formatTable(["A", "BB", "C"], [["xxx", "y", "z"], ["", "yyy", ""]])).toBe("A    BB   C\nxxx  y    z\n     yyy");
  });

  it("gives rough ages", () => {
    const H = 3_600_000;
    const ages = [0, 45_000, 12 * 60_000, 3 * H + 5 * 60_000, 2 * H, 52 * H, 48 * H];
    expect(ages.map(formatAge)).toEqual(["0s", "45s", "12m", "3h 5m", "2h", "2d 4h", "2d"]);
  });
});
