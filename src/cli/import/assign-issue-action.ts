/**
 * assign-issue-action (the GitHub Action `takanome-dev/assign-issue-action`):
 * a workflow whose step `uses:` it, configured by that step's `with:`
 * inputs. The inputs and their defaults are the action's (its action.yml
 * and README; since 2026 its message inputs end in `_text`, the older
 * `_comment` and `_message` names still read); a default that shapes how
 * claims behave (a limit, a label, the commands people type) is imported as
 * if it were written, since that is what the repository has today.
 *
 * An input given as an expression is read where the workflow itself says
 * what it gives (`${{ env.<NAME> }}` and an `env:` that sets it,
 * workflow-inputs.ts); otherwise it is named as one to set by hand, and its
 * setting is left out rather than filled with the action's default. Every
 * input of the step ends in a setting or a comment.
 */
import { DEFAULTS, EMPTY_IS_SAME, MAPPED, NO_EQUIVALENT, templateWhy } from "./action-inputs.js";
import { Imported, NotThisBot, show } from "./imported.js";
import { actionSteps, shownInput, type StepInput } from "./workflow-inputs.js";

const ACTION = /^takanome-dev\/(?:assign-issue-action|assign-to-me-action)@/i;

/** The workflow's inputs as the mappers read them, and the inputs they have dealt with. */
class Inputs {
  readonly used = new Set<string>();
  constructor(
    readonly out: Imported,
    readonly given: Map<string, StepInput>,
  ) {}

  /** The value (given, or the action's default); null when given as an expression known only when the workflow runs. */
  value(name: string): string | null {
    const input = this.given.get(name);
    return input === undefined ? (DEFAULTS[name] ?? "") : input.value;
  }

  /** The comment of a setting made from `name` (which counts it as dealt with). */
  from(name: string, how = ""): string {
    this.used.add(name);
    const input = this.given.get(name);
    return `${name}: ${input === undefined ? `${show(this.value(name))} (its default)` : shownInput(input)}${how}`;
  }

  /** `name`, as named in a comment: with its value, and "its default" when the workflow leaves it out. */
  private label(name: string): string {
    this.used.add(name);
    const input = this.given.get(name);
    return `${name} (${input === undefined ? `${show(this.value(name))}, its default` : shownInput(input)})`;
  }

  none(name: string, why: string): void {
    this.out.none(this.label(name), why);
  }

  same(name: string, why: string): void {
    this.out.alreadySo(this.label(name), why);
  }
}

/** The workflow (parsed YAML) as issue-leases config; NotThisBot when no step uses the action. */
export function importAssignIssueAction(workflow: unknown): Imported {
  const steps = actionSteps(workflow, ACTION);
  if (steps.length === 0) throw new NotThisBot("no step of this workflow `uses: takanome-dev/assign-issue-action@…`");
  const uses = steps.map((s) => s.uses).join(", ");
  const out = new Imported("assign-issue-action", `the \`with:\` inputs of \`${uses.replace(/`/g, "")}\``);
  const given = new Map<string, StepInput>();
  for (const step of steps) {
    for (const { name, raw } of step.odd) out.none(`${name} (${show(raw)})`, "not a value an input can have.");
    for (const [name, input] of step.inputs) {
      const first = given.get(name);
      if (first !== undefined && first.raw !== input.raw) out.none(`${name} (${show(input.raw)})`, `two steps give it different values; the first, ${show(first.raw)}, is used.`);
      else if (first === undefined) given.set(name, input);
    }
  }
  const inputs = new Inputs(out, given);
  for (const [name, input] of given) {
    if (input.value === null && MAPPED.includes(name)) {
      inputs.none(name, "an expression known only when the workflow runs (not a literal of the workflow's own `env:`): set what it gives by hand; this import sets nothing for it.");
    }
  }

  mapReminder(inputs, mapExpiry(inputs));
  mapLimits(inputs);
  mapLabels(inputs);
  mapCommands(inputs);

  for (const [name, input] of given) {
    if (inputs.used.has(name)) continue;
    const value = input.value;
    const template = templateWhy(name);
    if (value !== null && value.trim() === "" && EMPTY_IS_SAME[name] !== undefined) inputs.same(name, EMPTY_IS_SAME[name]);
    else if (NO_EQUIVALENT[name] !== undefined) inputs.none(name, NO_EQUIVALENT[name]);
    else if (template !== null) inputs.none(name, template);
    else if (MAPPED.includes(name)) inputs.none(name, "this import could not make a setting of this value; set it by hand.");
    else inputs.none(name, "not an input of assign-issue-action that this import knows.");
  }
  for (const name of ["block_assignment", "enable_auto_suggestion"]) {
    if (!given.has(name) && DEFAULTS[name] === "true") inputs.none(name, NO_EQUIVALENT[name]!);
  }
  out.notes.push(
    "assign-issue-action counts days from the issue's last activity, anyone's; issue-leases counts from the claim, renewed by the holder's own " +
      "comments and pull request work (`renew_on_activity`, on by default) and by `/renew`.",
  );
  return out;
}

