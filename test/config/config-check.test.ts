/**
 * The config check's lines, `FILE:LINE:COLUMN: message`, for each kind of
 * problem: a key nested under `labels`, an item of `exempt_labels`, a value
 * of the wrong kind, an unknown key, a problem of two keys (one line at each
 * key a file sets), YAML that does not parse (every error), a file too big;
 * a problem in a file `_extends` names; the config in force; and the check
 * run made of them.
 */
import { describe, expect, it } from "vitest";
import { UnreadableConfig } from "../../src/config/config.js";
import { pushChangesConfig } from "../../src/config/config-changes.js";
import { checkConfig, effectiveLines, problemLine } from "../../src/config/config-check.js";
import { configCheckRun } from "../../src/config/config-check-run.js";
import { type ConfigFile, parseConfigFile } from "../../src/config/files.js";

const FILE = ".github/issue-leases.yml";
const own = (text: string) => parseConfigFile({ owner: "acme", repo: "widgets", path: FILE }, true, text);
const other = (text: string) => parseConfigFile({ owner: "acme", repo: "shared", path: "conf/leases.yml" }, false, text);

/** The lines of checking `texts` (the file checked first, then what it extends). */
function lines(...files: Array<ConfigFile | UnreadableConfig>): string[] {
  const unreadable = files.find((f) => f instanceof UnreadableConfig);
  const check = checkConfig(unreadable ?? (files as ConfigFile[]), FILE);
  if (check.ok) return [];
  return check.problems.map(problemLine);
}

