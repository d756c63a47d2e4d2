/**
 * The config in force, as `check-config` and the check run `issue-leases
 * config` print it, is config: pasted into `.github/issue-leases.yml` it
 * reads, through the app's own file parser and schema, as the same config.
 * Both forms are checked: the YAML lines, and `--json`'s `config` object.
 */
import fc from "fast-check";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";
import { checkConfig, effectiveLines } from "../../src/config/config-check.js";
import { type ConfigFile, parseConfigFile } from "../../src/config/files.js";
import type { Config } from "../../src/config/schema.js";

const FILE = ".github/issue-leases.yml";
const file = (text: string, own = true) =>
  parseConfigFile(own ? { owner: "acme", repo: "widgets", path: FILE } : { owner: "acme", repo: "shared", path: "conf/leases.yml" }, own, text) as ConfigFile;

/** The config a file's text gives, through the same parser and schema as the app's. */
function configOf(text: string): Config {
  const parsed = file(text);
  const result = parseConfig(parsed.config);
  if (!result.ok) throw new Error(`${text}\ndoes not parse: ${result.error}`);
  return result.config;
}

/** What check-config prints for `text`: the YAML lines, and the object `--json` gives as `config`. */
function inForce(text: string): { yaml: string; json: Record<string, unknown> } {
  const check = checkConfig([file(text)], FILE);
  if (!check.ok) throw new Error(`${text}\nis not valid: ${JSON.stringify(check.problems)}`);
  return {
    yaml: effectiveLines(check.effective).join("\n"),
    json: Object.fromEntries(check.effective.map((e) => [e.key, e.value])),
  };
}

const CONFIGS: Array<[string, string]> = [
  ["no file at all (every default)", ""],
  ["aliases, with and without their slash, in any case", "commands:\n  take: claim\n  /Abandon: release\n  extend: renew\n  who: lease\nmentions: true\n"],
  [
    "label templates, one label off",
    'labels:\n  claimed: "working on it"\n  holder: "taken by: {holder}"\n  token: false\n  in_review: "review: {open}"\nassign: false\n',
  ],
  [
    "webhooks, with and without events and format",
    "webhooks:\n  - url: https://Example.COM/hooks/leases\n    events: [lease.acquired, lease.released]\n    format: slack\n  - url: https://hooks.example.org/x?y=1#z\n",
  ],
  [
    "policies and limits",
    [
      "claimers: members",
      "bots: false",
      "assignment: claims",
      "max_leases_per_holder: 2",
      "max_leases_per_holder_in_org: 5",
      "max_replies_per_hour: 0",
      'limits_by_label: {"good first issue": 1, " help wanted ": 3}',
      "author_first: 2d",
      "exempt_labels: [pinned, 'long: running']",
      "count_in_review: true",
      "require_lease_for_pull_requests: true",
      "renew_on_activity: false",
      "queue: true",
      "queue_place_ttl: 12h",
      "",
    ].join("\n"),
  ],
  ["durations of every kind, open-ended leases, no reminders", "default_ttl: none\nmin_ttl: 1.5h\nmax_ttl: 1.0001d\nreminder_before: none\nqueue_place_ttl: 2 weeks\n"],
  ["durations that are no whole unit", "min_ttl: 1.5s\nmax_ttl: 3.000001h\ndefault_ttl: 90.25m\n"],
];

describe("the config in force, printed", () => {
  it.each(CONFIGS)("%s: the printed YAML reads back as the same config", (_, text) => {
    const { yaml } = inForce(text);
    const printed = parseYaml(yaml) as Record<string, unknown>;
    const result = parseConfig(printed);
    expect(result, `printed:\n${yaml}`).toEqual({ ok: true, config: configOf(text) });
  });

  it.each(CONFIGS)("%s: --json's config reads back as the same config", (_, text) => {
    const { json } = inForce(text);
    expect(parseConfig(json)).toEqual({ ok: true, config: configOf(text) });
  });

  it("aliases print as the mapping `commands:` takes, not as the app's list of words", () => {
    const { yaml, json } = inForce("commands:\n  take: claim\n");
    expect(yaml.split("\n")).toContain("commands: { take: claim }");
    expect(json["commands"]).toEqual({ take: "claim" });
    expect(inForce("").yaml.split("\n")).toContainEqual(expect.stringMatching(/^commands: \{\} +# default$/));
  });

  it("a value set in another file is a comment, so the printed lines are still config", () => {
    const check = checkConfig([file("default_ttl: 3d\n"), file("max_ttl: 13d\ncommands: {take: claim}\n", false)], FILE);
    if (!check.ok) throw new Error("expected a valid config");
    const lines = effectiveLines(check.effective);
    expect(lines).toContainEqual(expect.stringMatching(/^# max_ttl: … +# from acme\/shared:conf\/leases\.yml$/));
    const printed = parseYaml(lines.join("\n")) as Record<string, unknown>;
    expect(printed).not.toHaveProperty("max_ttl");
    expect(parseConfig(printed).ok).toBe(true);
  });

  it("any duration a file may write prints as one that reads back to the same length", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 365 * 86_400_000 }), (ms) => {
        const text = `min_ttl: ${ms / 1000}s\nmax_ttl: 365d\ndefault_ttl: none\n`;
        const { yaml } = inForce(text);
        expect(parseConfig(parseYaml(yaml))).toEqual({ ok: true, config: configOf(text) });
      }),
      { numRuns: 300 },
    );
  });
});
