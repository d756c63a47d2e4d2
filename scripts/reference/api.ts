/**
 * docs/reference/api.md: the HTTP API, from its OpenAPI document
 * (src/api/openapi.json, which the app serves at /api/v1/openapi.json and
 * whose answers the API's tests check): every operation with its
 * parameters, body and answers, then every schema with its fields.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { githubSlug } from "../docs/github-slug.js";
import { code, generatedNote, table } from "../docs/markdown.js";

export const path = "docs/reference/api.md";

const METHODS = ["get", "post", "patch", "put", "delete"] as const;

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  format?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  minLength?: number;
  maxItems?: number;
  pattern?: string;
  title?: string;
}

interface Parameter {
  $ref?: string;
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
  description?: string;
}

interface Response {
  $ref?: string;
  description?: string;
  content?: Record<string, { schema?: Schema }>;
  headers?: Record<string, { description?: string; schema?: Schema }>;
}

interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  security?: unknown[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
  responses: Record<string, Response>;
}

interface Document {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>> & { parameters?: Parameter[] }>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Response> };
}

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const schemaLink = (name: string) => `[${name}](#${githubSlug(name)})`;

/** A schema's type in a few words: `string (date-time)`, `Holder` or null, an array of `integer`. */
function typeOf(s: Schema | undefined): string {
  if (s === undefined) return "any";
  if (s.$ref) return schemaLink(refName(s.$ref));
  if (s.const !== undefined) return code(JSON.stringify(s.const));
  if (s.enum) return s.enum.map((v) => code(typeof v === "string" ? v : JSON.stringify(v))).join(", ");
  const alternatives = s.oneOf ?? s.anyOf;
  if (alternatives) return alternatives.map(typeOf).join(" or ");
  if (s.allOf) return s.allOf.map(typeOf).join(" and ");
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  return (
    types
      .map((t) => {
        if (t === "array") return `array of ${typeOf(s.items)}`;
        const bounds = [
          s.format,
          s.minimum !== undefined ? `≥ ${s.minimum}` : undefined,
          s.maximum !== undefined ? `≤ ${s.maximum}` : undefined,
          s.minLength !== undefined ? `at least ${s.minLength} characters` : undefined,
          s.maxLength !== undefined ? `at most ${s.maxLength} characters` : undefined,
          s.maxItems !== undefined ? `at most ${s.maxItems} items` : undefined,
          s.pattern !== undefined ? code(s.pattern) : undefined,
        ].filter((b) => b !== undefined);
        return bounds.length > 0 ? `${t} (${bounds.join(", ")})` : t;
      })
      .join(" or ") || (s.properties ? "object" : "any")
  );
}

function bodyOf(content: Record<string, { schema?: Schema }> | undefined): string {
  if (!content) return "";
  return Object.entries(content)
    .map(([type, { schema }]) => `${code(type)}: ${typeOf(schema)}`)
    .join("; ");
}

function response(doc: Document, r: Response): Response {
  return r.$ref ? doc.components.responses[refName(r.$ref)]! : r;
}

function operation(doc: Document, path: string, method: string, op: Operation, shared: Parameter[]): string {
  const params = [...shared, ...(op.parameters ?? [])];
  const parts = [`### ${code(`${method.toUpperCase()} ${path}`)}`, "", `${op.summary ?? ""}${op.operationId ? ` (${code(op.operationId)})` : ""}.`.replace(/\.\.? \(/, " ("), ""];
  if (op.description) parts.push(op.description, "");
  if (op.security?.length === 0) parts.push("No token needed.", "");
  else if (op.security?.some((requirement) => Object.keys(requirement as object).length === 0)) parts.push("A token is optional: without one, public repositories only.", "");
  if (params.length > 0) {
    parts.push(table(["Parameter", "In", "Required", "Type", ""], params.map((p) => [code(p.name), p.in, p.required ? "yes" : "no", typeOf(p.schema), p.description ?? ""])), "");
  }
  if (op.requestBody) parts.push(`Body${op.requestBody.required ? "" : " (optional)"}: ${bodyOf(op.requestBody.content)}.`, "");
  const rows = Object.entries(op.responses).map(([status, r]) => {
    const answer = response(doc, r);
    const headers = Object.keys(answer.headers ?? {}).map((h) => code(h));
    return [status, answer.description ?? "", bodyOf(answer.content), headers.join(", ")];
  });
  parts.push(table(["Status", "When", "Body", "Headers"], rows));
  return parts.join("\n");
}

function schemaSection(name: string, s: Schema): string {
  const parts = [`### ${name}`, ""];
  if (s.description) parts.push(s.description, "");
  if (s.properties) {
    const required = new Set(s.required ?? []);
    parts.push(
      table(
        ["Field", "Type", "Required", ""],
        Object.entries(s.properties).map(([field, f]) => [code(field), typeOf(f), required.has(field) ? "yes" : "no", f.description ?? ""]),
      ),
    );
    if (s.additionalProperties === false) parts.push("", "No other field is allowed.");
  } else {
    parts.push(`A ${typeOf(s)}.`);
  }
  return parts.join("\n");
}

export function render(root: string): string {
  const doc = JSON.parse(readFileSync(join(root, "src/api/openapi.json"), "utf8")) as Document;
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m] !== undefined).map((m) => operation(doc, path, m, item[m]!, item.parameters ?? [])),
  );
  return [
    "# HTTP API",
    "",
    generatedNote("scripts/reference/api.ts", "the OpenAPI document, src/api/openapi.json"),
    "",
    `${doc.info.title} ${doc.info.version}, as its OpenAPI 3.1 document describes it; the app`,
    "serves the document at `/api/v1/openapi.json`. How to use it, and the rules",
    "behind each answer: [the HTTP API](../bots-and-agents/http-api.md).",
    "",
    doc.info.description ?? "",
    "",
    "A request carries `Authorization: Bearer <a GitHub token>` unless its",
    "operation says otherwise. Errors are `{\"error\": {\"code\", \"message\"}}`.",
    "",
    "## Operations",
    "",
    operations.join("\n\n"),
    "",
    "## Schemas",
    "",
    Object.entries(doc.components.schemas)
      .map(([name, s]) => schemaSection(name, s))
      .join("\n\n"),
    "",
  ].join("\n");
}
