/**
 * `issue-leases import-config` on the shapes real projects' files have
 * (issue 40): omegaup's workflow, whose `max_assignments` is an expression
 * its own `env:` answers; JabRef's, with the action's `_text` message inputs;
 * zulipbot's modules (CommonJS, `module.exports`, TypeScript), read without
 * running them, in its 2017 command shape too. Each workflow or module below
 * is cut to what the case needs from the file named beside it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { describe, expect, it } from "vitest";
import { importConfig } from "../../src/cli/import-config.js";
import { parseConfig } from "../../src/config/config.js";

const FIXTURES = join(import.meta.dirname, "fixtures");

function imported(text: string, from: Parameters<typeof importConfig>[1] = null) {
  const result = importConfig(text, from);
  const yaml = result.render();
  const raw = (parseYaml(yaml) as Record<string, unknown> | null) ?? {};
  const parsed = parseConfig(raw);
  if (!parsed.ok) throw new Error(`the printed config does not parse: ${parsed.error}\n${yaml}`);
  return { yaml, raw, config: parsed.config, unmapped: result.unmapped, same: result.same };
}

/** omegaup/omegaup's .github/workflows/assign-issues.yml at commit e59d0a52 (2026-02-09), its `assign` job cut to the action's step. */
const omegaup = (env: string, value = "${{ env.MAX_ASSIGNMENTS }}") => `
name: "Assign Issues"
on:
    issue_comment:
        types: [created]
${env.startsWith("workflow:") ? `env:\n    ${env.slice("workflow:".length)}\n` : ""}
jobs:
    assign:
        runs-on: ubuntu-22.04
${env.startsWith("job:") ? `        env:\n            ${env.slice("job:".length)}\n` : ""}
        steps:
            - name: Assign or unassign issues (standard flow)
              uses: takanome-dev/assign-issue-action@beta
${env.startsWith("step:") ? `              env:\n                  ${env.slice("step:".length)}\n` : ""}
              with:
                  github_token: \${{ secrets.GITHUB_TOKEN }}
                  maintainers: ""
                  self_assign_cmd: /assign
                  self_unassign_cmd: /unassign
                  days_until_unassign: 7
                  max_assignments: ${value}
                  max_assignments_message: >
                      You already have the maximum number of assigned issues (\${{ env.MAX_ASSIGNMENTS }}).
`;

describe("omegaup: `max_assignments: ${{ env.MAX_ASSIGNMENTS }}`", () => {
  it.each([
    ["the job's `env:`", "job:MAX_ASSIGNMENTS: 5"],
    ["the workflow's `env:`", "workflow:MAX_ASSIGNMENTS: 5"],
    ["the step's `env:`", "step:MAX_ASSIGNMENTS: 5"],
  ])("is 5 when %s says so, and the comment says where it was read", (where, env) => {
    const { raw, config, yaml, unmapped } = imported(omegaup(env));
    expect(config.maxLeasesPerHolder).toBe(5);
    expect(raw.max_leases_per_holder).toBe(5);
    expect(yaml).toContain(`# max_assignments: "\${{ env.MAX_ASSIGNMENTS }}", "5" in ${where}\nmax_leases_per_holder: 5\n`);
    expect(unmapped.map((u) => u.name).filter((n) => n.startsWith("max_assignments "))).toEqual([]);
  });

  it("the step's own `env:` comes before the job's, as GitHub looks it up", () => {
    const text = omegaup("job:MAX_ASSIGNMENTS: 5").replace("              with:", "              env:\n                  MAX_ASSIGNMENTS: 2\n              with:");
    expect(imported(text).config.maxLeasesPerHolder).toBe(2);
  });

  it.each([
    ["no `env:` sets it", "job:OTHER: 1", undefined],
    ["its `env:` value is an expression itself", "job:MAX_ASSIGNMENTS: ${{ vars.MAX }}", undefined],
    ["it reads `vars`, not `env`", "job:MAX_ASSIGNMENTS: 5", "${{ vars.MAX_ASSIGNMENTS }}"],
    ["it computes", "job:MAX_ASSIGNMENTS: 5", "${{ env.MAX_ASSIGNMENTS + 1 }}"],
  ])("when %s: no limit is made up, and Not imported says to set it by hand", (_, env, value) => {
    const { raw, yaml, unmapped } = imported(omegaup(env, value));
    // Not the action's default (3) passed off as read: no limit at all.
    expect(raw).not.toHaveProperty("max_leases_per_holder");
    expect(yaml).not.toMatch(/max_assignments: "3" \(its default\)/);
    const named = unmapped.filter((u) => u.name.startsWith("max_assignments ("));
    expect(named).toHaveLength(1);
    expect(named[0]!.why).toMatch(/^an expression known only when the workflow runs .*: set what it gives by hand; this import sets nothing for it\.$/);
  });
});

