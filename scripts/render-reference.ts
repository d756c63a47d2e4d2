/**
 * Writes, from the table of settings (src/settings/settings-table.ts),
 * `.env.example` (what a server's `.env` may set, each with what it does)
 * and docs/reference/environment.md (every variable src/ reads: its value,
 * default, what it does and who needs it). `npm run docs:reference` writes
 * both; test/docs/env-reference.test.ts renders them again and fails when
 * the checked-in files differ, so neither drifts from the code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Reader, SettingRow, SettingSection } from "../src/settings/setting-row.js";
import { SETTING_SECTIONS } from "../src/settings/settings-table.js";

export const ENV_EXAMPLE = ".env.example";
export const REFERENCE = "docs/reference/environment.md";

const WIDTH = 80;

/** `text` as comment lines of at most WIDTH characters (a word longer than that stands alone). */
function commentLines(text: string): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "#" && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  if (line !== "#") lines.push(line);
  return lines;
}

/** The row's line: `NAME=value` set (`NAME=` to fill in), or `# NAME=value` for reference. */
function exampleLine(row: SettingRow): string {
  const example = row.example!;
  return typeof example === "string" ? `# ${row.name}=${example}` : `${row.name}=${example.set}`;
}

function exampleValue(row: SettingRow): string {
  return typeof row.example === "string" ? row.example : row.example!.set;
}

/** What `.env.example` says of a row: its meaning, and its default when the line shows another value. */
function exampleComment(row: SettingRow): string {
  const shown = exampleValue(row);
  const other = row.default !== null && shown !== "" && shown !== row.default;
  return other ? `${row.meaning} Default: ${row.default}.` : row.meaning;
}

/** `.env.example`: the sections that have a line an operator may set, each row with what it does. */
export function envExample(sections: readonly SettingSection[] = SETTING_SECTIONS): string {
  const out = [
    "# Copy to .env and fill in. Probot's setup page (npm start without APP_ID)",
    "# writes APP_ID, PRIVATE_KEY and WEBHOOK_SECRET here for you.",
    "#",
    "# Written by `npm run docs:reference` from the table of settings",
    "# (src/settings/); every variable, its default and who needs it:",
    `# ${REFERENCE}.`,
  ];
  for (const section of sections) {
    const rows = section.rows.filter((r) => r.example !== undefined);
    if (rows.length === 0) continue;
    out.push("", `# == ${section.title} ==`, ...commentLines(section.about));
    for (const row of rows) out.push("", ...commentLines(exampleComment(row)), exampleLine(row));
  }
  return `${out.join("\n")}\n`;
}

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

function main(root: string): void {
  writeFileSync(join(root, ENV_EXAMPLE), envExample());
  mkdirSync(dirname(join(root, REFERENCE)), { recursive: true });
  writeFileSync(join(root, REFERENCE), environmentReference());
  process.stdout.write(`wrote ${ENV_EXAMPLE} and ${REFERENCE}\n`);
}

// Run as `node dist/scripts/render-reference.js` from the repository root (npm run docs:reference).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.cwd());
