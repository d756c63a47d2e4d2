/**
 * Exit codes of `issue-leases agent …`, from BSD's sysexits.h so that they
 * never collide with the operator commands' 1-3 nor with a shell's 126,
 * 127 and 128+N, and each error of the client mapped to one of them.
 */
import {
  LeaseApiError,
  LeaseHeldError,
  LeaseLostError,
  LeaseNotHolderError,
  LeaseRefusedError,
  LeaseUnavailableError,
  NothingReadyError,
} from "@issue-leases/client";

export const AGENT_EXIT = {
  ok: 0,
  /** An answer the CLI did not expect. */
  failure: 1,
  /** EX_USAGE: a wrong argument, or one the API refused as invalid (422). */
  usage: 64,
  /** EX_NOINPUT: `next` found no issue to take (none matches, or every match is held); try later or with other filters. */
  nothing_ready: 66,
  /** EX_UNAVAILABLE: the API could not be reached, or kept failing (network, 5xx, 429) through the retries. */
  unavailable: 69,
  /** EX_TEMPFAIL: someone else holds the issue; try later. */
  held: 75,
  /** EX_PROTOCOL: the lease is lost, or was never the caller's (not_holder, a token that is not the live one). */
  lost: 76,
  /** EX_NOPERM: no token or a bad one (401), a repository the token cannot see or the app is not installed on (404), a refusal by the repository's config or by GitHub's moderation (403). */
  denied: 77,
  /** EX_CONFIG: ISSUE_LEASES_URL is missing or not a URL. */
  config: 78,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0   ok (run, and next with a command: the command's own status; 128+N when a
      signal N ended it)
  64  usage: a wrong argument, or one the API refused (422, e.g. a TTL over max_ttl)
  66  next: no issue is ready (none matches the filters, or all that do are held)
  69  the API could not be reached, or kept failing (network, 5xx, 429) through the retries
  75  held by someone else: the claim was not granted (claim --wait: not within
      --wait-timeout)
  76  lease lost: not the holder (renew, release), a token that is not the live
      one (verify), or run's lease ended while the command ran (it was stopped)
  77  not allowed: no token or a bad one, a repository the token cannot see or
      the app is not installed on, refused by the repository's config, or
      what GitHub would not let the caller comment on (locked, blocked)
  78  ISSUE_LEASES_URL is not set, or not an http(s) URL
  126, 127  run, next: the command could not be executed, or was not found`;

/** 403 reasons that are GitHub's moderation (a lock, an interaction limit, a block), not the repository's config. */
const MODERATION = new Set(["locked", "interaction_limit", "blocked"]);

/** A failure of the CLI's own, with the code to exit with. */
export class AgentError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = "AgentError";
  }
}

/** The exit code for an error of the client. */
export function exitCodeOf(error: unknown): number {
  if (error instanceof AgentError) return error.exitCode;
  if (error instanceof LeaseHeldError) return AGENT_EXIT.held;
  if (error instanceof NothingReadyError) return AGENT_EXIT.nothing_ready;
  if (error instanceof LeaseNotHolderError || error instanceof LeaseLostError) return AGENT_EXIT.lost;
  if (error instanceof LeaseRefusedError) return AGENT_EXIT.denied;
  if (error instanceof LeaseUnavailableError) return AGENT_EXIT.unavailable;
  if (error instanceof LeaseApiError) {
    if (error.status === 401 || error.status === 404) return AGENT_EXIT.denied;
    if (error.status === 400 || error.status === 422) return AGENT_EXIT.usage;
  }
  return AGENT_EXIT.failure;
}

/** What a failure's fix names: the CLI's variables, or the GitHub Action's inputs. */
export interface SettingNames {
  url: string;
  token: string;
}

const CLI_NAMES: SettingNames = { url: "ISSUE_LEASES_URL", token: "GITHUB_TOKEN or GH_TOKEN" };

/** One line saying what went wrong and, where it helps, what to do. */
export function describeError(error: unknown, names: SettingNames = CLI_NAMES): string {
  if (error instanceof NothingReadyError) return `nothing ready: ${error.matched} open ${error.matched === 1 ? "issue matches" : "issues match"}, ${error.held} of them held`;
  if (error instanceof LeaseApiError && !(error instanceof LeaseHeldError) && !(error instanceof LeaseNotHolderError)) {
    if (error.status === 401) return `the API refused the token (401: ${error.message}): check ${names.token}`;
    if (error.status === 404) {
      return `not found (404: ${error.message}): the repository does not exist, the token cannot see it, or the app is not installed on it`;
    }
    if (error instanceof LeaseRefusedError) {
      return MODERATION.has(error.reason ?? "") ? `refused, as GitHub would refuse a comment: ${error.message}` : `refused by the repository's config: ${error.message}`;
    }
    return `${error.message} (HTTP ${error.status})`;
  }
  if (error instanceof LeaseUnavailableError) {
    // An answer came: the URL is right, and what failed is what the answer says.
    if (error.code === "github_unavailable") return `the API could not ask GitHub (${error.message}): GitHub is not answering the app; try again later`;
    if (error.status !== null) return `the API kept failing: ${error.message}; try again later`;
    return `cannot reach the API: ${error.message}; check ${names.url}`;
  }
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim();
}
