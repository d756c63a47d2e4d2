/**
 * How every request of the installation's port is sent: `fetch` with a time
 * limit per attempt, a 429 told as a 403 for the outbox to pause on, and each
 * answer's status told to the metrics.
 */
/** A request gives up after this long on the wire: a hung connection must not hold an effect forever. */
export const REQUEST_TIMEOUT_MS = 30_000;

/**
 * `fetch` with a time limit that starts when the request is sent. Probot's
 * throttling plugin holds a request in its installation's queue (writes 1 s
 * apart, comments 3 s apart) before sending it, so a limit set when the call
 * is made would abort requests that never reached GitHub, and the retry
 * plugin would queue them again, doomed. Each attempt gets its own limit.
 */
export function timedFetch(timeoutMs = REQUEST_TIMEOUT_MS, onResponse?: ResponseObserver): typeof fetch {
  return (input, init) => {
    const limit = AbortSignal.timeout(timeoutMs);
    // globalThis.fetch at call time, not at import: test interceptors replace it.
    const sent = globalThis.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, limit]) : limit });
    if (!onResponse) return sent.then(noRetryOn429);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return sent.then(
      (response) => {
        onResponse(method, url, response.status, init?.body);
        return noRetryOn429(response);
      },
      (error: unknown) => {
        onResponse(method, url, null, init?.body);
        throw error;
      },
    );
  };
}

/** The header a 429 answer carries once it is told as a 403 (see `noRetryOn429`). */
export const TOO_MANY_REQUESTS = "x-issue-leases-status";

/**
 * A 429 (GitHub's other answer to a secondary rate limit) told as a 403:
 * Octokit's retry plugin retries a 429 within seconds (it leaves 403 alone),
 * where GitHub asks for at least a minute. The outbox pauses the installation
 * instead (after-failure.ts reads the header).
 */
function noRetryOn429(response: Response): Response {
  if (response.status !== 429) return response;
  const headers = new Headers(response.headers);
  headers.set(TOO_MANY_REQUESTS, "429");
  return new Response(response.body, { status: 403, statusText: "Forbidden", headers });
}

/**
 * Told of every request sent through the port: its answer's status, or null
 * when none came (network error, timeout), and its body as sent (a GraphQL
 * document's tells a query, a read, from a mutation, a write).
 */
export type ResponseObserver = (method: string, url: string, status: number | null, body?: unknown) => void;
