/**
 * `issue-leases import-config` drops no setting without a word: each
 * supported bot's documented keys (test/cli/fixtures/, each file saying
 * where its keys come from) run through it, and every key of the input ends
 * in a setting's comment, under "Nothing to set", or under "Not imported"
 * with why; none of the documented ones as a key this import does not know.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { importConfig } from "../../src/cli/import-config.js";
import { JsExpression, readJsExports } from "../../src/cli/import/js-exports.js";
import { parseConfig } from "../../src/config/config.js";

const FIXTURES = join(import.meta.dirname, "fixtures");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

/** Each leaf of a nested mapping (a value, a list, an empty mapping) by its dotted path. */
function leafPaths(value: unknown, path: string[] = []): string[][] {
  const mapping = typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsExpression);
  if (mapping && (path.length === 0 || Object.keys(value).length > 0)) {
    return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]));
  }
  return [path];
}

/** Whether `text` has `path` (or a key above it, named as a whole) as a name of its own, not as part of a longer one. */
function names(text: string, path: string[]): boolean {
  for (let n = path.length; n >= 1; n--) {
    const name = path.slice(0, n).join(".").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    if (new RegExp(`(?<![\\w.-])${name}(?![\\w-]|\\.[\\w"])`).test(text)) return true;
  }
  return false;
}

/** What the import says of each key: the settings' comments and the names of the two lists; and the whole printed file. */
function imported(text: string) {
  const result = importConfig(text, null);
  const yaml = result.render();
  const said = [...result.settings.map((s) => s.from), ...result.same.map((u) => u.name), ...result.unmapped.map((u) => u.name)];
  const flat = yaml.replace(/\n\s*#\s*/g, " ").replace(/\s+/g, " ");
  const unknown = result.unmapped.filter((u) => /that this import knows/.test(u.why)).map((u) => u.name);
  const parsed = parseConfig((parseYaml(yaml) as Record<string, unknown> | null) ?? {});
  return { result, yaml, said, flat, unknown, parsed };
}

function expectNothingDropped(text: string, keys: string[][]) {
  const { said, flat, unknown, parsed, yaml } = imported(text);
  expect(keys.length).toBeGreaterThan(0);
  const silent = keys.filter((k) => !said.some((s) => names(s, k))).map((k) => k.join("."));
  expect(silent, `keys the import says nothing of:\n${yaml}`).toEqual([]);
  // What it says is printed, word for word (comments fold lines, so spaces are compared loosely).
  for (const s of said) expect(flat).toContain(s.replace(/\s+/g, " "));
  expect(unknown, "documented keys named as unknown").toEqual([]);
  expect(parsed.ok, yaml).toBe(true);
}

describe("assign-issue-action: every input the action documents", () => {
  const inputsOf = (text: string) => {
    const workflow = parseYaml(text) as { jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, unknown> }> }> };
    return Object.values(workflow.jobs).flatMap((j) => j.steps.filter((s) => /assign-issue-action/.test(s.uses ?? "")).flatMap((s) => Object.keys(s.with ?? {}).map((k) => [k])));
  };

  it.each(["assign-issue-action-inputs.yml", "assign-issue-action-readme.yml", "assign-issue-action-own.yml"])("%s: each input mapped or named", (name) => {
    const text = fixture(name);
    expectNothingDropped(text, inputsOf(text));
  });

  it("the documented inputs are all there: main's action.yml, and the `_text` names of 2026", () => {
    const inputs = inputsOf(fixture("assign-issue-action-inputs.yml")).map((k) => k[0]);
    // 31 of main's action.yml, closed_issue_assignment_comment and self_unassigned_comment, and the 14 `_text` names.
    expect(inputs).toHaveLength(47);
    expect(inputs).toEqual(expect.arrayContaining(["assigned_text", "assigned_newcomer_text", "self_unassigned_text", "closed_issue_assignment_text", "max_overall_assignment_count"]));
  });

  it("each message template is named with the issue-leases reply that answers the same case", () => {
    const { result } = imported(fixture("assign-issue-action-inputs.yml"));
    const why = (name: string) => result.unmapped.find((u) => u.name.startsWith(`${name} (`))?.why;
    expect(why("assigned_text")).toContain("a message template; issue-leases' replies are its own words (see docs/examples.md), in this case its `acquired` reply");
    expect(why("assigned_comment")).toContain("a message template (`assigned_text` since 2026)");
    expect(why("reminder_text")).toContain("its `reminded` reply");
    expect(why("already_assigned_pinned_text")).toContain("its `held` reply");
    expect(why("max_assignments_text")).toContain("`max_leases_per_holder`");
    expect(why("closed_issue_assignment_text")).toContain("its `forbidden` reply for a closed issue");
  });
});

describe("triagebot: every key of `[assign]`, and the other tables", () => {
  it.each(["triagebot-assign-keys.toml", "triagebot-forge.toml", "triagebot-own.toml"])("%s: each key mapped or named", (name) => {
    const text = fixture(name);
    const toml = parseToml(text) as Record<string, unknown>;
    const keys = Object.entries(toml).flatMap(([table, v]) =>
      table === "assign" && typeof v === "object" && v !== null && Object.keys(v).length > 0 ? leafPaths(v, ["assign"]) : [[table]],
    );
    // A table of triagebot's other features is named in brackets, as TOML writes it.
    const bracketed = keys.map((k) => (k[0] === "assign" ? k : [`[${k[0]}]`]));
    expectNothingDropped(text, bracketed);
  });
});

describe("zulipbot: every key of its default config, over its history", () => {
  it.each([
    ["zulipbot-2017.js", ["issues.commands.assign.claim.aliases", "issues.commands.assign.claim.permission", "inactivity.label", "pullRequests.travis", "auth.username"]],
    ["zulipbot-2018.js", ["issues.commands.assign.multiple", "issues.commands.assign.newContributors.warn.presence", "issues.commands.assign.newContributors.warn.force", "activity.pulls.needsReview.ignore"]],
    ["zulipbot-2025.ts.txt", ["issues.commands.assign.warn.force", "issues.commands.assign.limit", "pulls.status.mergeConflicts.branch", "auth.oAuthToken", "eventsDelay"]],
    ["zulipbot-config-example.json", ["issues.commands.assign.warn.force", "activity.issues.clearClosed"]],
  ])("%s: each key mapped or named", (name, documented) => {
    const text = fixture(name);
    const config = name.endsWith(".json") ? (JSON.parse(text) as unknown) : readJsExports(text);
    const keys = leafPaths(config);
    const paths = keys.map((k) => k.join("."));
    // The module was read to its leaves: the keys its era's default config declares are there.
    for (const path of documented) expect(paths.some((p) => p === path || p.startsWith(`${path}.`)), path).toBe(true);
    expectNothingDropped(text, keys);
  });
});
