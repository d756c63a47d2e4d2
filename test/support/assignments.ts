/**
 * Assignments in the issue's sidebar, for the tests of `assignment: claims`
 * (test/app/assignment.test.ts, test/app/unassignment.test.ts): who assigns,
 * and the `issues.assigned` / `issues.unassigned` deliveries, from GitHub's
 * own examples (payloads.ts).
 */
import { type GitHubMock, type Harness } from "./app-harness.js";
import { commentPayload, issuesPayload, REPO, type UserSpec } from "./payloads.js";

export const key = (issue: number) => ({ repoId: REPO.id, repo: `${REPO.owner}/${REPO.name}`, issue });
export const triager: UserSpec = { login: "triager", id: 1005, association: "CONTRIBUTOR" };
/** This app's bot, as GitHub names the sender of what the app does with its installation token. */
export const appBot: UserSpec = { login: "issue-leases[bot]", id: 5000, type: "Bot" };
/** GitHub's coding agent, assigned like a person. */
export const copilot: UserSpec = { login: "Copilot", id: 198982749, type: "Bot" };

export const CLAIMS = "assignment: claims\n";

/** `sender` assigns (or unassigns) `assignee` on `issue`, now. */
export function assignment(
  h: Harness,
  action: "assigned" | "unassigned",
  sender: UserSpec,
  assignee: UserSpec,
  opts: { issue?: number; id?: string; state?: "closed" } = {},
): Promise<void> {
  const payload = issuesPayload(action, { at: h.now(), sender, assignee, issue: opts.issue ?? 1, ...(opts.state ? { state: opts.state } : {}) });
  return h.receive("issues", payload, opts.id);
}

/** `author` claims `issue` by comment, the repository's first: its file (`yaml`, or none) is read unless cached already. */
export async function claimByComment(h: Harness, gh: GitHubMock, author: UserSpec, yaml: string | null, opts: { issue?: number; cached?: boolean } = {}) {
  const issue = opts.issue ?? 1;
  if (!opts.cached) gh.config(yaml);
  await h.receive("issue_comment", commentPayload({ body: "/claim", author, issue }));
  gh.claim(issue, author.login, { createClaimed: true, token: 1 });
  await h.drain();
}
