/**
 * assign-issue-action (the GitHub Action `takanome-dev/assign-issue-action`):
 * a workflow whose step `uses:` it, configured by that step's `with:`
 * inputs. The inputs and their defaults are the action's (its action.yml
 * and README); a default that shapes how claims behave (a limit, a label,
 * the commands people type) is imported as if it were written, since that
 * is what the repository has today.
 */
import { Imported, isMapping, NotThisBot, show } from "./imported.js";

const ACTION = /^takanome-dev\/(?:assign-issue-action|assign-to-me-action)@/i;

const DEFAULTS: Record<string, string> = {
  self_assign_cmd: "/assign-me",
  self_unassign_cmd: "/unassign-me",
  assign_user_cmd: "/assign",
  unassign_user_cmd: "/unassign",
  maintainers: "",
  assigned_label: "📍 Assigned",
  days_until_unassign: "7",
  pin_label: "📌 Pinned",
  enable_reminder: "true",
  reminder_days: "auto",
  max_assignments: "3",
  max_overall_assignment_labels: "good first issue,good second issue",
  max_overall_assignment_count: "2",
  block_assignment: "true",
  enable_auto_suggestion: "true",
};

/** Inputs with no equivalent, and why; named when the workflow sets them (and the two defaults that change what people see). */
const NO_EQUIVALENT: Record<string, string> = {
  github_token: "not needed: issue-leases is a GitHub App with credentials of its own.",
  maintainers:
    "issue-leases asks GitHub instead: people with write, maintain or admin permission may `/claim @user` and `/release @user`; there is no list to keep.",
  enable_auto_suggestion: "issue-leases never reads prose (\"can I work on this?\") as a request; only a command line claims.",
  allow_self_assign_author:
    "issue-leases has no rule against authors claiming their own issues (its `author_first` does the opposite: it keeps a new issue for its author for a while).",
  required_label: "issue-leases lets any open issue be claimed; no label is required.",
  block_assignment:
    "issue-leases lets a person claim again after their lease ended (a new tenure, a new token); a maintainer can `/release @user` again.",
  ignored_users: "issue-leases has no list of people who may not claim; `claimers: collaborators` or `members` limits claims by association.",
};

const TEMPLATE_INPUTS = [
  "assigned_comment",
  "assigned_comment_newcomer",
  "already_assigned_comment",
  "already_assigned_comment_pinned",
  "unassigned_comment",
  "assignment_suggestion_comment",
  "block_assignment_comment",
  "reminder_comment",
  "max_assignments_message",
  "max_overall_assignment_message",
  "self_assign_author_blocked_comment",
  "ignored_message",
];

const MAPPED = [
  "self_assign_cmd",
  "self_unassign_cmd",
  "assign_user_cmd",
  "unassign_user_cmd",
  "assigned_label",
  "days_until_unassign",
  "pin_label",
  "enable_reminder",
  "reminder_days",
  "max_assignments",
  "max_overall_assignment_labels",
  "max_overall_assignment_count",
];

