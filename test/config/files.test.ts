/**
 * The config files as read from GitHub (each request mocked strictly) and
 * told in a reply: where a YAML error is (line and column), the bounds a file
 * is held to before the parser sees it (size, entries, aliases, `_extends`),
 * and what a reply may show of a file other than the repository's own (its
 * name and the line, never its keys or values).
 */
import nock from "nock";
import { parseDocument } from "yaml";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { CONFIG_LIMITS } from "../../src/config/files.js";
import { parseConfigSources, readConfigSources } from "../../src/config/sources.js";
import { API, strictNock, UnthrottledOctokit } from "../support/app-harness.js";

// The parser, watched: what it was given, to show that a refused file never reached it.
vi.mock("yaml", async (importOriginal) => {
  const actual = await importOriginal<typeof import("yaml")>();
  return { ...actual, parseDocument: vi.fn(actual.parseDocument) };
});
const parsed = () => vi.mocked(parseDocument).mock.calls.map(([text]) => String(text));

const FILE = "/contents/.github%2Fissue-leases.yml";
const REPO = "/repos/acme/widgets";
const ORG = "/repos/acme/.github";

function context() {
  const octokit = new UnthrottledOctokit({ auth: "test-token" });
  return { octokit, repo: () => ({ owner: "acme", repo: "widgets" }) } as unknown as Parameters<typeof readConfigSources>[0];
}

/** `path`: the repository's (`/repos/o/r`) with the config's path, or a whole contents path. */
const file = (path: string, yaml: string | null) => {
  const scope = nock(API).get(path.includes("/contents/") ? path : path + FILE);
  if (yaml === null) scope.reply(404, { message: "Not Found" });
  else scope.reply(200, yaml, { "content-type": "text/plain" });
};

async function errorOf(): Promise<string> {
  const result = parseConfigSources(await readConfigSources(context()));
  if (result.ok) throw new Error("expected an error");
  return result.error;
}

/** `n` keys in one mapping, each on its line. */
const manyKeys = (n: number) => Array.from({ length: n }, (_, i) => `key${i}: ${i}`).join("\n") + "\n";

let mock: ReturnType<typeof strictNock>;
beforeEach(() => {
  mock = strictNock();
  vi.mocked(parseDocument).mockClear();
});
afterEach(() => mock.verify());

