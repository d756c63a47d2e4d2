/** GitHub's checks on label names and comment bodies, and the forms it accepts them in. */
import { invalid, type Reply } from "./replies.js";
import { isRecord } from "./request-fields.js";

const MAX_LABEL_NAME = 50;
const MAX_COMMENT_BODY = 65536;

export function labelNameProblem(name: string): Reply | null {
  if (name.length === 0) return invalid([{ resource: "Label", code: "missing_field", field: "name" }]);
  if ([...name].length > MAX_LABEL_NAME) {
    return invalid([{
      resource: "Label", code: "custom", field: "name",
      message: `name is too long (maximum is ${MAX_LABEL_NAME} characters)`,
    }]);
  }
  return null;
}

export function commentBodyProblem(body: unknown): Reply | null {
  if (typeof body !== "string" || body === "") {
    return invalid([{ resource: "IssueComment", code: "missing_field", field: "body" }]);
  }
  if (body.length > MAX_COMMENT_BODY) {
    return invalid([{
      resource: "IssueComment", code: "custom", field: "body",
      message: `body is too long (maximum is ${MAX_COMMENT_BODY} characters)`,
    }]);
  }
  return null;
}

/** GitHub takes 6 hex digits; a leading "#" is tolerated here and stripped. */
export function normalizeColor(color: unknown): string | null {
  if (typeof color !== "string") return null;
  const hex = color.startsWith("#") ? color.slice(1) : color;
  return /^[0-9a-fA-F]{6}$/.test(hex) ? hex.toLowerCase() : null;
}

/** `{labels: ["a"]}`, `{labels: [{name: "a"}]}` or a bare array, as GitHub accepts. */
export function labelNameList(body: unknown): string[] | null {
  const list = Array.isArray(body) ? body : isRecord(body) ? body.labels : undefined;
  if (!Array.isArray(list)) return null;
  const names: string[] = [];
  for (const item of list) {
    if (typeof item === "string") names.push(item);
    else if (isRecord(item) && typeof item.name === "string") names.push(item.name);
    else return null;
  }
  return names;
}
