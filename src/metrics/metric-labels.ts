/**
 * The metrics' label values: only what the app's own code names, shaped so
 * that their number stays bounded whatever a request says (app-metrics.ts).
 */
import { isGraphqlUrl } from "../github/github-urls.js";

const EVENT_NAME = /^[a-z_]{1,64}$/;

/** `issue_comment.created`; a name or action not shaped like GitHub's collapses to "other" (labels stay bounded). */
export function eventLabel(name: unknown, action: unknown): string {
  if (typeof name !== "string" || !EVENT_NAME.test(name)) return "other";
  return typeof action === "string" && EVENT_NAME.test(action) ? `${name}.${action}` : name;
}

/** "2xx", "3xx", the code itself for 4xx (404, 422, 429 say different things), "5xx", or "network_error". */
export function statusLabel(status: number | null): string {
  if (status === null || !Number.isInteger(status) || status < 100 || status > 599) return "network_error";
  if (status >= 400 && status < 500) return String(status);
  return `${Math.floor(status / 100)}xx`;
}

/** Reads and writes: GET and HEAD read, and so does a GraphQL query; a GraphQL mutation document writes. */
export function methodClass(method: string, url: string, body?: unknown): "read" | "write" {
  const m = method.toUpperCase();
  if (m === "GET" || m === "HEAD") return "read";
  return isGraphqlUrl(url) && !isMutation(body) ? "read" : "write";
}

function isMutation(body: unknown): boolean {
  if (typeof body !== "string") return false;
  try {
    const query: unknown = (JSON.parse(body) as { query?: unknown }).query;
    return typeof query === "string" && /^\s*mutation\b/.test(query);
  } catch {
    return false;
  }
}