describe("the line and column of each kind of problem", () => {
  it("a key nested under `labels`: the nested key's own position", () => {
    expect(lines(own("assign: true\nlabels:\n  claimed: taken\n  holder: nope\n"))).toEqual([
      `${FILE}:4:3: \`labels.holder\`: \`nope\` must contain \`{holder}\`, e.g. "claimed-by: {holder}".`,
    ]);
  });

  it("an item of `exempt_labels`, in a block list and in a flow list: the item's position", () => {
    expect(lines(own("exempt_labels:\n  - pinned\n  - ''\n"))).toEqual([`${FILE}:3:5: \`exempt_labels.1\`: is empty; write label names such as ["pinned"].`]);
    expect(lines(own("bots: true\nexempt_labels: [pinned, '  ']\n"))).toEqual([`${FILE}:2:25: \`exempt_labels.1\`: is empty; write label names such as ["pinned"].`]);
  });

  it("a value of the wrong kind, and unknown keys (top-level and under `labels`): each at its key", () => {
    expect(lines(own("max_leases_per_holder: two\nlabels:\n  claimd: taken\ndefualt_ttl: 1d\n"))).toEqual([
      `${FILE}:1:1: \`max_leases_per_holder\`: must be a whole number (0 for no limit), not \`two\`.`,
      `${FILE}:3:3: \`labels.claimd\`: unknown key; did you mean \`claimed\`?`,
      `${FILE}:4:1: \`defualt_ttl\`: unknown key; did you mean \`default_ttl\`?`,
    ]);
  });

  it("`min_ttl` longer than `max_ttl`: one line at each of the two keys (chosen: every place to fix it is marked)", () => {
    const message = "`min_ttl`: is 2 days, longer than `max_ttl` (1 day); make `min_ttl` shorter or `max_ttl` longer.";
    expect(lines(own("min_ttl: 2d\nbots: true\nmax_ttl: 1d\n"))).toEqual([`${FILE}:1:1: ${message}`, `${FILE}:3:1: ${message}`]);
  });

  it("a problem against a default: only the key the file sets is marked", () => {
    expect(lines(own("bots: true\nmin_ttl: 10d\n"))).toEqual([
      `${FILE}:2:1: \`default_ttl\`: is 1 week (the default), shorter than \`min_ttl\` (10 days); set \`default_ttl\` between 10 days and 30 days, or to \`none\`.`,
    ]);
  });

  it("an exempt label the app puts on leases itself: the item, and the `labels` key that named it", () => {
    expect(lines(own("exempt_labels: [pinned, taken]\nlabels:\n  claimed: taken\n"))).toEqual([
      `${FILE}:1:25: \`exempt_labels.1\`: \`taken\` is a label the app puts on leases itself; name a label of your own.`,
      `${FILE}:2:1: \`exempt_labels.1\`: \`taken\` is a label the app puts on leases itself; name a label of your own.`,
    ]);
  });

  it("YAML that does not parse: every error the parser found, each at its place", () => {
    const found = lines(own("bots: true\nbots: false\nclaimers: [anyone\nassign: true\n"));
    expect(found[0]).toBe(`${FILE}:2:1: could not be read as YAML: \`Map keys must be unique\`; fix its syntax.`);
    expect(found.length).toBeGreaterThan(1);
    expect(found.slice(1).every((l) => /^\.github\/issue-leases\.yml:[34]:\d+: could not be read as YAML: `[^`]+`; fix its syntax\.$/.test(l))).toBe(true);
  });

  it.each([
    ["an unclosed quote", 'default_ttl: "3d\nbots: true\n'],
    ["an unclosed quote, no final newline", "default_ttl: '3d\nbots: true"],
    ["an unclosed quote, blank lines after", 'bots: true\nlabels: {claimed: "x}\n\n\n'],
    ["an unclosed bracket", "bots: true\nclaimers: [anyone\n"],
    ["bad indentation", "labels:\n    claimed: x\n  holder: y\n"],
    ["a tab for indentation", "labels:\n\tclaimed: x\n"],
    ["a trailing colon on the last line", "default_ttl: 3d\nbots: true:\n"],
    ["a trailing colon on the last line, no final newline", "default_ttl: 3d\nbots: true:"],
    ["CRLF line endings and an unclosed quote", 'bots: true\r\ndefault_ttl: "3d\r\n'],
  ])("broken YAML (%s): every error is placed on a line the file has, within it", (_, text) => {
    const fileLines = text.replace(/\s+$/, "").split(/\r?\n/);
    const found = lines(own(text));
    expect(found.length).toBeGreaterThan(0);
    for (const line of found) {
      const [, row, column] = /^\.github\/issue-leases\.yml:(\d+):(\d+): could not be read as YAML: /.exec(line) ?? [];
      expect(Number(row), line).toBeGreaterThanOrEqual(1);
      expect(Number(row), line).toBeLessThanOrEqual(fileLines.length);
      expect(Number(column), line).toBeLessThanOrEqual(fileLines[Number(row) - 1]!.length + 1);
    }
    // The reply's sentence names the same place.
    const unreadable = own(text) as unknown as UnreadableConfig;
    const said = /line (\d+), column (\d+)/.exec(unreadable.problem);
    if (said) expect(Number(said[1])).toBeLessThanOrEqual(fileLines.length);
  });

  it("a quote left open in a two-line file: at the end of line 2, where the value runs out, not on a line 3", () => {
    expect(lines(own('default_ttl: "3d\nbots: true\n'))).toEqual([
      `${FILE}:2:11: could not be read as YAML: \`Missing closing "quote\`; fix its syntax.`,
    ]);
    expect((own('default_ttl: "3d\nbots: true\n') as unknown as UnreadableConfig).problem).toBe(
      'could not be read as YAML: line 2, column 11: `Missing closing "quote`; fix its syntax.',
    );
  });

  it("a file too big, or not a mapping: at its start", () => {
    expect(lines(own("# padding\n".repeat(7000)))).toEqual([
      `${FILE}:1:1: is 69 KiB, over the 64 KiB a config may have, so it was not read; a config needs a few lines.`,
    ]);
    expect(lines(own("\n- claim\n- renew\n"))).toEqual([`${FILE}:2:1: is not a mapping of keys to values, such as \`default_ttl: 7d\`.`]);
  });
});

describe("a file `_extends` names", () => {
  it("a problem there names that file, its line and column, and not its value", () => {
    const found = lines(own("min_ttl: 2d\n"), other("assign: true\nclaimers: '[x](https://evil.example) @alice'\n"));
    expect(found).toEqual(["acme/shared:conf/leases.yml:2:1: `claimers`: must be one of `anyone`, `collaborators`, `members`."]);
  });

  it("an item of a list both files have is found in the file that wrote it (its items come first in the merge)", () => {
    expect(lines(own("exempt_labels: [pinned, '']\n"), other("exempt_labels:\n  - long-running\n"))).toEqual([
      `${FILE}:1:25: \`exempt_labels.2\`: is empty; write label names such as ["pinned"].`,
    ]);
    expect(lines(own("exempt_labels: [pinned]\n"), other("exempt_labels:\n  - ok\n  - ''\n"))).toEqual([
      "acme/shared:conf/leases.yml:3:5: `exempt_labels.1`: is empty; write label names such as [\"pinned\"].",
    ]);
  });

  it("a file it extends that cannot be read: its problems, named", () => {
    const unreadable = other("bots: true\nclaimers: [x\n");
    expect(unreadable).toBeInstanceOf(UnreadableConfig);
    expect(lines(unreadable)).toEqual(["acme/shared:conf/leases.yml:2:13: could not be read as YAML: it is not valid YAML; fix its syntax."]);
  });
});

