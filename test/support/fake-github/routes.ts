/**
 * Every route the fake serves, in the order they are matched: the first
 * whose method and segments fit wins (route-table.ts). Each is served with
 * and without the `/api/v3` prefix (server.ts strips it).
 */
import { checkRunRoutes } from "./check-routes.js";
import { assigneeRoutes, commentRoutes, issueRoutes } from "./issue-routes.js";
import type { AppIdentity, JsonShapes } from "./json-shapes.js";
import { issueLabelRoutes, labelRoutes } from "./label-routes.js";
import { oauthRoutes } from "./oauth-routes.js";
import { pullRoutes } from "./pull-routes.js";
import { installationRoutes, repoRoutes } from "./repo-routes.js";
import type { RouteTable } from "./route-table.js";
import type { FakeState } from "./state.js";

/** What route handlers read and change, and how they render it. */
export interface RouteDeps { data: FakeState; shapes: JsonShapes; app: AppIdentity }

export function defineRoutes(t: RouteTable, d: RouteDeps): void {
  // Users signing in (OAuth web flow) and their tokens.
  oauthRoutes(t, d);
  // App and installation.
  installationRoutes(t, d);
  // Repos, contents, people (and GraphQL).
  repoRoutes(t, d);
  // Repo labels.
  labelRoutes(t, d);
  // Issues.
  issueRoutes(t, d);
  // Issue labels.
  issueLabelRoutes(t, d);
  // Assignees.
  assigneeRoutes(t, d);
  // Comments.
  commentRoutes(t, d);
  // Check runs.
  checkRunRoutes(t, d);
  // Pull requests.
  pullRoutes(t, d);
}
