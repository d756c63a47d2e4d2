/**
 * What a route handler answers, and the error bodies GitHub sends: the
 * status, message and documentation link the app and Octokit's plugins read.
 */
export const DOCS = "https://docs.github.com/rest";
const SECONDARY_LIMIT_DOCS =
  "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits";

export interface Reply {
  status: number;
  json?: unknown;
  /** Sent as text/plain instead of JSON. */
  text?: string;
  headers?: Record<string, string>;
  /** What GitHub would refuse as malformed (a GraphQL document outside its schema): recorded as unmatched, so a strict test fails. */
  invalid?: boolean;
}

export function notFound(message = "Not Found"): Reply {
  return { status: 404, json: { message, documentation_url: DOCS, status: "404" } };
}

/** GitHub's 403 to a token without the permission a route needs. */
export function forbidden(message: string): Reply {
  return { status: 403, json: { message, documentation_url: DOCS, status: "403" } };
}

export function invalid(errors: Array<Record<string, unknown>>): Reply {
  return { status: 422, json: { message: "Validation Failed", errors, documentation_url: DOCS, status: "422" } };
}

export function secondaryRateLimit(retryAfterSeconds: number, requestId: string): Reply {
  return {
    status: 403,
    headers: { "retry-after": String(retryAfterSeconds) },
    json: {
      message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. " +
        `If you reach out to GitHub Support for help, please include the request ID ${requestId}.`,
      documentation_url: SECONDARY_LIMIT_DOCS,
      status: "403",
    },
  };
}

/**
 * GitHub's GraphQL answer to a document over a rate limit: 200, no data, one RATE_LIMITED error (no retry-after),
 * so a client that only looks at the status misses it.
 */
export function graphqlRateLimited(installationId: number): Reply {
  return {
    status: 200,
    json: { data: null, errors: [{ type: "RATE_LIMITED", message: `API rate limit exceeded for installation ID ${installationId}.` }] },
  };
}