/** The workflow (parsed YAML) as issue-leases config; NotThisBot when no step uses the action. */
export function importAssignIssueAction(workflow: unknown): Imported {
  const steps = actionSteps(workflow);
  if (steps.length === 0) throw new NotThisBot("no step of this workflow `uses: takanome-dev/assign-issue-action@…`");
  const uses = steps.map((s) => String(s.uses)).join(", ");
  const out = new Imported("assign-issue-action", `the \`with:\` inputs of \`${uses.replace(/`/g, "")}\``);
  const inputs = new Map<string, string>();
  for (const step of steps) {
    const given = isMapping(step.with) ? step.with : {};
    for (const [name, raw] of Object.entries(given)) {
      const value = typeof raw === "string" ? raw : typeof raw === "number" || typeof raw === "boolean" ? String(raw) : null;
      if (value === null) out.none(name, `${show(raw)} is not a value an input can have.`);
      else if (value.includes("${{") && MAPPED.includes(name)) out.none(name, `${show(value)} is an expression, known only when the workflow runs; set what it gives by hand.`);
      else if (inputs.has(name) && inputs.get(name) !== value) out.none(name, `two steps give it different values; the first, ${show(inputs.get(name))}, is used.`);
      else inputs.set(name, value);
    }
  }
  const input = (name: string) => inputs.get(name) ?? DEFAULTS[name] ?? "";
  const from = (name: string, how = "") => `${name}: ${show(input(name))}${inputs.has(name) ? "" : " (its default)"}${how}`;

  const days = mapExpiry(out, input, from);
  mapReminder(out, input, from, days);
  mapLimits(out, input, from);
  mapLabels(out, input, from);
  mapCommands(out, input, from);

  for (const [name, value] of inputs) {
    if (MAPPED.includes(name)) continue;
    if (NO_EQUIVALENT[name] !== undefined) out.none(`${name} (${show(value)})`, NO_EQUIVALENT[name]);
    else if (TEMPLATE_INPUTS.includes(name)) out.none(name, "issue-leases' replies are its own (see docs/examples.md), not templates.");
    else out.none(`${name} (${show(value)})`, "not an input of assign-issue-action that this import knows.");
  }
  for (const name of ["block_assignment", "enable_auto_suggestion"]) {
    if (!inputs.has(name) && DEFAULTS[name] === "true") out.none(`${name} (true, its default)`, NO_EQUIVALENT[name]!);
  }
  out.notes.push(
    "assign-issue-action counts days from the issue's last activity, anyone's; issue-leases counts from the claim, renewed by the holder's own " +
      "comments and pull request work (`renew_on_activity`, on by default) and by `/renew`.",
  );
  return out;
}

/** `days_until_unassign` as `default_ttl` (and `max_ttl` when longer than its default, 30 days); the days, or null. */
function mapExpiry(out: Imported, input: (n: string) => string, from: (n: string, how?: string) => string): number | null {
  const text = input("days_until_unassign");
  const days = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!(days >= 1)) {
    out.none(`days_until_unassign (${show(text)})`, "not a whole number of days above 0, so leases keep issue-leases' default, `7d`.");
    return null;
  }
  if (days > 365) {
    out.set(["default_ttl"], "none", from("days_until_unassign", ": longer than a year, issue-leases' longest lease, so leases do not expire"));
    return null;
  }
  out.set(["default_ttl"], `${days}d`, from("days_until_unassign"));
  if (days > 30) out.set(["max_ttl"], `${days}d`, `as long as default_ttl: a \`/claim\` or \`/renew\` may ask for up to that (default \`30d\`)`);
  return days;
}

/** `enable_reminder` and `reminder_days` (days after assignment; `auto`: half of `days_until_unassign`, rounded down) as `reminder_before`. */
function mapReminder(out: Imported, input: (n: string) => string, from: (n: string, how?: string) => string, days: number | null): void {
  if (input("enable_reminder").trim().toLowerCase() === "false") {
    out.set(["reminder_before"], "none", from("enable_reminder"));
    return;
  }
  if (days === null) return;
  const text = input("reminder_days").trim().toLowerCase();
  const after = text === "auto" ? Math.floor(days / 2) : /^\d+$/.test(text) ? Number(text) : NaN;
  if (after >= 1 && after < days) {
    const how = text === "auto" ? `: half of ${days} days, ${after}, after the assignment` : `: days after the assignment, of ${days}`;
    out.set(["reminder_before"], `${days - after}d`, from("reminder_days", how));
  } else {
    out.none(`reminder_days (${show(input("reminder_days"))})`, `no reminder can come ${show(text)} days after a claim that lasts ${days} days; issue-leases' default, a day before expiry, stays.`);
  }
}

