/**
 * docs/reference/metrics.md: every metric of the app's own registry, as
 * src/metrics/app-metrics.ts registers it (an AppMetrics is made and its
 * registry read): name, type, labels and help. prom-client's process
 * metrics, which differ from one platform to another, are named only.
 */
import { AppMetrics } from "../../src/metrics/app-metrics.js";
import { code, generatedNote, table } from "../docs/markdown.js";

export const path = "docs/reference/metrics.md";

interface Registered {
  name: string;
  help: string;
  labelNames?: readonly string[];
  constructor: { name: string };
}

export function render(): string {
  const metrics = new AppMetrics({ defaultMetrics: false }).registry.getMetricsAsArray() as unknown as Registered[];
  const rows = metrics.map((m) => [code(m.name), m.constructor.name.toLowerCase(), (m.labelNames ?? []).map(code).join(", "), m.help]);
  return [
    "# Metrics",
    "",
    generatedNote("scripts/reference/metrics.ts", "the registrations in src/metrics/app-metrics.ts"),
    "",
    "What `GET /metrics` serves, in Prometheus' text format, once it is on",
    "(`METRICS=1`, or `METRICS_TOKEN` for a bearer token; see",
    "[health and metrics](../operators/health-and-metrics.md#metrics)). Labels",
    "hold only names the app's code gives (events, operations, outcomes, status",
    "classes, effect kinds): no login, no issue number, no repository. Each",
    "replica serves its own.",
    "",
    table(["Metric", "Type", "Labels", "Help"], rows),
    "",
    "Beside them, prom-client's process metrics (`process_*`, `nodejs_*`: CPU,",
    "memory, event loop lag, GC), on the same registry.",
    "",
  ].join("\n");
}