describe("JabRef: the action's `_text` message inputs", () => {
  // JabRef/jabref's .github/workflows/on-issue-comment.yml at commit edbf3b13 (August 2026), its messages cut short.
  const jabref = `
jobs:
  assign:
    runs-on: ubuntu-slim
    steps:
      - name: Assign the user or unassign stale assignments
        uses: takanome-dev/assign-issue-action@edge
        with:
          github_token: '\${{ secrets.GH_TOKEN_ASSIGN_ISSUE_ACTION  || github.token }}'
          maintainers: '@JabRef/developers,Siedlerchr,ThiloteE'
          allow_self_assign_author: false
          ignored_users: \${{ secrets.IGNORED_USERS }}
          ignored_text: Hi @{{ handle }}, please read our AI usage policy.
          assignment_suggestion_text: Please read our CONTRIBUTING.md to find out how.
          max_assignments: 3
          max_overall_assignment_text: Hi @{{ handle }}, you reached {{ max_overall_assignment_count }}.
          assigned_newcomer_text: Hey @{{ handle }}, thank you for your interest in this issue!
          assigned_text: Thank you for your continued work in JabRef.
          days_until_unassign: 8
          self_unassigned_text: "@{{ handle }} has been unassigned from this issue."
          unassigned_text: Hi @{{ handle }} you have been unassigned from this issue.
`;

  it("each `_text` input is named with the reply that answers its case, none as an unknown input", () => {
    const { config, unmapped } = imported(jabref);
    expect(config).toMatchObject({ defaultTtl: 8 * 86_400_000, maxLeasesPerHolder: 3 });
    const why = Object.fromEntries(unmapped.map((u) => [u.name.replace(/ \(.*$/s, ""), u.why]));
    for (const name of ["ignored_text", "assignment_suggestion_text", "max_overall_assignment_text", "assigned_newcomer_text", "assigned_text", "self_unassigned_text", "unassigned_text"]) {
      expect(why[name], name).toMatch(/^a message template; issue-leases' replies are its own words \(see docs\/examples\.md\), in this case /);
    }
    expect(why["assigned_text"]).toContain("its `acquired` reply");
    expect(why["unassigned_text"]).toContain("its `released` and `expired` replies");
    expect(unmapped.filter((u) => /that this import knows/.test(u.why))).toEqual([]);
    // An expression for an input with no equivalent is named as written.
    expect(unmapped.map((u) => u.name)).toContain('ignored_users ("${{ secrets.IGNORED_USERS }}")');
  });
});

describe("zulipbot's config module, read without running it", () => {
  it("CommonJS in its 2017 shape: `claim: {aliases: […]}` keeps its aliases, and `newContributors.warn` (2018) is named", () => {
    const old = imported(readFileSync(join(FIXTURES, "zulipbot-2017.js"), "utf8"));
    expect(old.raw.commands).toEqual({ take: "claim", abandon: "release", unclaim: "release" });
    expect(old.raw.mentions).toBe(true);
    expect(old.config).toMatchObject({ defaultTtl: 14 * 86_400_000, reminderBefore: 4 * 86_400_000 });
    expect(old.same.map((u) => u.name)).toContain('issues.commands.assign.claim.aliases ("claim")');
    expect(old.unmapped.map((u) => u.name)).toEqual(expect.arrayContaining(['issues.commands.assign.claim.permission ("pull")', 'inactivity.label ("inactive")', "pullRequests"]));

    const warned = imported(readFileSync(join(FIXTURES, "zulipbot-2018.js"), "utf8"));
    const warn = warned.unmapped.find((u) => u.name.startsWith("issues.commands.assign.newContributors.warn "));
    expect(warn?.name).toBe('issues.commands.assign.newContributors.warn (labels ["help wanted", "good first issue"], presence: false, force: true)');
    expect(warn?.why).toMatch(/^zulipbot answers new contributors' claims of an issue without the labels "help wanted", "good first issue" with a warning/);
  });

  it("`exports.x = …`, `module.exports = {…}` and `export const x: T = …` are told from their content and read alike", () => {
    const body = '{ commands: { assign: { claim: ["take"], abandon: ["drop"] } } }';
    const forms = [
      `exports.issues = ${body};\nexports.activity = { check: { reminder: 2, limit: 3 } };\n`,
      `"use strict";\nmodule.exports = {\n  issues: ${body},\n  activity: { check: { reminder: 2, limit: 3 } },\n};\n`,
      `// config.ts\nexport const issues: Config = ${body};\nexport const activity = { check: { reminder: 2, limit: 3 } } as const;\n`,
    ];
    for (const text of forms) {
      for (const from of [null, "zulipbot"] as const) {
        const { raw, config } = imported(text, from);
        expect(raw.commands, text).toEqual({ take: "claim", drop: "release" });
        expect(config.defaultTtl, text).toBe(5 * 86_400_000);
      }
    }
  });

  it("runs nothing in it: a computed value is named as one to set by hand, and code in the file never runs", () => {
    const text = [
      'const secrets = require("./secrets.json");',
      "exports.auth = { username: process.env.USERNAME || secrets.username };",
      'exports.issues = { commands: { assign: { claim: ["claim"], limit: (() => { throw new Error("ran") })() } } };',
      "exports.activity = { check: { reminder: Number(process.env.REMIND), limit: 4 } };",
      'globalThis.ran = "yes";',
    ].join("\n");
    const { unmapped, raw } = imported(text);
    expect((globalThis as { ran?: string }).ran).toBeUndefined();
    const names = unmapped.map((u) => u.name);
    expect(names).toContain("auth");
    expect(names).toContain('issues.commands.assign.limit (`(() => { throw new Error("ran") })()`)');
    expect(names).toContain("activity.check.reminder (`Number(process.env.REMIND)`)");
    expect(unmapped.find((u) => u.name.startsWith("activity.check.reminder"))?.why).toBe(
      "computed when zulipbot runs, not a value written in the file; this import does not run it, so set what it gives by hand.",
    );
    // The expiry is not guessed from the half of it that is written.
    expect(raw).not.toHaveProperty("default_ttl");
  });

  it("a module with no value to read is refused, saying how to give the config as JSON", () => {
    for (const from of [null, "zulipbot"] as const) {
      expect(() => importConfig('import { config } from "./shared.js";\nexport default config;\n', from)).toThrow(
        /exports no value this import can read .*write its `issues` and `activity` objects as JSON/,
      );
    }
  });
});
