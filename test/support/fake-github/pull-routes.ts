/** Pull requests, read-only: what addPullRequest seeded (state.ts). */
import { notFound } from "./replies.js";
import { R, type RouteTable } from "./route-table.js";
import type { RouteDeps } from "./routes.js";

export function pullRoutes(t: RouteTable, { data, shapes }: RouteDeps): void {
  t.add("GET", `${R}/pulls`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const state = ctx.query.get("state") ?? "open";
    const pulls = [...repo.issues.values()]
      .filter((i) => i.pull !== null && (state === "all" || i.state === state))
      .sort((a, b) => b.number - a.number);
    return shapes.list(ctx, pulls, (i) => shapes.pullJson(repo, i, i.pull!));
  });
  t.add("GET", `${R}/pulls/:n`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const issue = repo.issues.get(Number(ctx.params.n));
    return issue?.pull ? { status: 200, json: shapes.pullJson(repo, issue, issue.pull) } : notFound();
  });
}
