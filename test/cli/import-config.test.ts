/**
 * `issue-leases import-config` on the peers' own documented configs
 * (test/cli/fixtures/, each saying where it came from): the printed YAML
 * parses, with the project's own config parser, to the values expected, and
 * every setting without an equivalent is named in its comments.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runCli } from "../../src/cli/run-cli.js";
import { importConfig } from "../../src/cli/import-config.js";
import type { CliIo } from "../../src/cli/cli-io.js";
import { parseConfig } from "../../src/config/config.js";
import type { Config } from "../../src/config/schema.js";

const DAY = 86_400_000;
const FIXTURES = join(import.meta.dirname, "fixtures");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

/** What the printed YAML holds, and the config the project's parser makes of it. */
function imported(text: string, from: Parameters<typeof importConfig>[1] = null) {
  const result = importConfig(text, from);
  const yaml = result.render();
  const raw = parseYaml(yaml) as Record<string, unknown> | null;
  const parsed = parseConfig(raw ?? {});
  if (!parsed.ok) throw new Error(`the printed config does not parse: ${parsed.error}\n${yaml}`);
  // An empty document (comments only) is YAML's null: shown as no keys.
  return { yaml, raw: raw ?? {}, empty: raw === null, config: parsed.config, unmapped: result.unmapped.map((u) => u.name), same: result.same.map((u) => u.name) };
}