describe("the config in force", () => {
  it("every key, with its value as the file would write it; defaults marked; another file's values not shown", () => {
    const check = checkConfig([own("default_ttl: 72h\nlabels: {claimed: taken}\n") as ConfigFile, other("max_ttl: 13d\n") as ConfigFile], FILE);
    expect(check.ok).toBe(true);
    if (!check.ok) return;
    expect(check.effective.slice(0, 3)).toEqual([
      { key: "default_ttl", value: "3 days", from: "own" },
      { key: "min_ttl", value: "1 minute", from: "default" },
      { key: "max_ttl", from: "acme/shared:conf/leases.yml" },
    ]);
    const shown = effectiveLines(check.effective);
    expect(shown).toContain("default_ttl: 3 days");
    expect(shown).toContainEqual(expect.stringMatching(/^min_ttl: 1 minute +# default$/));
    expect(shown).toContainEqual(expect.stringMatching(/^# max_ttl: … {18} {2}# from acme\/shared:conf\/leases\.yml$/));
    expect(shown).toContain('labels: { claimed: taken, holder: "claimed-by: {holder}", token: "lease #{token}", in_review: "claimed: in review" }');
    expect(shown).toContainEqual(expect.stringMatching(/^author_first: none +# default$/));
  });
});

describe("the check run", () => {
  it("a success: titled valid, the config in a block no value can close", () => {
    const check = checkConfig([own("exempt_labels: ['a````b']\n") as ConfigFile], FILE);
    const run = configCheckRun(check, "f".repeat(40));
    expect(run).toMatchObject({ name: "issue-leases config", headSha: "f".repeat(40), conclusion: "success", title: `${FILE} is valid` });
    expect(run.summary).toContain("\n`````yaml\n");
    expect(run.summary.endsWith("\n`````")).toBe(true);
  });

  it("a failure: every line in the summary, marks on the file's own lines only, cut short under GitHub's limit", () => {
    // 900 unknown keys: their lines (each lists the known keys) are far past GitHub's 65,535 characters.
    const keys = Array.from({ length: 900 }, (_, i) => `k${String(i).padStart(3, "0")}: 1`);
    const run = configCheckRun(checkConfig([own(keys.join("\n") + "\n") as ConfigFile], FILE), "f".repeat(40));
    expect(run.conclusion).toBe("failure");
    expect(run.title).toBe(`900 problems in ${FILE}`);
    expect(run.summary.length).toBeLessThan(65_535);
    expect(run.summary).toContain(`\n${FILE}:1:1: \`k000\`: unknown key; the keys here are \`default_ttl\``);
    expect(run.summary).toMatch(/\n… and \d+ more\n```$/);
    expect(run.annotations).toHaveLength(50);
    expect(run.annotations?.[1]).toMatchObject({ path: FILE, line: 2, column: 1 });

    const elsewhere = configCheckRun(checkConfig([own("min_ttl: 2d\n") as ConfigFile, other("max_ttl: 1d\n") as ConfigFile], FILE), "f".repeat(40));
    expect(elsewhere.title).toBe("2 problems in the config");
    expect(elsewhere.annotations?.map((a) => a.path)).toEqual([FILE]);
  });
});

describe("whether a push changes the file", () => {
  const push = (files: { added?: string[]; modified?: string[] }, extra: Record<string, unknown> = {}) => ({ after: "a".repeat(40), commits: [files], ...extra });

  it("added or modified by a commit: yes; removed, elsewhere, or a branch deleted: no", () => {
    expect(pushChangesConfig(push({ modified: ["README.md", FILE] }))).toBe(true);
    expect(pushChangesConfig(push({ added: [FILE] }))).toBe(true);
    expect(pushChangesConfig(push({ modified: ["docs/.github/issue-leases.yml", "issue-leases.yml"] }))).toBe(false);
    expect(pushChangesConfig({ after: "a".repeat(40), commits: [{ modified: [] }, { added: [FILE] }] })).toBe(true);
    expect(pushChangesConfig(push({ modified: [FILE] }, { deleted: true, after: "0".repeat(40) }))).toBe(false);
    expect(pushChangesConfig({ after: "a".repeat(40), commits: [] })).toBe(false);
  });

  it("a push listing 2,048 commits, GitHub's most, may have more: yes", () => {
    expect(pushChangesConfig({ after: "a".repeat(40), commits: Array.from({ length: 2048 }, () => ({ modified: ["a.txt"] })) })).toBe(true);
  });
});
