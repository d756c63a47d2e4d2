/**
 * Answers checked against the OpenAPI document the server serves: each
 * answer's status must be documented for its operation, and its body must
 * validate against the response's schema (Ajv, JSON Schema 2020-12, which
 * OpenAPI 3.1's schemas are).
 */
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import openapi from "../../src/api/openapi.json" with { type: "json" };

type Doc = typeof openapi & { paths: Record<string, Record<string, any>>; components: { responses: Record<string, any> } };
const doc = openapi as Doc;

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
/** `#/components/schemas/X` refs, as refs into one schema holding them all. */
const rewrite = (schema: unknown): unknown => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"schemas.json#/$defs/'));
ajv.addSchema({ $id: "schemas.json", $defs: rewrite(doc.components.schemas) as object });

const validators = new Map<string, ValidateFunction>();

/** The path template the document has for a concrete path. */
export function template(path: string): string {
  const found = Object.keys(doc.paths).find((t) => new RegExp(`^${t.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path));
  if (!found) throw new Error(`the OpenAPI document has no path for ${path}`);
  return found;
}

/** Throws unless `status` is documented for the operation and `body` matches its schema. */
export function checkAnswer(method: string, path: string, status: number, body: unknown): void {
  const t = template(path.split("?")[0]!);
  const operation = doc.paths[t]![method.toLowerCase()];
  if (!operation) throw new Error(`the OpenAPI document has no ${method} ${t}`);
  let response = operation.responses[String(status)];
  if (!response) throw new Error(`${method} ${t} answered ${status}, which the OpenAPI document does not list`);
  if (response.$ref) response = doc.components.responses[(response.$ref as string).split("/").pop()!];
  const schema = response.content["application/json"].schema as object;
  const key = JSON.stringify(schema);
  let validate = validators.get(key);
  if (!validate) {
    validate = ajv.compile(rewrite(schema) as object);
    validators.set(key, validate);
  }
  if (!validate(body)) {
    throw new Error(`${method} ${path} ${status}: the body does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body)}`);
  }
}
