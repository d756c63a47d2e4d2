/**
 * The fake's routes and how a request finds one: first match in the order
 * added (routes.ts), by method and `/`-separated segments, where `:name`
 * takes one percent-decoded segment and a trailing `*name` the rest.
 */
import type { Layout } from "./layout.js";
import type { Reply } from "./replies.js";

/**
 * What a request is to the fake's pipeline (server.ts): a read, a write, a
 * content-creating write (GitHub's content limits), a GraphQL mutation
 * document (a content-creating write that GraphQL's own faults also meet),
 * or an installation-token request (never recorded nor faulted).
 */
export type RouteKind = "read" | "write" | "content" | "mutation" | "token";

/** A route's kind, or how to tell it from the request's body: a GraphQL query reads, a mutation writes. */
export type KindOf = RouteKind | ((body: unknown) => RouteKind);

export interface Ctx {
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  accept: string;
  /** The Authorization header, or "". */
  authorization: string;
  /** The path as received, prefix included, for Link headers. */
  rawPath: string;
  /** The bearer token of the request, if any (never recorded). */
  token: string | null;
}

export type Handler = (ctx: Ctx) => Reply;

export interface Route {
  method: string;
  segments: string[];
  kind: KindOf;
  handle: Handler;
  /** Only in these layouts (GitHub serves it on github.com, not on Enterprise Server); default both. */
  only?: Layout;
}

export interface RouteMatch { route: Route; params: Record<string, string> }

/** Where every repository route starts. */
export const R = "/repos/:owner/:repo";

/** Route params that only match digits, so `issues/comments/7` never reads as issue "comments". */
const NUMERIC_PARAMS = new Set(["n", "id", "installation"]);

export class RouteTable {
  private readonly routes: Route[] = [];

  /** Every route, as GitHub's OpenAPI description names it: `GET /repos/{owner}/{repo}`, a trailing `*path` as `{path}`. */
  list(layout: Layout): string[] {
    return this.routes.filter((r) => r.only === undefined || r.only === layout).map((r) => `${r.method} /${r.segments.map((s) => (s.startsWith(":") || s.startsWith("*") ? `{${s.slice(1)}}` : s)).join("/")}`);
  }

  add(method: string, pattern: string, kind: KindOf, handle: Handler, only?: Layout): void {
    this.routes.push({ method, segments: pattern.split("/").slice(1), kind, handle, ...(only ? { only } : {}) });
  }

  match(method: string, path: string, layout: Layout): RouteMatch | null {
    const parts = path.split("/");
    parts.shift();
    for (const route of this.routes) {
      if (route.method !== method || (route.only !== undefined && route.only !== layout)) continue;
      const segs = route.segments;
      const last = segs[segs.length - 1] ?? "";
      const rest = last.startsWith("*");
      if (rest ? parts.length < segs.length : parts.length !== segs.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segs.length && ok; i++) {
        const seg = segs[i]!;
        const part = parts[i]!;
        if (seg.startsWith(":")) {
          const name = seg.slice(1);
          const decoded = safeDecode(part);
          if (decoded === null || decoded === "" || (NUMERIC_PARAMS.has(name) && !/^\d+$/.test(part))) ok = false;
          else params[name] = decoded;
        } else if (seg.startsWith("*")) {
          const decoded = safeDecode(parts.slice(i).join("/"));
          if (decoded === null || decoded === "") ok = false;
          else params[seg.slice(1)] = decoded;
        } else if (seg !== part) {
          ok = false;
        }
      }
      if (ok) return { route, params };
    }
    return null;
  }
}

/** The kind of a request to `route` with this body. */
export function kindOf(route: Route, body: unknown): RouteKind {
  return typeof route.kind === "function" ? route.kind(body) : route.kind;
}

function safeDecode(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
