/**
 * What each tool takes and answers, as zod shapes the SDK turns into the
 * tools' JSON Schemas (`tools/list`) and checks each call against: a call
 * whose arguments do not fit is answered a tool error naming the field
 * (tool-results.ts documents the text). Field names are the API's
 * snake_case, so that an answer reads as the API's own.
 */
import { z } from "zod";

/** `owner/repo#12`, or the issue's page on GitHub (`https://HOST/owner/repo/issues/12`). */
const ISSUE = /^(?:[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}#[1-9][0-9]{0,9}|https?:\/\/[^/\s]+\/[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}\/issues\/[1-9][0-9]{0,9}\/?)$/;
const REPO = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}\/[A-Za-z0-9._-]{1,100}$/;
const OWNER = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;
const DURATION = /^\s*\d{1,9}(?:\.\d{1,6})?\s{0,3}[A-Za-z]{1,7}\s*$/;

export const issueField = z
  .string()
  .regex(ISSUE, "must be an issue as owner/repo#N (e.g. octo-org/widgets#12) or its GitHub URL")
  .describe("The issue: owner/repo#N, e.g. octo-org/widgets#12 (or its URL on GitHub).");

const ttlField = z
  .string()
  .regex(DURATION, "must be a duration such as 30m, 2h or 1d")
  .describe("How long the lease lasts before it must be renewed: 30m, 2h, 1d. Default: the repository's default_ttl. The session renews it anyway while it is open.")
  .optional();

const noteField = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .describe("One line for the people reading the issue (at most 200 characters), shown in the app's reply on GitHub.")
  .optional();

const labelList = (what: string) => z.array(z.string().min(1, "a label name must not be empty")).max(20, "at most 20 labels").describe(what).optional();

export const claimInput = {
  issue: issueField,
  ttl: ttlField,
  note: noteField,
  wait: z
    .boolean()
    .describe("When someone else holds it: true takes a place in its line (the lease comes to this session when they release it); false (default) just says who holds it.")
    .optional(),
};

export const nextInput = {
  repo: z.string().regex(REPO, "must be a repository as owner/repo").describe("The repository to take an issue from: owner/repo. Give this or org.").optional(),
  org: z.string().regex(OWNER, "must be an owner's login (an organisation or a user)").describe("Take from every repository of this owner that the app serves and your token reads. Give this or repo.").optional(),
  labels: labelList("Only issues with all of these labels."),
  any_labels: labelList("Only issues with at least one of these labels."),
  exclude_labels: labelList("No issue with any of these labels."),
  milestone: z.string().min(1, "must not be empty").describe("Only issues of the milestone with this title.").optional(),
  order: labelList("Issues with the first of these labels first, then the second's, …, then the rest; oldest first within each."),
  ttl: ttlField,
};

export const renewInput = { issue: issueField, ttl: ttlField };
export const releaseInput = { issue: issueField, note: noteField };
export const statusInput = { issue: issueField };
export const verifyInput = {
  issue: issueField,
  token: z.number().int("must be a whole number").positive("must be 1 or more").describe("The fencing token to check (from your claim)."),
};

const holder = z.object({ login: z.string(), id: z.number(), instance: z.string().nullable() }).nullable();

/** A lease another party ended, told once: first in the next answer after the notification. */
const lostLease = z.object({
  repo: z.string(),
  issue: z.number(),
  token: z.number().nullable(),
  reason: z.enum(["not_holder", "refused", "expired"]),
  message: z.string(),
});

/** Every answer's: the session's leases that someone else ended since the last answer. */
const lost = { lost_leases: z.array(lostLease).describe("Leases of this session that ended since the last answer (released by a maintainer, handed off, expired): stop work on them.").optional() };

const lease = {
  repo: z.string(),
  issue: z.number(),
  holder,
  token: z.number().nullable(),
  expires_at: z.string().nullable(),
};

export const leaseOutput = {
  outcome: z.enum(["acquired", "renewed", "released", "queued", "left_queue"]),
  ...lease,
  title: z.string().optional(),
  url: z.string().optional(),
  trailer: z.string().optional().describe("The line to put in each commit message and in the pull request's body: Lease-Token: N #issue."),
  renewed_by_session: z.boolean().optional().describe("Whether this session renews the lease until it ends or releases it."),
  position: z.number().optional().describe("queued: your place in line (1: next)."),
  queued_until: z.string().optional(),
  handed_to: z.object({ holder, token: z.number(), expires_at: z.string().nullable() }).optional(),
  ...lost,
};

export const statusOutput = {
  outcome: z.literal("status"),
  ...lease,
  queue: z.array(z.object({ login: z.string(), id: z.number(), instance: z.string().nullable(), position: z.number(), until: z.string() })).optional(),
  ...lost,
};

export const mineOutput = {
  leases: z.array(
    z.object({
      ...lease,
      title: z.string().nullable().optional(),
      url: z.string().optional(),
      this_session: z.boolean().describe("Whether this session holds it (and renews it)."),
    }),
  ),
  ...lost,
};

export const verifyOutput = {
  valid: z.boolean(),
  lease: z.object(lease).nullable(),
  ...lost,
};

export type LostLease = z.infer<typeof lostLease>;
