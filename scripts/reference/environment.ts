/**
 * docs/reference/environment.md, from the table of settings
 * (src/settings/settings-table.ts): every variable src/ reads, its value,
 * default, what it does and who needs it. `.env.example` is written from the
 * same table (env-example.ts); test/docs/env-reference.test.ts checks both.
 */
import type { Reader, SettingRow, SettingSection } from "../../src/settings/setting-row.js";
import { SETTING_SECTIONS } from "../../src/settings/settings-table.js";

export const path = "docs/reference/environment.md";

const READERS: Record<Reader, string> = { server: "server", cli: "CLI", agent: "agent", action: "Action" };
const SETTERS = { runner: "set by the Actions runner", "agent run": "set by `agent run`", platform: "set by the platform" } as const;

const cell = (text: string) => text.replace(/\|/g, "\\|");

function whoCell(row: SettingRow): string {
  const who = row.who.map((r) => READERS[r]).join(", ");
  const notes = [row.probot ? "read by Probot too" : null, row.setBy && row.setBy !== "operator" ? SETTERS[row.setBy] : null].filter(Boolean);
  return notes.length === 0 ? who : `${who} (${notes.join("; ")})`;
}

/** docs/reference/environment.md: every variable of the table, by section. */
export function environmentReference(sections: readonly SettingSection[] = SETTING_SECTIONS): string {
  const out = [
    "# Environment variables",
    "",
    "<!-- Written by `npm run docs:reference` from src/settings/ (the table of settings); test/docs/env-reference.test.ts checks it. -->",
    "",
    "Every environment variable issue-leases reads, from the table in",
    "[src/settings/settings-table.ts](../../src/settings/settings-table.ts). Who needs it:",
    "**server**, `npm start` (from the environment, and `.env` over it: [`.env.example`](../../.env.example) lists what it may set);",
    "**CLI**, the operator's commands (`issue-leases list`, `doctor`, `backup`, …, which read `.env` too);",
    "**agent**, `issue-leases agent …` and `issue-leases mcp` (from their own environment, never `.env`);",
    "**Action**, the GitHub Action's steps. \"Read by Probot too\": Probot reads it itself, from the environment",
    "`npm start` hands it, once the app has checked it. A wrong value ends the server's start with one line naming it.",
  ];
  for (const section of sections) {
    out.push("", `## ${section.title}`, "", section.about, "", "| Variable | Value | Default | What it does | Who needs it |", "| --- | --- | --- | --- | --- |");
    for (const row of section.rows) {
      const value = row.default === null ? "none" : `\`${row.default}\``;
      out.push(`| \`${row.name}\` | ${row.type} | ${value} | ${cell(row.meaning)} | ${whoCell(row)} |`);
    }
  }
  return `${out.join("\n")}\n`;
}

export function render(): string {
  return environmentReference();
}
