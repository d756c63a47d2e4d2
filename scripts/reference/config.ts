/**
 * docs/reference/config.md: every key of `.github/issue-leases.yml`, from the
 * config's schema: what it does (its `.describe()`), the value it takes and
 * an example (the table beside the schema, src/config/config-key-docs.ts),
 * and its default as `issue-leases check-config` prints it. Each example is
 * parsed with the schema here: one the app would refuse stops the page.
 */
import { parse } from "yaml";
import type { z } from "zod";
import { checkConfig, effectiveLines } from "../../src/config/config-check.js";
import { CONFIG_KEY_DOCS, type ConfigKeyDoc } from "../../src/config/config-key-docs.js";
import { CONFIG_FILE, UnreadableConfig } from "../../src/config/config.js";
import { parseConfigFile } from "../../src/config/files.js";
import { configSchema, configShape, labelsShape } from "../../src/config/schema.js";
import { githubSlug } from "../docs/github-slug.js";
import { code, fenced, generatedNote, table } from "../docs/markdown.js";

export const path = "docs/reference/config.md";

interface Key {
  name: string;
  schema: z.ZodType;
  doc: ConfigKeyDoc;
  /** As a file writes it, YAML on one line. */
  default: string;
}

/** The config in force for an empty file: every key at its default, as check-config prints it. */
function defaults(): Map<string, string> {
  const file = parseConfigFile({ owner: "", repo: "", path: CONFIG_FILE }, true, "");
  if (file instanceof UnreadableConfig) throw new Error(`an empty config file does not read: ${file.problem}`);
  const check = checkConfig([file], CONFIG_FILE);
  if (!check.ok) throw new Error(`the defaults are not valid config: ${JSON.stringify(check.problems)}`);
  const lines = effectiveLines(check.effective.map((e) => ({ ...e, from: "own" })));
  return new Map(lines.map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 1).trim()]));
}

function keys(): Key[] {
  const inForce = defaults();
  const docs = CONFIG_KEY_DOCS as Record<string, ConfigKeyDoc>;
  const list: Key[] = [];
  for (const [name, schema] of Object.entries(configShape as Record<string, z.ZodType>)) {
    list.push({ name, schema, doc: docs[name]!, default: inForce.get(name)! });
    if (name !== "labels") continue;
    const labels = parse(`labels: ${inForce.get("labels")}`) as { labels: Record<string, unknown> };
    for (const [sub, subSchema] of Object.entries(labelsShape as Record<string, z.ZodType>)) {
      list.push({ name: `labels.${sub}`, schema: subSchema, doc: docs[`labels.${sub}`]!, default: JSON.stringify(labels.labels[sub]) });
    }
  }
  return list;
}

/** The example, parsed as a whole file: the schema must take it. */
function checkedExample(key: Key): string {
  const result = configSchema.safeParse(parse(key.doc.example));
  if (!result.success) throw new Error(`the example of \`${key.name}\` is not valid config: ${result.error.message}\n${key.doc.example}`);
  return key.doc.example;
}

function section(key: Key): string {
  const description = key.schema.description;
  if (!description) throw new Error(`\`${key.name}\` has no .describe() in src/config/schema.ts`);
  return [
    `## ${code(key.name)}`,
    "",
    description,
    "",
    `- Takes: ${key.doc.type}.`,
    `- Default: ${code(key.default)}.`,
    "",
    fenced("yaml", checkedExample(key)),
  ].join("\n");
}

export function render(): string {
  const list = keys();
  const inForce = defaults();
  return [
    "# Configuration keys",
    "",
    generatedNote("scripts/reference/config.ts", "the schema in src/config/schema.ts and src/config/config-key-docs.ts"),
    "",
    `Every key of ${code(CONFIG_FILE)}. Every key is optional; an unknown key,`,
    "or a value a key does not take, makes the whole file invalid (the `invalid`",
    "reply, the `issue-leases config` check run and `issue-leases check-config` say",
    "which and why), and nothing of it applies until it is fixed. How the file is",
    "read, merged with its organisation's and `_extends`, and cached:",
    "[Configuration](../maintainers/config.md).",
    "",
    table(
      ["Key", "Default"],
      list.map((k) => [`[${code(k.name)}](#${githubSlug(k.name)})`, code(k.default)]),
    ),
    "",
    "The defaults as a file writes them (`issue-leases check-config` prints the",
    "config in force the same way; pasted into a file, these lines are that config):",
    "",
    fenced("yaml", [...inForce].map(([key, value]) => `${key}: ${value}`).join("\n")),
    "",
    list.map(section).join("\n\n"),
    "",
  ].join("\n");
}
