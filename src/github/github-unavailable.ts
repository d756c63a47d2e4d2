/** GitHub did not answer a question the API asked it (5xx, network, timeout, its rate limit): not the caller's fault, and never cached. */
export class GitHubUnavailable extends Error {
  constructor(what: string, cause?: unknown) {
    super(`GitHub did not answer ${what}`, { cause });
  }
}
