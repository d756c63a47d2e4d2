/** Reading a request's params, query and JSON body as GitHub does. */
import type { Ctx } from "./route-table.js";

export function stringList(value: unknown): string[] | null {
  if (typeof value === "string") return [value];
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) return null;
  return value as string[];
}

export function bodyField(body: unknown, field: string): unknown {
  return isRecord(body) ? body[field] : undefined;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function intParam(value: string | null, fallback: number): number {
  const n = value === null ? NaN : Number.parseInt(value, 10);
  return Number.isFinite(n) ? n : fallback;
}

export function sinceParam(ctx: Ctx): number {
  const since = ctx.query.get("since");
  const ms = since === null ? NaN : Date.parse(since);
  return Number.isFinite(ms) ? ms : -Infinity;
}

/** `owner/repo` of a route's params, lower-cased. */
export function fullName(ctx: Ctx): string {
  return `${ctx.params.owner}/${ctx.params.repo}`.toLowerCase();
}
