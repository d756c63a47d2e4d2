/**
 * `issue-leases check-config [FILE] [--json]` as a maintainer runs it: the
 * built CLI in a child process, in a folder of its own (a repository's
 * checkout), offline. A good file exits 0 with the config in force; a bad one
 * exits 1 with one `FILE:LINE:COLUMN: message` line per problem, FILE as
 * given; `--json` says the same as data.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseConfig } from "../../src/config/config.js";
import { runBuiltCli } from "../support/cli-process.js";
import { ensureBuilt } from "../support/server-process.js";

let dir: string;

beforeAll(async () => {
  // `npm test` on a clean clone has no dist/; the script builds once, under a lock, when sources changed.
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), "issue-leases-check-config-"));
  await mkdir(join(dir, ".github"));
  await mkdir(join(dir, "conf"));
  // Not the app's .env, and not readable as one: check-config must not read it.
  await mkdir(join(dir, ".env"));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const cli = (args: string[]) => runBuiltCli(["check-config", ...args], dir);

const BROKEN = ["default_ttl: 3d", "labels:", "  holder: nope", "exempt_labels:", "  - pinned", '  - ""', "bots: yes", ""].join("\n");

describe("issue-leases check-config", () => {
  it("a good file (the default path): exit 0, one OK line and the config in force, defaults marked", async () => {
    await writeFile(join(dir, ".github/issue-leases.yml"), "default_ttl: 3d\nexempt_labels: [pinned]\n");
    const r = await cli([]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(".github/issue-leases.yml: OK; the config in force (# default: the file does not set it):");
    expect(lines).toContain("  default_ttl: 3 days");
    expect(lines).toContain("  exempt_labels: [ pinned ]");
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}max_ttl: 30 days +# default$/));
    // Pasted back into a file, the config in force is that config (aliases included).
    const printed = parseYaml(lines.slice(1).map((l) => l.slice(2)).join("\n")) as Record<string, unknown>;
    expect(parseConfig(printed)).toEqual(parseConfig({ default_ttl: "3d", exempt_labels: ["pinned"] }));
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}commands: \{\} +# default$/));
  });

  it("a bad file: exit 1, each problem on a line of its own with its line and column, the file named as given", async () => {
    await writeFile(join(dir, "conf/leases.yml"), BROKEN);
    const r = await cli(["conf/leases.yml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("");
    expect(r.stdout.trimEnd().split("\n")).toEqual([
      'conf/leases.yml:3:3: `labels.holder`: `nope` must contain `{holder}`, e.g. "claimed-by: {holder}".',
      'conf/leases.yml:6:5: `exempt_labels.1`: is empty; write label names such as ["pinned"].',
      "conf/leases.yml:7:1: `bots`: must be `true` or `false`, not `yes`.",
    ]);
  });

  it("YAML that does not parse: exit 1, the error at its line and column", async () => {
    await writeFile(join(dir, "conf/broken.yml"), "bots: true\nbots: false\n");
    const r = await cli(["conf/broken.yml"]);
    expect(r.code).toBe(1);
    expect(r.stdout.trimEnd()).toBe("conf/broken.yml:2:1: could not be read as YAML: `Map keys must be unique`; fix its syntax.");
  });

  it("--json: ok, the problems as data, and the config in force with its defaults named", async () => {
    const bad = await cli(["conf/leases.yml", "--json"]);
    expect(bad.code).toBe(1);
    const failed = JSON.parse(bad.stdout) as Record<string, unknown>;
    expect(failed).toMatchObject({ ok: false, config: null, notes: [] });
    expect(failed["problems"]).toEqual([
      { file: "conf/leases.yml", line: 3, column: 3, message: '`labels.holder`: `nope` must contain `{holder}`, e.g. "claimed-by: {holder}".' },
      { file: "conf/leases.yml", line: 6, column: 5, message: '`exempt_labels.1`: is empty; write label names such as ["pinned"].' },
      { file: "conf/leases.yml", line: 7, column: 1, message: "`bots`: must be `true` or `false`, not `yes`." },
    ]);

    const good = await cli(["--json"]);
    expect(good.code).toBe(0);
    const passed = JSON.parse(good.stdout) as { ok: boolean; problems: unknown[]; config: Record<string, unknown>; defaults: string[] };
    expect(passed.ok).toBe(true);
    expect(passed.problems).toEqual([]);
    expect(passed.config).toMatchObject({ default_ttl: "3 days", max_ttl: "30 days", exempt_labels: ["pinned"], author_first: "none", bots: true });
    expect(passed.defaults).toContain("max_ttl");
    expect(passed.defaults).not.toContain("default_ttl");
  });

  it("`_extends`: says plainly it is not followed offline, and checks the rest of the file", async () => {
    await writeFile(join(dir, "conf/extends.yml"), "_extends: shared\nbots: yes\n");
    const r = await cli(["conf/extends.yml"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("note: conf/extends.yml:1:1: `_extends` names a file on GitHub, which cannot be read offline: this file is checked alone");
    expect(r.stdout.trimEnd()).toBe("conf/extends.yml:2:1: `bots`: must be `true` or `false`, not `yes`.");

    await writeFile(join(dir, "conf/extends.yml"), "bots: true\n_extends: [shared]\n");
    const wrong = await cli(["conf/extends.yml"]);
    expect(wrong.code).toBe(1);
    expect(wrong.stdout.trimEnd()).toBe("conf/extends.yml:2:1: has an `_extends` that names no file: use `repo`, `owner/repo` or `repo:path.yml`.");
  });

  it("a file that cannot be read, or a second argument: exit 2, one line", async () => {
    const missing = await cli(["conf/none.yml"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe("issue-leases: cannot read conf/none.yml: no such file");
    const extra = await cli(["conf/leases.yml", "more.yml"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toMatch(/^issue-leases: unexpected argument more\.yml; see `issue-leases check-config --help`/);
  });

  it("has a help of its own, naming the pre-commit line", async () => {
    const r = await cli(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: issue-leases check-config \[FILE\] \[--json\]/);
    expect(r.stdout).toContain("npx issue-leases check-config || exit 1");
  });
});
