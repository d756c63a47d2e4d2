/**
 * The app's URL, as the client and `issue-leases agent` take it. Every call
 * carries the caller's GitHub token, so a URL that would send it in clear
 * across a network is refused unless the caller says so; and a mistake
 * (`localhost:3917`, which parses as the scheme `localhost:`) gets the value
 * back with the URL to write instead.
 */

export interface BaseUrlRules {
  /** What the value is called in a message: `baseUrl`, `ISSUE_LEASES_URL`, `--url`. */
  name: string;
  /** http:// to a host that is not this machine is allowed. */
  allowHttp: boolean;
  /** How to allow it, for the refusal: `pass allowHttp: true`, `set ISSUE_LEASES_ALLOW_HTTP=1`. */
  allowHow: string;
}

/**
 * This machine: localhost (and its subdomains, RFC 6761), 127.0.0.0/8 and
 * ::1. The URL parser has already normalised the host (`127.1` is
 * `127.0.0.1`, IPv6 is bracketed and compressed).
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return host === "localhost" || host.endsWith(".localhost") || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === "[::1]";
}

/** Parses and checks the app's URL; throws TypeError saying what is wrong and what to write. */
export function checkBaseUrl(value: string | URL, rules: BaseUrlRules): URL {
  const text = String(value);
  const shown = JSON.stringify(text.slice(0, 200));
  let url: URL | null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
    const what = url === null ? "is not a URL" : "must be an http(s) URL";
    throw new TypeError(`${rules.name} ${what}, not ${shown}: ${suggestion(text)}`);
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname) && !rules.allowHttp) {
    // The origin only: the value may carry a user and password.
    throw new TypeError(
      `${rules.name} is ${url.origin}, plain http to another machine: every call would send the GitHub token unencrypted. ` +
        `Use https://${url.host}, or ${rules.allowHow} on a network you trust`,
    );
  }
  return url;
}

/** What to write instead: the value with a scheme, https unless the host is this machine. */
function suggestion(text: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return "write it as https://HOST (or http://localhost:PORT for this machine)";
  let host = "";
  try {
    host = new URL(`http://${text}`).hostname;
  } catch {
    return "write it as https://HOST (or http://localhost:PORT for this machine)";
  }
  return `write it as ${isLoopbackHost(host) ? "http" : "https"}://${text.slice(0, 200)}`;
}
