/**
 * `.env.example`, from the table of settings (src/settings/settings-table.ts):
 * what a server's `.env` may set, each with what it does. Only the rows an
 * operator sets (those with an example) are in it; the reference page
 * (environment.ts) has them all.
 */
import type { SettingRow, SettingSection } from "../../src/settings/setting-row.js";
import { SETTING_SECTIONS } from "../../src/settings/settings-table.js";
import { path as REFERENCE } from "./environment.js";

export const path = ".env.example";

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

export function render(): string {
  return envExample();
}
