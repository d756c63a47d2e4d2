/**
 * The app's URL as LeaseClient takes it: a value that is not an http(s) URL
 * is refused with the value itself and the URL to write instead, and plain
 * http to another machine (the token in clear on the network) unless allowed.
 */
import { describe, expect, it } from "vitest";
import { isLoopbackHost, LeaseClient } from "@issue-leases/client";

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

describe("plain http to another machine", () => {
  it("is refused, naming the origin (not the password in the URL) and both ways out", () => {
    const make = () => new LeaseClient({ baseUrl: "http://ops:hunter2@leases.example.com:8080/leases", token: "t", fetch: noFetch });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      /^baseUrl is http:\/\/leases\.example\.com:8080, plain http to another machine: every call would send the GitHub token unencrypted\. Use https:\/\/leases\.example\.com:8080, or pass allowHttp: true on a network you trust$/,
    );
    expect(() => new LeaseClient({ baseUrl: "http://10.0.0.7:3000", token: "t", fetch: noFetch })).toThrow(/plain http to another machine/);
  });

  it("is taken with allowHttp: true, and the calls go there", async () => {
    const asked: string[] = [];
    const client = new LeaseClient({
      baseUrl: "http://leases.internal:3000",
      allowHttp: true,
      token: "t",
      fetch: async (input) => {
        asked.push(String(input));
        return Response.json({ outcome: "status", repo: "octo-org/widgets", issue: 12, holder: null, token: null, expires_at: null, tenures: [] });
      },
    });
    await client.status("octo-org/widgets#12");
    expect(asked).toEqual(["http://leases.internal:3000/api/v1/repos/octo-org/widgets/issues/12/lease"]);
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