/** How long leases last, as read from `days_until_unassign`: days, no expiry, or unknown (an expression, or not a number). */
type Expiry = number | "none" | null;

/** `days_until_unassign` as `default_ttl` (and `max_ttl` when longer than its default, 30 days). */
function mapExpiry(inputs: Inputs): Expiry {
  const text = inputs.value("days_until_unassign");
  if (text === null) return null;
  const days = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!(days >= 1)) {
    inputs.none("days_until_unassign", "not a whole number of days above 0, so leases keep issue-leases' default, `7d`.");
    return null;
  }
  const { out } = inputs;
  if (days > 365) {
    out.set(["default_ttl"], "none", inputs.from("days_until_unassign", ": longer than a year, issue-leases' longest lease, so leases do not expire"));
    return "none";
  }
  out.set(["default_ttl"], `${days}d`, inputs.from("days_until_unassign"));
  if (days > 30) out.set(["max_ttl"], `${days}d`, `as long as default_ttl: a \`/claim\` or \`/renew\` may ask for up to that (default \`30d\`)`);
  return days;
}

/** `enable_reminder` and `reminder_days` (days after assignment; `auto`: half of `days_until_unassign`, rounded down) as `reminder_before`. */
function mapReminder(inputs: Inputs, expiry: Expiry): void {
  const { out, given } = inputs;
  const enabled = inputs.value("enable_reminder");
  const reminderGiven = given.has("reminder_days") && inputs.value("reminder_days") !== null;
  if (enabled === null) {
    if (reminderGiven) inputs.none("reminder_days", "goes with enable_reminder, an expression here; set `reminder_before` by hand.");
    return;
  }
  if (enabled.trim().toLowerCase() === "false") {
    out.set(["reminder_before"], "none", inputs.from("enable_reminder"));
    if (reminderGiven) inputs.none("reminder_days", "no reminder is sent (enable_reminder is false), so its day does not matter.");
    return;
  }
  const text = inputs.value("reminder_days");
  if (text !== null && expiry === "none") {
    if (reminderGiven) inputs.none("reminder_days", "leases here do not expire, so there is no reminder before they do.");
  } else if (text !== null && expiry === null) {
    if (reminderGiven || given.has("days_until_unassign")) {
      inputs.none("reminder_days", "counts from days_until_unassign, which this import could not read; issue-leases' default, a day before expiry, stays.");
    }
  } else if (text !== null && typeof expiry === "number") {
    const lower = text.trim().toLowerCase();
    const after = lower === "auto" ? Math.floor(expiry / 2) : /^\d+$/.test(lower) ? Number(lower) : NaN;
    if (after >= 1 && after < expiry) {
      const how = lower === "auto" ? `: half of ${expiry} days, ${after}, after the assignment` : `: days after the assignment, of ${expiry}`;
      const withEnabled = given.has("enable_reminder") ? `; ${inputs.from("enable_reminder")}` : "";
      out.set(["reminder_before"], `${expiry - after}d`, `${inputs.from("reminder_days", how)}${withEnabled}`);
    } else {
      inputs.none("reminder_days", `no reminder can come ${show(lower)} days after a claim that lasts ${expiry} days; issue-leases' default, a day before expiry, stays.`);
    }
  }
  if (given.has("enable_reminder") && !inputs.used.has("enable_reminder")) {
    inputs.same("enable_reminder", "issue-leases reminds a holder before the lease expires too (`reminder_before`, a day by default).");
  }
}

