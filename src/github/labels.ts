/**
 * The labels that show a lease on an issue, derived from the lease and the
 * repository's label templates. GitHub limits a label name to 50 characters:
 * a name that would be longer keeps its start and gets a short hash of the
 * whole, so that two long logins never share a label.
 */
import { createHash } from "node:crypto";
import { inReview } from "../ledger/work/in-review.js";
import type { Lease } from "../ledger/leases/lease-types.js";
import { BoundedMap } from "./bounded-map.js";

export interface LabelTemplates {
  claimed: string | false;
  holder: string | false;
  token: string | false;
  /** Shown while an open pull request by the holder closes the issue; absent (templates remembered from before it existed): the default. */
  inReview?: string | false;
}

/** The `in_review` label when the templates do not name one. */
export const IN_REVIEW_LABEL = "claimed: in review";

const inReviewTemplate = (templates: LabelTemplates): string | false => templates.inReview ?? IN_REVIEW_LABEL;

export const MAX_LABEL_LENGTH = 50;

export const LABEL_STYLE = {
  claimed: { color: "1d76db", description: "Someone holds a lease on this issue (issue-leases)" },
  holder: { color: "c5def5", description: "Who holds the lease on this issue (issue-leases)" },
  token: { color: "ededed", description: "The fencing token of the lease on this issue (issue-leases)" },
  // Like holder and token labels, created by GitHub when first added (a claim stays within its writes), but never deleted: one name per repository.
  review: { color: "ededed", description: "An open pull request by the holder closes this issue: the lease does not expire (issue-leases)" },
} as const;

export type LabelKind = keyof typeof LABEL_STYLE;

/** A label name of at most 50 characters; longer names are cut and made unique with a hash of the full name. */
export function fitLabel(name: string): string {
  const chars = Array.from(name);
  if (chars.length <= MAX_LABEL_LENGTH) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${chars.slice(0, MAX_LABEL_LENGTH - hash.length - 1).join("")}~${hash}`;
}

export function holderLabel(template: string, login: string): string {
  return fitLabel(template.replaceAll("{holder}", login));
}

export function tokenLabel(template: string, token: number): string {
  return fitLabel(template.replaceAll("{token}", String(token)));
}

/** The labels an issue should carry for its live lease (none when free), by kind. */
export function desiredLabels(templates: LabelTemplates, lease: Lease | null): Array<{ kind: LabelKind; name: string }> {
  if (!lease) return [];
  const out: Array<{ kind: LabelKind; name: string }> = [];
  if (templates.claimed !== false) out.push({ kind: "claimed", name: fitLabel(templates.claimed) });
  if (templates.holder !== false) out.push({ kind: "holder", name: holderLabel(templates.holder, lease.holder.login) });
  if (templates.token !== false) out.push({ kind: "token", name: tokenLabel(templates.token, lease.token) });
  const review = inReviewTemplate(templates);
  if (review !== false && inReview(lease)) out.push({ kind: "review", name: fitLabel(review) });
  return out;
}

/** Patterns made so far, by template, placeholder and value: every effect reads its labels back through them. Templates are few (each repository's config names its own). */
const patterns = new BoundedMap<RegExp>(1_000);

/** The template with its placeholder as a group matching `value`. */
function templatePattern(template: string, placeholder: string, value: string): RegExp {
  const key = `${placeholder}\u0000${value}\u0000${template}`;
  let pattern = patterns.get(key);
  if (!pattern) {
    const [before, after] = template.split(placeholder, 2).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    pattern = new RegExp(`^${before ?? ""}(${value})${after ?? ""}$`, "i");
    patterns.set(key, pattern);
  }
  return pattern;
}

/** A login, as GitHub allows them: letters, digits, hyphens, and underscores (Enterprise Managed Users: `alice_contoso`). */
const LOGIN = "[A-Za-z0-9_-]+(?:\\[bot\\])?";

/**
 * The holder's login and the token a label names, read back from the name
 * (both when the two templates could make it); null for any other name, and
 * for one that cannot be read back exactly (cut to 50 characters, or a
 * template the value does not come back out of): whoever asks must then
 * look at every lease.
 */
export function labelSubject(templates: LabelTemplates, name: string): { login?: string; token?: number } | null {
  const lower = name.toLowerCase();
  const subject: { login?: string; token?: number } = {};
  const token = templates.token === false ? undefined : templatePattern(templates.token, "{token}", "\\d+").exec(name)?.[1];
  if (templates.token !== false && token !== undefined && tokenLabel(templates.token, Number(token)).toLowerCase() === lower) subject.token = Number(token);
  const login = templates.holder === false ? undefined : templatePattern(templates.holder, "{holder}", LOGIN).exec(name)?.[1];
  if (templates.holder !== false && login !== undefined && holderLabel(templates.holder, login).toLowerCase() === lower) subject.login = login;
  return subject.login === undefined && subject.token === undefined ? null : subject;
}

/**
 * Which kind of the app's labels a name is, if any: used to find the app's
 * labels among an issue's labels (a maintainer's own labels are left alone).
 */
export function labelKind(templates: LabelTemplates, name: string): LabelKind | null {
  if (templates.claimed !== false && name.toLowerCase() === fitLabel(templates.claimed).toLowerCase()) return "claimed";
  const review = inReviewTemplate(templates);
  if (review !== false && name.toLowerCase() === fitLabel(review).toLowerCase()) return "review";
  if (templates.token !== false && templatePattern(templates.token, "{token}", "\\d+").test(name)) return "token";
  if (templates.holder !== false) {
    if (templatePattern(templates.holder, "{holder}", LOGIN).test(name)) return "holder";
    if (Array.from(name).length === MAX_LABEL_LENGTH && /~[0-9a-f]{8}$/.test(name)) {
      const prefix = templates.holder.split("{holder}", 1)[0] ?? "";
      if (name.toLowerCase().startsWith(prefix.toLowerCase())) return "holder";
    }
  }
  return null;
}
