/**
 * The app's URL as LeaseClient takes it: a value that is not an http(s) URL
 * is refused with the value itself and the URL to write instead.
 */
import { describe, expect, it } from "vitest";
import { LeaseClient } from "../../src/client/index.js";
import { isLoopbackHost } from "../../src/client/base-url.js";

/** A fetch that must not be called: the URL is refused before any request. */
const noFetch: typeof fetch = () => {
  throw new Error("no request may be made");
};

describe("LeaseClient's baseUrl", () => {
  it.each([
    ["localhost:3917", /^baseUrl must be an http\(s\) URL, not "localhost:3917": write it as http:\/\/localhost:3917$/],
    ["leases.example.com:8443", /^baseUrl must be an http\(s\) URL, not "leases.example.com:8443": write it as https:\/\/leases.example.com:8443$/],
    ["127.0.0.1:3917", /^baseUrl is not a URL, not "127.0.0.1:3917": write it as http:\/\/127.0.0.1:3917$/],
    ["leases.example.com", /^baseUrl is not a URL, not "leases.example.com": write it as https:\/\/leases.example.com$/],
    ["ftp://leases.example.com", /^baseUrl must be an http\(s\) URL, not "ftp:\/\/leases.example.com": write it as https:\/\/HOST/],
  ])("%j is refused, naming the value and what to write", (baseUrl, message) => {
    expect(() => new LeaseClient({ baseUrl, token: "t", fetch: noFetch })).toThrow(TypeError);
    expect(() => new LeaseClient({ baseUrl, token: "t", fetch: noFetch })).toThrow(message);
  });

  it("takes https:// anywhere and http:// on this machine", () => {
    for (const baseUrl of ["https://leases.example.com", "http://localhost:3917", "http://127.0.0.1:3917/leases", new URL("http://[::1]:3917")]) {
      expect(() => new LeaseClient({ baseUrl, token: "t", fetch: noFetch }), String(baseUrl)).not.toThrow();
    }
  });
});

describe("isLoopbackHost", () => {
  it("is localhost, 127.0.0.0/8 and ::1, as the URL parser writes them", () => {
    const host = (url: string) => new URL(url).hostname;
    for (const url of ["http://localhost", "http://LOCALHOST.", "http://app.localhost", "http://127.0.0.1", "http://127.1", "http://127.255.0.9", "http://[::1]", "http://[0:0::1]"]) {
      expect(isLoopbackHost(host(url)), url).toBe(true);
    }
    for (const url of ["http://leases.example.com", "http://10.0.0.1", "http://128.0.0.1", "http://[::2]", "http://localhost.example.com", "http://127.0.0.1.nip.io"]) {
      expect(isLoopbackHost(host(url)), url).toBe(false);
    }
  });
});
