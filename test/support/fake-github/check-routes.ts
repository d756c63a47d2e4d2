/** Check runs: create, update, read one, and list a commit's. */
import type { CheckRunRecord } from "./records.js";
import { DOCS, invalid, notFound, type Reply } from "./replies.js";
import { isRecord } from "./request-fields.js";
import { R, type Ctx, type RouteTable } from "./route-table.js";
import type { RouteDeps } from "./routes.js";
import type { FakeState } from "./state.js";

const CHECK_STATUSES = new Set(["queued", "in_progress", "completed", "waiting", "requested", "pending"]);
const CHECK_CONCLUSIONS = new Set([
  "action_required", "cancelled", "failure", "neutral", "success", "skipped", "stale", "timed_out",
]);

export function checkRunRoutes(t: RouteTable, d: RouteDeps): void {
  const { data, shapes } = d;
  t.add("POST", `${R}/check-runs`, "content", (ctx) => createCheckRun(d, ctx));
  t.add("GET", `${R}/check-runs/:id`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const run = repo.checkRuns.get(Number(ctx.params.id));
    return run ? { status: 200, json: shapes.checkRunJson(repo, run) } : notFound();
  });
  t.add("PATCH", `${R}/check-runs/:id`, "write", (ctx) => updateCheckRun(d, ctx));
  t.add("GET", `${R}/commits/:ref/check-runs`, "read", (ctx) => {
    const repo = data.repoOf(ctx);
    const name = ctx.query.get("check_name");
    const status = ctx.query.get("status");
    const runs = [...repo.checkRuns.values()]
      .filter((c) => c.headSha === ctx.params.ref && (name === null || c.name === name) && (status === null || c.status === status))
      .reverse();
    const { items, headers } = shapes.paginate(ctx, runs);
    return { status: 200, headers, json: { total_count: runs.length, check_runs: items.map((c) => shapes.checkRunJson(repo, c)) } };
  });
}

function createCheckRun({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  if (!isRecord(ctx.body)) return invalid([{ resource: "CheckRun", code: "missing_field", field: "name" }]);
  const b = ctx.body;
  if (typeof b.name !== "string" || b.name === "") return invalid([{ resource: "CheckRun", code: "missing_field", field: "name" }]);
  if (typeof b.head_sha !== "string" || b.head_sha === "") {
    return invalid([{ resource: "CheckRun", code: "missing_field", field: "head_sha" }]);
  }
  const t = data.now();
  const run: CheckRunRecord = {
    id: data.nextCheckRunId++, name: b.name, headSha: b.head_sha, status: "queued", conclusion: null, output: null,
    detailsUrl: null, externalId: null, startedAt: t, completedAt: null,
  };
  const problem = applyCheckRunFields(data, run, b);
  if (problem) return problem;
  const repo = data.repoOf(ctx);
  repo.checkRuns.set(run.id, run);
  return { status: 201, json: shapes.checkRunJson(repo, run) };
}

function updateCheckRun({ data, shapes }: RouteDeps, ctx: Ctx): Reply {
  const repo = data.repoOf(ctx);
  const existing = repo.checkRuns.get(Number(ctx.params.id));
  if (!existing) return notFound();
  if (!isRecord(ctx.body)) return invalid([{ resource: "CheckRun", code: "invalid", field: "body" }]);
  // Validate on a copy so a rejected update changes nothing.
  const run: CheckRunRecord = { ...existing };
  if (typeof ctx.body.name === "string") run.name = ctx.body.name;
  const problem = applyCheckRunFields(data, run, ctx.body);
  if (problem) return problem;
  repo.checkRuns.set(run.id, run);
  return { status: 200, json: shapes.checkRunJson(repo, run) };
}

/** Applies status, conclusion, output and the optional fields; a 422 reply when invalid. */
function applyCheckRunFields(data: FakeState, run: CheckRunRecord, b: Record<string, unknown>): Reply | null {
  if (b.status !== undefined && (typeof b.status !== "string" || !CHECK_STATUSES.has(b.status))) {
    return invalid([{ resource: "CheckRun", code: "invalid", field: "status" }]);
  }
  if (b.conclusion !== undefined && b.conclusion !== null &&
      (typeof b.conclusion !== "string" || !CHECK_CONCLUSIONS.has(b.conclusion))) {
    return invalid([{ resource: "CheckRun", code: "invalid", field: "conclusion" }]);
  }
  if (b.output !== undefined) {
    if (!isRecord(b.output) || typeof b.output.title !== "string" || typeof b.output.summary !== "string") {
      return invalid([{ resource: "CheckRun", code: "missing_field", field: "output" }]);
    }
  }
  if (typeof b.conclusion === "string") {
    run.conclusion = b.conclusion;
    run.status = "completed";
    run.completedAt = typeof b.completed_at === "string" ? Date.parse(b.completed_at) : data.now();
  } else if (typeof b.status === "string") {
    if (b.status === "completed" && run.conclusion === null) {
      return { status: 422, json: { message: "Invalid request.\n\nWhen status is completed, conclusion is required.", documentation_url: DOCS, status: "422" } };
    }
    run.status = b.status;
  }
  if (isRecord(b.output)) run.output = { ...(run.output ?? {}), ...b.output };
  if (typeof b.details_url === "string") run.detailsUrl = b.details_url;
  if (typeof b.external_id === "string") run.externalId = b.external_id;
  if (typeof b.started_at === "string") run.startedAt = Date.parse(b.started_at);
  return null;
}
