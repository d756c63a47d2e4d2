/**
 * What the board's Ready view asks, read from its URL: the filters of claim-next
 * (`label` all of them, `any_label`, `exclude_label`, `milestone`, `order`),
 * each label repeatable, so that a view is the very call an agent makes and can
 * be shared as a link.
 */
import type { ReadyFilter } from "../ledger/inventory/inventory-types.js";
import type { Parsed } from "./queries.js";

/** The view shows this many: the issues the next calls would hand out first. */
export const READY_SHOWN = 50;
/** Labels per list, as the API allows. */
const MAX_LABELS = 20;

export interface ReadyView {
  labels: string[];
  anyLabels: string[];
  excludeLabels: string[];
  milestone?: string;
  order: string[];
}

const PARAMS = { label: "labels", any_label: "anyLabels", exclude_label: "excludeLabels", order: "order" } as const;

function isName(text: string): boolean {
  return Array.from(text).length <= 100 && !/[\u0000-\u001f\u007f]/.test(text);
}

export function parseReadyView(params: URLSearchParams): Parsed<ReadyView> {
  const view: ReadyView = { labels: [], anyLabels: [], excludeLabels: [], order: [] };
  for (const [param, field] of Object.entries(PARAMS)) {
    const values = params.getAll(param).map((v) => v.trim()).filter((v) => v !== "");
    if (values.length > MAX_LABELS) return { ok: false, error: `${param} may be given at most ${MAX_LABELS} times` };
    if (!values.every(isName)) return { ok: false, error: `${param} must be a label's name (at most 100 characters)` };
    view[field] = values;
  }
  const milestone = params.get("milestone")?.trim();
  if (milestone) {
    if (!isName(milestone)) return { ok: false, error: "milestone must be a milestone's title (at most 100 characters)" };
    view.milestone = milestone;
  }
  return { ok: true, value: view };
}

/** The ledger's filter for a view, for `viewer` (null: anonymous, who is nobody's assignee). */
export function readyFilter(view: ReadyView, viewerId: number | null): ReadyFilter {
  return {
    labels: view.labels,
    anyLabels: view.anyLabels,
    excludeLabels: view.excludeLabels,
    ...(view.milestone !== undefined ? { milestone: view.milestone } : {}),
    order: view.order,
    ...(viewerId === null ? { assignee: "none" as const } : { assignee: "none_or_me" as const, me: viewerId }),
  };
}

/** The view's query string (for its links), and the same filters as the JSON body of `leases/next`. */
export function readyQuery(view: ReadyView): string {
  const q = new URLSearchParams();
  for (const [param, field] of Object.entries(PARAMS)) for (const v of view[field]) q.append(param, v);
  if (view.milestone !== undefined) q.set("milestone", view.milestone);
  const s = q.toString();
  return s ? `?${s}` : "";
}

export function nextBody(view: ReadyView): Record<string, unknown> {
  return {
    ...(view.labels.length ? { labels: view.labels } : {}),
    ...(view.anyLabels.length ? { any_labels: view.anyLabels } : {}),
    ...(view.excludeLabels.length ? { exclude_labels: view.excludeLabels } : {}),
    ...(view.milestone !== undefined ? { milestone: view.milestone } : {}),
    ...(view.order.length ? { order: view.order } : {}),
  };
}