function mapLimits(inputs: Inputs): void {
  const { out, given } = inputs;
  const max = inputs.value("max_assignments")?.trim() ?? null;
  if (max !== null) {
    if (/^\d+$/.test(max) && Number(max) > 0) out.set(["max_leases_per_holder"], Number(max), inputs.from("max_assignments"));
    else inputs.none("max_assignments", "not a whole number above 0 (0 in issue-leases means no limit), so no limit is set.");
  }

  const count = inputs.value("max_overall_assignment_count")?.trim() ?? null;
  const labelsText = inputs.value("max_overall_assignment_labels");
  if (count === null || labelsText === null) {
    // The other of the pair is moot without this one's value.
    for (const name of ["max_overall_assignment_count", "max_overall_assignment_labels"]) {
      if (given.has(name) && inputs.value(name) !== null) inputs.none(name, "goes with the other of the pair, an expression here; set `limits_by_label` by hand.");
    }
    return;
  }
  const labels = labelsText.split(",").map((l) => l.trim()).filter((l) => l !== "");
  if (!/^\d+$/.test(count)) {
    inputs.none("max_overall_assignment_count", "not a whole number, so no limit by label is set.");
    if (given.has("max_overall_assignment_labels")) inputs.none("max_overall_assignment_labels", "goes with max_overall_assignment_count, which is not a number.");
    return;
  }
  if (labels.length === 0 || Number(count) === 0) {
    const why = labels.length === 0 ? "no label shares a limit" : "0: no limit by label";
    for (const name of ["max_overall_assignment_count", "max_overall_assignment_labels"]) {
      if (given.has(name)) inputs.same(name, `${why}, as issue-leases has by default (\`limits_by_label: {}\`).`);
    }
    return;
  }
  const seen = new Set<string>();
  for (const label of labels) {
    // GitHub's label names ignore case: one limit per label.
    if (seen.has(label.toLowerCase())) continue;
    seen.add(label.toLowerCase());
    if ([...label].length > 50) out.none(`max_overall_assignment_labels (${show(label)})`, "longer than the 50 characters GitHub allows a label.");
    else out.set(["limits_by_label", label], Number(count), `${inputs.from("max_overall_assignment_count")}, for ${show(label)} of ${inputs.from("max_overall_assignment_labels")}`);
  }
}

function mapLabels(inputs: Inputs): void {
  const { out, given } = inputs;
  const assigned = inputs.value("assigned_label")?.trim() ?? null;
  if (assigned === "") out.set(["labels", "claimed"], false, inputs.from("assigned_label", ": no label"));
  else if (assigned !== null && [...assigned].length > 50) inputs.none("assigned_label", "longer than the 50 characters GitHub allows a label.");
  else if (assigned !== null) out.set(["labels", "claimed"], assigned, inputs.from("assigned_label"));

  const pin = inputs.value("pin_label")?.trim() ?? null;
  if (pin === null) return;
  if (pin === "") {
    if (given.has("pin_label")) inputs.same("pin_label", "no label keeps a lease from expiring, as issue-leases has by default (`exempt_labels: []`).");
  } else if (assigned !== null && pin.toLowerCase() === assigned.toLowerCase()) {
    inputs.none("pin_label", "the same label as assigned_label, which issue-leases puts on every lease: it cannot also exempt leases.");
  } else if ([...pin].length > 50) {
    inputs.none("pin_label", "longer than the 50 characters GitHub allows a label.");
  } else {
    out.set(["exempt_labels"], [pin], inputs.from("pin_label", ": a lease on an issue with this label does not expire"));
  }
}

/** The commands people type, kept as aliases; the maintainers' two only where `maintainers` lets anyone use them. */
function mapCommands(inputs: Inputs): void {
  const { out } = inputs;
  const alias = (name: string, to: "claim" | "release", how = "") => {
    const text = inputs.value(name);
    if (text === null) return;
    // The README writes the maintainers' commands with their argument (`/assign @<user>`): the command is the first word.
    const word = name.startsWith("self_") ? text : (text.trim().split(/\s+/)[0] ?? "");
    out.alias(word, to, name, inputs.from(name, how));
  };
  alias("self_assign_cmd", "claim");
  alias("self_unassign_cmd", "release");
  // An expression for `maintainers` is taken to name someone: a workflow does not compute an empty list.
  if (inputs.value("maintainers")?.trim() === "") {
    for (const name of ["assign_user_cmd", "unassign_user_cmd"]) {
      inputs.none(name, "assign-issue-action ignores it without `maintainers`; issue-leases' `/claim @user` and `/release @user` need write permission.");
    }
    return;
  }
  alias("assign_user_cmd", "claim", ": `/assign @user` then gives the lease as `/claim @user` does (write permission, asked of GitHub); a bare one claims for oneself");
  alias("unassign_user_cmd", "release", ": `/unassign @user` ends their lease as `/release @user` does");
}
