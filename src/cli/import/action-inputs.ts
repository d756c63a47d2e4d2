/**
 * assign-issue-action's inputs as import-config knows them: the action's
 * defaults (its action.yml), and what each input that makes no setting is in
 * issue-leases: no equivalent (and why), the same when empty, or a message
 * template, answered here by one of issue-leases' own replies.
 */

export const DEFAULTS: Record<string, string> = {
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
export const NO_EQUIVALENT: Record<string, string> = {
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

/** Inputs whose empty value is what issue-leases does anyway. */
export const EMPTY_IS_SAME: Record<string, string> = {
  required_label: "no label is required to claim, as in issue-leases.",
  ignored_users: "nobody is kept from claiming, as in issue-leases.",
};

/** The message templates (both names, `_text` since 2026), and the issue-leases reply that answers the same case. */
const TEMPLATES: Record<string, string> = {
  assigned_text: "its `acquired` reply (token and expiry)",
  assigned_newcomer_text: "its `acquired` reply, the same for everyone",
  already_assigned_text: "its `held` reply (who holds the issue, until when)",
  already_assigned_pinned_text: "its `held` reply (a lease on an issue with an exempt label does not expire)",
  unassigned_text: "its `released` and `expired` replies",
  self_unassigned_text: "its `released` reply",
  assignment_suggestion_text: "none: issue-leases answers commands only, never prose",
  block_assignment_text: "none: issue-leases does not block claiming again",
  reminder_text: "its `reminded` reply",
  max_assignments_text: "its `forbidden` reply, which names `max_leases_per_holder` and the issues held",
  max_overall_assignment_text: "its `forbidden` reply, which names `limits_by_label` and the issues held",
  self_assign_author_blocked_text: "none: issue-leases does not refuse authors",
  ignored_text: "none: issue-leases has no list of people it ignores",
  closed_issue_assignment_text: "its `forbidden` reply for a closed issue",
};
const OLD_TEMPLATE_NAMES: Record<string, string> = {
  assigned_comment: "assigned_text",
  assigned_comment_newcomer: "assigned_newcomer_text",
  already_assigned_comment: "already_assigned_text",
  already_assigned_comment_pinned: "already_assigned_pinned_text",
  unassigned_comment: "unassigned_text",
  self_unassigned_comment: "self_unassigned_text",
  assignment_suggestion_comment: "assignment_suggestion_text",
  block_assignment_comment: "block_assignment_text",
  reminder_comment: "reminder_text",
  max_assignments_message: "max_assignments_text",
  max_overall_assignment_message: "max_overall_assignment_text",
  self_assign_author_blocked_comment: "self_assign_author_blocked_text",
  ignored_message: "ignored_text",
  closed_issue_assignment_comment: "closed_issue_assignment_text",
};

/** Inputs that make settings, read by the mappers below. */
export const MAPPED = [
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

/** Why a message template (by either of its names) is not imported: the reply that answers its case. */
export function templateWhy(name: string): string | null {
  if (TEMPLATES[name] === undefined && OLD_TEMPLATE_NAMES[name] === undefined) return null;
  const current = OLD_TEMPLATE_NAMES[name] ?? name;
  const renamed = current === name ? "" : ` (\`${current}\` since 2026)`;
  return `a message template${renamed}; issue-leases' replies are its own words (see docs/examples.md), in this case ${TEMPLATES[current]}.`;
}