function mapLimits(out: Imported, input: (n: string) => string, from: (n: string, how?: string) => string): void {
  const max = input("max_assignments").trim();
  if (/^\d+$/.test(max) && Number(max) > 0) out.set(["max_leases_per_holder"], Number(max), from("max_assignments"));
  else out.none(`max_assignments (${show(max)})`, "not a whole number above 0 (0 in issue-leases means no limit), so no limit is set.");

  const count = input("max_overall_assignment_count").trim();
  const labels = input("max_overall_assignment_labels").split(",").map((l) => l.trim()).filter((l) => l !== "");
  if (labels.length === 0 || !/^\d+$/.test(count) || Number(count) === 0) return;
  const seen = new Set<string>();
  for (const label of labels) {
    // GitHub's label names ignore case: one limit per label.
    if (seen.has(label.toLowerCase())) continue;
    seen.add(label.toLowerCase());
    if ([...label].length > 50) out.none(`max_overall_assignment_labels (${show(label)})`, "longer than the 50 characters GitHub allows a label.");
    else out.set(["limits_by_label", label], Number(count), `${from("max_overall_assignment_count")}, for ${show(label)} of max_overall_assignment_labels`);
  }
}

function mapLabels(out: Imported, input: (n: string) => string, from: (n: string, how?: string) => string): void {
  const assigned = input("assigned_label").trim();
  if (assigned === "") out.set(["labels", "claimed"], false, from("assigned_label", ": no label"));
  else if ([...assigned].length > 50) out.none(`assigned_label (${show(assigned)})`, "longer than the 50 characters GitHub allows a label.");
  else out.set(["labels", "claimed"], assigned, from("assigned_label"));

  const pin = input("pin_label").trim();
  if (pin === "") return;
  if (pin.toLowerCase() === assigned.toLowerCase()) {
    out.none(`pin_label (${show(pin)})`, "the same label as assigned_label, which issue-leases puts on every lease: it cannot also exempt leases.");
  } else if ([...pin].length > 50) {
    out.none(`pin_label (${show(pin)})`, "longer than the 50 characters GitHub allows a label.");
  } else {
    out.set(["exempt_labels"], [pin], from("pin_label", ": a lease on an issue with this label does not expire"));
  }
}

/** The commands people type, kept as aliases; the maintainers' two only where `maintainers` lets anyone use them. */
function mapCommands(out: Imported, input: (n: string) => string, from: (n: string, how?: string) => string): void {
  out.alias(input("self_assign_cmd"), "claim", "self_assign_cmd", from("self_assign_cmd"));
  out.alias(input("self_unassign_cmd"), "release", "self_unassign_cmd", from("self_unassign_cmd"));
  if (input("maintainers").trim() === "") {
    out.none("assign_user_cmd, unassign_user_cmd", "assign-issue-action ignores them without `maintainers`; issue-leases' `/claim @user` and `/release @user` need write permission.");
    return;
  }
  const how = ": `/assign @user` then gives the lease as `/claim @user` does (write permission, asked of GitHub); a bare one claims for oneself";
  // The README writes them with their argument (`/assign @<user>`): the command is the first word.
  out.alias(input("assign_user_cmd").trim().split(/\s+/)[0] ?? "", "claim", "assign_user_cmd", from("assign_user_cmd", how));
  out.alias(input("unassign_user_cmd").trim().split(/\s+/)[0] ?? "", "release", "unassign_user_cmd", from("unassign_user_cmd", ": `/unassign @user` ends their lease as `/release @user` does"));
}

interface Step {
  uses?: unknown;
  with?: unknown;
}

function actionSteps(workflow: unknown): Step[] {
  if (!isMapping(workflow) || !isMapping(workflow.jobs)) return [];
  const steps: Step[] = [];
  for (const job of Object.values(workflow.jobs)) {
    if (!isMapping(job) || !Array.isArray(job.steps)) continue;
    for (const step of job.steps) if (isMapping(step) && typeof step.uses === "string" && ACTION.test(step.uses.trim())) steps.push(step);
  }
  return steps;
}
