/**
 * Calls to the real server's API as a bot makes them, each answer checked
 * against the OpenAPI document (openapi-check.ts) as it arrives.
 */
import type { ServerProcess } from "../support/server-process.js";
import { checkAnswer } from "./openapi-check.js";
import { FULL } from "../e2e/issue-view.js";

export interface ApiAnswer {
  status: number;
  headers: Headers;
  /** The body exactly as sent, for byte-for-byte comparisons. */
  text: string;
  body: any;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  /** Sent as is instead of `body`. */
  raw?: string;
  headers?: Record<string, string>;
  /** Skip the OpenAPI check (for answers no operation describes, such as 405 on an unknown method). */
  unchecked?: boolean;
}

export async function call(server: ServerProcess, method: string, path: string, o: CallOptions = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...o.headers };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  let payload: string | undefined = o.raw;
  if (payload === undefined && o.body !== undefined) payload = JSON.stringify(o.body);
  if (payload !== undefined) headers["content-type"] ??= "application/json";
  const res = await fetch(`${server.url}${path}`, { method, headers, body: payload });
  const text = await res.text();
  const body = text === "" ? undefined : (JSON.parse(text) as unknown);
  if (!o.unchecked) checkAnswer(method, path, res.status, body);
  return { status: res.status, headers: res.headers, text, body };
}

/** `/api/v1/repos/{owner}/{repo}/issues/{n}/lease`, of the e2e repository by default. */
export function leasePath(issue: number, repo = FULL): string {
  return `/api/v1/repos/${repo}/issues/${issue}/lease`;
}