/** The names in the "Not imported" comments, as printed. */
function namedInComments(yaml: string): string {
  return yaml.slice(yaml.indexOf("# Not imported")).replace(/\n#\s+/g, " ");
}

describe("assign-issue-action", () => {
  it("the README's workflow: the action's defaults, and its commands kept as aliases", () => {
    const { raw, config, unmapped, yaml } = imported(fixture("assign-issue-action-readme.yml"));
    expect(raw.commands).toEqual({ "assign-me": "claim", "unassign-me": "release" });
    expect(config).toMatchObject<Partial<Config>>({
      defaultTtl: 7 * DAY,
      // reminder_days `auto`: half of 7 days, 3, after the assignment: 4 days before the end.
      reminderBefore: 4 * DAY,
      maxLeasesPerHolder: 3,
      limitsByLabel: [
        { label: "good first issue", limit: 2 },
        { label: "good second issue", limit: 2 },
      ],
      exemptLabels: ["📌 Pinned"],
    });
    expect(config.labels.claimed).toBe("📍 Assigned");
    for (const name of ["github_token", "maintainers", "assign_user_cmd", "unassign_user_cmd", "block_assignment", "enable_auto_suggestion"]) {
      expect(unmapped.some((u) => u.startsWith(name)), name).toBe(true);
      expect(namedInComments(yaml)).toContain(`- ${name}`);
    }
  });

  it("the action's own workflow: with maintainers, /assign and /unassign stand for /claim @user and /release @user", () => {
    const { raw, unmapped, yaml } = imported(fixture("assign-issue-action-own.yml"));
    expect(raw.commands).toEqual({ "assign-me": "claim", "unassign-me": "release", assign: "claim", unassign: "release" });
    expect(unmapped).toContain('maintainers ("takanome-dev")');
    expect(unmapped).toContain('block_assignment ("true")');
    expect(yaml).toMatch(/^ {2}# assign_user_cmd: "\/assign" \(its default\): `\/assign @user` then gives the lease as `\/claim @user`/m);
  });

  it("inputs set in the workflow: a long expiry widens max_ttl, the reminder counts back from it, a custom command is kept", () => {
    // Made for this test (not a peer's example): each input set to something other than its default.
    const workflow = `
jobs:
  comments:
    steps:
      - uses: actions/checkout@v4
      - uses: takanome-dev/assign-issue-action@v2.3.0
        with:
          days_until_unassign: 45
          reminder_days: 40
          max_assignments: "1"
          self_assign_cmd: /take
          self_unassign_cmd: ".untake"
          assigned_label: "status: taken"
          pin_label: ""
          max_overall_assignment_count: "0"
          assigned_comment: "Thanks @{{ handle }}!"
          required_label: help wanted
          favourite_colour: blue
  sweep:
    steps:
      - uses: TAKANOME-DEV/assign-issue-action@edge
        with:
          days_until_unassign: \${{ vars.DAYS }}
`;
    const { raw, config, unmapped, same } = imported(workflow);
    expect(config).toMatchObject<Partial<Config>>({ defaultTtl: 45 * DAY, maxTtl: 45 * DAY, reminderBefore: 5 * DAY, maxLeasesPerHolder: 1, exemptLabels: [], limitsByLabel: [] });
    expect(config.labels.claimed).toBe("status: taken");
    expect(raw.commands).toEqual({ take: "claim" });
    expect(unmapped).toEqual(
      expect.arrayContaining([
        "self_unassign_cmd",
        'days_until_unassign ("${{ vars.DAYS }}")',
        'assigned_comment ("Thanks @{{ handle }}!")',
        'required_label ("help wanted")',
        'favourite_colour ("blue")',
      ]),
    );
    // Set to what issue-leases does anyway: named, not dropped.
    expect(same).toEqual(expect.arrayContaining(['pin_label ("")', 'max_overall_assignment_count ("0")']));
  });

  it("reminders off, and a workflow without the action is refused by name", () => {
    const off = imported("jobs:\n  a:\n    steps:\n      - uses: takanome-dev/assign-issue-action@v2\n        with:\n          enable_reminder: false\n");
    expect(off.config.reminderBefore).toBeNull();
    expect(() => importConfig("jobs:\n  a:\n    steps:\n      - uses: actions/stale@v9\n", null)).toThrow(
      /a YAML file, but no step of this workflow `uses: takanome-dev\/assign-issue-action@…`/,
    );
  });

  it("text from the workflow cannot end a comment or start a key of its own", () => {
    const label = "taken\ndefault_ttl: 1s # x";
    const { raw, config, unmapped, yaml } = imported(
      `jobs:\n  a:\n    steps:\n      - uses: takanome-dev/assign-issue-action@v2\n        with:\n          assigned_label: ${JSON.stringify(label)}\n          self_assign_cmd: "/take\\nmax_ttl: 1m"\n`,
    );
    expect(config.labels.claimed).toBe(label);
    expect(config.defaultTtl).toBe(7 * DAY);
    expect(raw.max_ttl).toBeUndefined();
    expect(unmapped).toContain("self_assign_cmd");
    // Every line is a comment, blank, or one the importer wrote.
    for (const line of yaml.split("\n")) expect(line).toMatch(/^(?:\s*#.*|\s*|[a-z_]+:.*|\s+("[^"]*"|[a-z-]+): .+)$/);
  });
});

describe("triagebot", () => {
  it("rust-forge's examples: claims that never expire, @rustbot's words kept, reviewer assignment named", () => {
    const { raw, config, unmapped, yaml } = imported(fixture("triagebot-forge.toml"));
    expect(config.defaultTtl).toBeNull();
    expect(raw.mentions).toBe(true);
    expect(raw.commands).toEqual({ "release-assignment": "release", assign: "claim" });
    for (const key of ["warn_non_default_branch", "contributing_url", "users_on_vacation", "adhoc_groups", "owners", "custom_messages"]) {
      expect(unmapped.some((u) => u.startsWith(`assign.${key} `)), key).toBe(true);
      expect(namedInComments(yaml)).toContain(`- assign.${key} `);
    }
  });

  it("triagebot's own triagebot.toml: an empty [assign], and its other tables named as not about claims", () => {
    const { raw, unmapped } = imported(fixture("triagebot-own.toml"));
    expect(raw.commands).toEqual({ "release-assignment": "release", assign: "claim" });
    expect(unmapped).toEqual(["[relabel], [note], [lock], [concern], [major-change], [ping], [review-changes-since], [mentions]"]);
  });

  it("without [assign], triagebot does not claim: nothing is set, and it says why", () => {
    const { empty, yaml } = imported('[relabel]\nallow-unauthenticated = ["bug"]\n', "triagebot");
    expect(empty).toBe(true);
    expect(yaml).toContain("no `[assign]` table, so triagebot's claim commands are off here");
  });
});

describe("zulipbot", () => {
  it("zulip's own configuration (config-example.ts, as JSON): @zulipbot's words, inactivity as expiry and reminder", () => {
    const { raw, config, unmapped } = imported(fixture("zulipbot-config-example.json"));
    expect(raw.mentions).toBe(true);
    // `claim` is issue-leases' own command already.
    expect(raw.commands).toEqual({ abandon: "release", unclaim: "release", abort: "release" });
    // reminder after 10 days without updates, unassigned 4 days later.
    expect(config).toMatchObject<Partial<Config>>({ defaultTtl: 14 * DAY, reminderBefore: 4 * DAY, maxLeasesPerHolder: 0 });
    expect(config.labels.claimed).toBe("in progress");
    expect(unmapped).toEqual(
      expect.arrayContaining([
        "issues.commands.assign.newContributors.restricted (1)",
        'issues.commands.assign.newContributors.permission ("pull")',
        'issues.commands.assign.warn (labels ["help wanted"], force: false)',
        "activity.check.interval (6)",
        'activity.inactive ("inactive")',
        "pulls",
      ]),
    );
  });

  it("its config module is read as its values, never run: `export const` as much as JSON", () => {
    const module = 'export const issues = {\n  commands: { assign: { claim: ["claim", "take"] } },\n};\n';
    for (const from of [null, "zulipbot"] as const) expect(imported(module, from).raw.commands).toEqual({ take: "claim" });
  });
});

describe("issue-leases import-config", () => {
  async function run(args: string[], stdin?: string) {
    let out = "";
    let err = "";
    const io: CliIo = {
      out: (t) => (out += `${t}\n`),
      err: (t) => (err += `${t}\n`),
      clock: () => 0,
      env: {},
      ...(stdin !== undefined ? { readStdin: async () => stdin } : {}),
    };
    const code = await runCli(args, io);
    return { code, out, err };
  }

  it("prints the YAML on stdout and a summary on stderr, from a file or standard input", async () => {
    const file = join(FIXTURES, "triagebot-forge.toml");
    const fromFile = await run(["import-config", file]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.out).toBe(importConfig(fixture("triagebot-forge.toml"), null).render());
    expect(fromFile.err).toBe("imported from triagebot: 4 settings; 6 with no equivalent, named at the end as comments\n");
    const piped = await run(["import-config", "--from", "triagebot"], fixture("triagebot-forge.toml"));
    expect(piped).toEqual(fromFile);
  });

  it("answers a wrong --from, a missing file and an unknown format with one line and a non-zero exit", async () => {
    const wrong = await run(["import-config", join(FIXTURES, "triagebot-own.toml"), "--from", "zulipbot"]);
    expect(wrong).toMatchObject({ code: 1, out: "" });
    expect(wrong.err).toMatch(/^issue-leases: not JSON, nor a JavaScript module: it does not start with `\{`\n$/);
    const unknown = await run(["import-config", "--from", "prow"], "");
    expect(unknown).toMatchObject({ code: 2, err: 'issue-leases: --from "prow": expected one of assign-issue-action, triagebot, zulipbot\n' });
    const missing = await run(["import-config", join(FIXTURES, "no-such-file.yml")]);
    expect(missing).toMatchObject({ code: 1, out: "" });
    expect(missing.err).toMatch(/^issue-leases: cannot read .*no-such-file\.yml \(ENOENT\): give the other bot's config file\n$/);
    const prose = await run(["import-config"], "Please assign me, I would like to work on this.\n= = =\n");
    expect(prose.code).toBe(1);
    expect(prose.err).toMatch(/could not tell which bot's config this is/);
    const terminal = await run(["import-config"]);
    expect(terminal.code).toBe(2);
  });
});
