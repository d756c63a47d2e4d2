/**
 * What `next` sends: the path of its scope (a repository, or an owner's
 * every repository) and its body, the filters in the API's snake_case.
 * Checked before any request, as an issue is: a misspelt filter would
 * otherwise be the server's 422 after a round trip, or, worse, in plain
 * JavaScript, a field the client never sends and a filter silently not
 * applied.
 */
import { badName, checkOwner, checkRepo } from "./issue-ref.js";
import { ttlText } from "./ttl.js";
import type { NextFilters, NextOptions, NextScope } from "./types.js";

/** Each filter and its name on the wire. */
const WIRE: Record<keyof NextFilters, string> = {
  labels: "labels",
  anyLabels: "any_labels",
  excludeLabels: "exclude_labels",
  milestone: "milestone",
  order: "order",
  assignee: "assignee",
  includeWithPulls: "include_with_pulls",
  includeBlocked: "include_blocked",
};

const LISTS = new Set(["labels", "anyLabels", "excludeLabels", "order"]);
const FLAGS = new Set(["includeWithPulls", "includeBlocked"]);

/** The path of `POST …/leases/next` for `scope`, and how to name the scope in a message. */
export function nextPath(scope: NextScope): { path: string; name: string } {
  if (typeof scope === "object" && scope !== null && "org" in scope) {
    const org = checkOwner(scope.org, scope);
    return { path: `api/v1/orgs/${encodeURIComponent(org)}/leases/next`, name: org };
  }
  let owner: unknown;
  let repo: unknown;
  if (typeof scope === "string") {
    const parts = scope.trim().split("/");
    // "owner/repo" only ("owner/repo#12" fails on the repository's name).
    if (parts.length !== 2) throw badName("a repository", scope);
    [owner, repo] = parts;
  } else if (typeof scope === "object" && scope !== null) {
    ({ owner, repo } = scope);
  }
  const o = checkOwner(owner, scope);
  const r = checkRepo(repo, scope);
  return { path: `api/v1/repos/${encodeURIComponent(o)}/${encodeURIComponent(r)}/leases/next`, name: `${o}/${r}` };
}

/** The JSON body: each filter given, under its wire name, then `ttl` and `instance`. */
export function nextBody(filters: NextFilters, options: NextOptions): Record<string, unknown> {
  if (typeof filters !== "object" || filters === null) throw new TypeError("next's filters must be an object, e.g. { labels: [\"bug\"] }");
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(filters)) {
    if (value === undefined) continue;
    const wire = Object.hasOwn(WIRE, name) ? WIRE[name as keyof NextFilters] : undefined;
    if (wire === undefined) throw new TypeError(`unknown filter ${JSON.stringify(name)}: expected ${Object.keys(WIRE).join(", ")}`);
    if (LISTS.has(name)) {
      if (!Array.isArray(value) || !value.every((v) => typeof v === "string" && v.trim() !== "")) {
        throw new TypeError(`filter ${name} must be an array of label names, e.g. ["bug"]`);
      }
    } else if (FLAGS.has(name)) {
      if (typeof value !== "boolean") throw new TypeError(`filter ${name} must be true or false`);
    } else if (name === "assignee") {
      if (value !== "none" && value !== "none_or_me") throw new TypeError(`filter assignee must be "none" or "none_or_me"`);
    } else if (typeof value !== "string" || value.trim() === "") {
      throw new TypeError(`filter ${name} must be a non-empty string`);
    }
    body[wire] = value;
  }
  if (options.ttl !== undefined) body.ttl = ttlText(options.ttl);
  if (options.instance !== undefined) body.instance = options.instance;
  return body;
}
