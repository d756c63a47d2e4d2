/**
 * docs/reference/environment.md: every environment variable the app reads,
 * from `.env.example` as it is (test/docs/env-example.test.ts checks that it
 * names every variable src/ reads): each group of variables under the
 * comment that says what they do, and the value the file writes.
 *
 * `.env.example` is a run of groups, each some comment lines and then the
 * variables they are about, `NAME=value` (set) or `# NAME=value` (left
 * unset, its default or an example); a blank line, or a comment after a
 * variable, begins the next group.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { githubSlug } from "../docs/github-slug.js";
import { code, generatedNote, prose, table } from "../docs/markdown.js";

export const path = "docs/reference/environment.md";

export interface EnvVariable {
  name: string;
  /** As the file writes it: empty, a default, or an example. */
  value: string;
  /** Set in `.env.example` (`NAME=`), or left in a comment (`# NAME=`). */
  set: boolean;
  /** The comment after it on its line, if any. */
  note: string;
}

export interface EnvGroup {
  /** The comment lines before the variables, joined. */
  text: string;
  variables: EnvVariable[];
}

const VARIABLE = /^(#\s?)?([A-Z][A-Z0-9_]*)=(.*)$/;

/** The groups of a `.env.example` text, in order; a comment with no variable after it is a group of none. */
export function envGroups(text: string): EnvGroup[] {
  const groups: EnvGroup[] = [];
  let current: EnvGroup | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (line === "") {
      current = null;
      continue;
    }
    const m = VARIABLE.exec(line);
    if (m) {
      if (current === null) groups.push((current = { text: "", variables: [] }));
      const [value, ...note] = m[3]!.split(/\s+#\s+/);
      current.variables.push({ name: m[2]!, value: value!.trim(), set: m[1] === undefined, note: note.join(" # ").trim() });
      continue;
    }
    const comment = line.replace(/^#\s?/, "");
    if (current === null || current.variables.length > 0) groups.push((current = { text: "", variables: [] }));
    current.text = current.text === "" ? comment : `${current.text} ${comment}`;
  }
  return groups;
}

function heading(group: EnvGroup): string {
  return group.variables.map((v) => code(v.name)).join(", ");
}

function written(v: EnvVariable): string {
  return code(`${v.set ? "" : "# "}${v.name}=${v.value}`);
}

export function render(root: string): string {
  const groups = envGroups(readFileSync(join(root, ".env.example"), "utf8"));
  const [intro, ...rest] = groups[0]!.variables.length === 0 ? groups : [{ text: "", variables: [] }, ...groups];
  const withVariables = rest.filter((g) => g.variables.length > 0);
  const anchor = (g: EnvGroup) => githubSlug(g.variables.map((v) => v.name).join(", "));
  const sections = rest.map((g) => {
    if (g.variables.length === 0) return prose(g.text);
    const rows = g.variables.map((v) => [code(v.name), written(v), prose(v.note)]);
    return [`## ${heading(g)}`, "", prose(g.text), "", table(["Variable", "In `.env.example`", ""], rows)].join("\n");
  });
  return [
    "# Environment variables",
    "",
    generatedNote("scripts/reference/environment.ts", "`.env.example`"),
    "",
    "Every environment variable the app reads, as [`.env.example`](../../.env.example)",
    "lists them (a test checks that it names every variable the code reads), each",
    "under the comment that says what it does. A line `NAME=value` sets it as",
    "written once the file is copied to `.env` (fill in the empty ones); one in a",
    "comment (`# NAME=value`) is left unset, so the app takes its default (the",
    "value shown is that default, or an example). The app reads them from its",
    "environment and from `./.env`",
    "(a variable in `.env` wins, as Probot reads it); the client commands for",
    "agents (`issue-leases agent …`) read their own environment only.",
    "",
    `The file begins: “${prose(intro!.text)}”`,
    "",
    table(
      ["Variable", "In `.env.example`"],
      withVariables.flatMap((g) => g.variables.map((v) => [`[${code(v.name)}](#${anchor(g)})`, written(v)])),
    ),
    "",
    sections.join("\n\n"),
    "",
  ].join("\n");
}