describe("a YAML error", () => {
  it("in the repository's own file: its line and column, and what the parser said", async () => {
    file(REPO, "bots: true\nclaimers: [anyone\nassign: true\n");
    const error = await errorOf();
    expect(error).toMatch(/^`\.github\/issue-leases\.yml` could not be read as YAML: line 3, column 1: `[^`]*`; fix its syntax\./);
  });

  it("in a key given twice: the line of the second", async () => {
    file(REPO, "bots: true\nassign: false\nbots: false\n");
    expect(await errorOf()).toContain("could not be read as YAML: line 3, column 1: `Map keys must be unique`");
  });

  it("in another repository's file: that file and the line, not the parser's words (they quote the file)", async () => {
    file(REPO, "_extends: shared:conf/leases.yml\n");
    file("/repos/acme/shared/contents/conf%2Fleases.yml", "bots: true\nclaimers: [[x](https://evil.example)\n");
    const error = await errorOf();
    expect(error).toBe(
      "`acme/shared:conf/leases.yml` could not be read as YAML: line 2, column 15: it is not valid YAML; fix its syntax. " +
        "Until then commands here change nothing.",
    );
  });

  it("in the organisation's file, read for its limit: named, with the line", async () => {
    file(REPO, "bots: true\n");
    file(ORG, "max_leases_per_holder_in_org: 2\n\tbots: true\n");
    expect(await errorOf()).toMatch(/^the organisation's `\.github\/issue-leases\.yml` \(in its `\.github` repository\) could not be read as YAML: line 2, column 1:/);
  });
});

describe("the bounds of a config file", () => {
  it("refuses a 300,000-key file on its size, before the parser sees it", async () => {
    const huge = manyKeys(300_000);
    file(REPO, huge);
    const error = await errorOf();
    expect(error).toMatch(/^`\.github\/issue-leases\.yml` is \d+\.\d MiB, over the 64 KiB a config may have, so it was not read/);
    expect(parsed()).toEqual([]);
  });

  it("refuses a file just under the size with thousands of keys, deep nesting or nested lists on its entries, unparsed", async () => {
    for (const text of [manyKeys(4_500), `a: ${"[".repeat(30_000)}${"]".repeat(30_000)}\n`, `a:\n  ${"- ".repeat(30_000)}x\n`, `a: {${"k, ".repeat(20_000)}}\n`]) {
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(CONFIG_LIMITS.bytes);
      file(REPO, text);
      expect(await errorOf()).toContain("`.github/issue-leases.yml` has more than 1,000 entries");
    }
    expect(parsed()).toEqual([]);
  });

  it("refuses an alias bomb (billion laughs) without expanding it", async () => {
    const lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]'];
    for (let i = 1; i < 9; i++) lines.push(`${"abcdefghi"[i]}: &${"abcdefghi"[i]} [${Array(9).fill(`*${"abcdefghi"[i - 1]}`).join(", ")}]`);
    file(REPO, lines.join("\n") + "\n");
    expect(await errorOf()).toContain("`.github/issue-leases.yml` repeats its aliases (`*name`) too often, so it was not read");
  });

  it("takes a real config with comments, well inside the bounds", async () => {
    const comments = Array.from({ length: 300 }, (_, i) => `# note ${i}: leases, labels, [links] and {braces} - in prose`).join("\n");
    file(REPO, `${comments}\nlabels:\n  holder: "claimed-by: {holder}"\nexempt_labels: [pinned, "long-running"]\nlimits_by_label: {"good first issue": 1}\n`);
    file(ORG, null);
    expect(parseConfigSources(await readConfigSources(context()))).toMatchObject({ ok: true, config: { exemptLabels: ["pinned", "long-running"] } });
  });

  it("caps the organisation's file (read for its limit) and `_extends` targets the same way", async () => {
    file(REPO, "bots: true\n");
    file(ORG, manyKeys(300_000));
    expect(await errorOf()).toMatch(/^the organisation's `\.github\/issue-leases\.yml` \(in its `\.github` repository\) is \d+\.\d MiB, over the 64 KiB/);

    file(REPO, null);
    file(ORG, manyKeys(300_000));
    expect(await errorOf()).toMatch(/^`acme\/\.github:\.github\/issue-leases\.yml` is \d+\.\d MiB, over the 64 KiB/);

    file(REPO, "_extends: shared\n");
    file("/repos/acme/shared", manyKeys(2_000));
    expect(await errorOf()).toContain("`acme/shared:.github/issue-leases.yml` has more than 1,000 entries");
    expect(parsed().some((text) => text.length > 1000)).toBe(false);
  });

  it("follows at most 3 `_extends`, and none that leads back", async () => {
    file(REPO, "_extends: one\n");
    file("/repos/acme/one", "_extends: two\n");
    file("/repos/acme/two", "_extends: three\n");
    file("/repos/acme/three", "_extends: four\n");
    expect(await errorOf()).toContain("`acme/three:.github/issue-leases.yml` follows `_extends` more than 3 times");

    file(REPO, "_extends: one\n");
    file("/repos/acme/one", "_extends: widgets\n");
    expect(await errorOf()).toContain("`acme/one:.github/issue-leases.yml` has an `_extends` that leads back to a file already read.");

    file(REPO, "_extends: [one]\n");
    expect(await errorOf()).toContain("`.github/issue-leases.yml` has an `_extends` that names no file");
  });
});

describe("a problem in a file other than the repository's own", () => {
  it("names that file and the line, and says the rule without the value", async () => {
    file(REPO, "_extends: private-repo:leases.yml\nbots: true\n");
    file("/repos/acme/private-repo/contents/leases.yml", "assign: true\nclaimers: '[secret](https://evil.example) @alice'\n");
    const error = await errorOf();
    expect(error).toBe("`acme/private-repo:leases.yml`, line 2, column 1: `claimers`: must be one of `anyone`, `collaborators`, `members`.");
  });

  it("names no key the user wrote there: an unknown key, a label under `limits_by_label`", async () => {
    file(REPO, "_extends: private-repo:leases.yml\n");
    file("/repos/acme/private-repo/contents/leases.yml", "secret_project_x: 1\nlimits_by_label:\n  secret-label: -1\n");
    const error = await errorOf();
    expect(error).not.toContain("secret");
    expect(error).toContain("This repository's config has 2 problems:");
    expect(error).toContain("- `acme/private-repo:leases.yml`, line 1, column 1: a key that is not one of the config's; the keys here are `default_ttl`");
    expect(error).toContain("- `acme/private-repo:leases.yml`, line 3, column 3: `limits_by_label`: must be 0 (no limit) or more.");
  });

  it("in the organisation's file used for a repository without one: the same", async () => {
    file(REPO, null);
    file(ORG, "default_ttl: '3 secret weeks'\n");
    expect(await errorOf()).toBe(
      "`acme/.github:.github/issue-leases.yml`, line 1, column 1: `default_ttl`: its value is not a duration; " +
        "use `30s`, `45m`, `2h`, `3d`, `2w`, or `2 hours`, `3 days`, or `none`.",
    );
  });

  it("when keys of two files disagree (`min_ttl` against `max_ttl`): no duration of the other file is shown", async () => {
    file(REPO, "_extends: private-repo:leases.yml\nmin_ttl: 2d\n");
    file("/repos/acme/private-repo/contents/leases.yml", "max_ttl: 13h\n");
    const error = await errorOf();
    expect(error).not.toMatch(/13|hours/);
    expect(error).toBe("`acme/private-repo:leases.yml`, line 1, column 1: `min_ttl`: is longer than `max_ttl`; make `min_ttl` shorter or `max_ttl` longer.");
  });

  it("still shows the values of the repository's own file, which the commenter can read", async () => {
    file(REPO, "_extends: private-repo:leases.yml\nbots: 'yes'\n");
    file("/repos/acme/private-repo/contents/leases.yml", "assign: 'no'\n");
    const error = await errorOf();
    expect(error).toContain("- `bots`: must be `true` or `false`, not `yes`.");
    expect(error).toContain("- `acme/private-repo:leases.yml`, line 1, column 1: `assign`: must be `true` or `false`.");
  });
});
