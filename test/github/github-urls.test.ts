/**
 * Where GitHub is, from the environment: github.com, Enterprise Server
 * (GHE_HOST: REST under /api/v3, GraphQL at /api/graphql beside it) or
 * github.com's layout on another host (GITHUB_API_URL, as GHE.com's
 * api.NAME.ghe.com), and a wrong value named in the error.
 */
import { describe, expect, it } from "vitest";
import { githubUrls, isGraphqlUrl } from "../../src/github/github-urls.js";
import { githubApiUrl } from "../../src/settings/github-settings.js";

describe("githubApiUrl and githubUrls", () => {
  it("is github.com when nothing is set", () => {
    expect(githubUrls(githubApiUrl({}))).toEqual({
      layout: "github.com", rest: "https://api.github.com", graphql: "https://api.github.com/graphql", web: "https://github.com",
    });
  });

  it("puts Enterprise Server's GraphQL beside /api/v3, not under it", () => {
    expect(githubUrls(githubApiUrl({ GHE_HOST: "ghe.example.com" }))).toEqual({
      layout: "enterprise-server", rest: "https://ghe.example.com/api/v3", graphql: "https://ghe.example.com/api/graphql", web: "https://ghe.example.com",
    });
    expect(githubUrls(githubApiUrl({ GHE_HOST: "127.0.0.1:8080", GHE_PROTOCOL: "http" })).graphql).toBe("http://127.0.0.1:8080/api/graphql");
  });

  it("takes GITHUB_API_URL in either layout: GHE.com's api.NAME.ghe.com, or an Enterprise Server's /api/v3", () => {
    expect(githubUrls(githubApiUrl({ GITHUB_API_URL: "https://api.octocorp.ghe.com/" }))).toEqual({
      layout: "github.com", rest: "https://api.octocorp.ghe.com", graphql: "https://api.octocorp.ghe.com/graphql", web: "https://octocorp.ghe.com",
    });
    expect(githubUrls(githubApiUrl({ GITHUB_API_URL: "https://ghe.example.com/api/v3" })).graphql).toBe("https://ghe.example.com/api/graphql");
  });

  it("refuses GHE_HOST and GITHUB_API_URL together, a URL that is not one, and a host with a scheme, naming the variable", () => {
    expect(() => githubApiUrl({ GHE_HOST: "ghe.example.com", GITHUB_API_URL: "https://api.github.com" })).toThrow(/both GITHUB_API_URL .* and GHE_HOST/);
    expect(() => githubApiUrl({ GITHUB_API_URL: "api.github.com" })).toThrow(/GITHUB_API_URL is "api.github.com", not a URL/);
    expect(() => githubApiUrl({ GITHUB_API_URL: "ftp://api.github.com" })).toThrow(/GITHUB_API_URL is "ftp:\/\/api.github.com": give the API's base address only/);
    expect(() => githubApiUrl({ GITHUB_API_URL: "https://api.github.com?x=1" })).toThrow(/GITHUB_API_URL/);
    expect(() => githubApiUrl({ GHE_HOST: "https://ghe.example.com" })).toThrow(/GHE_HOST is "https:\/\/ghe.example.com": give the host name only/);
    expect(() => githubApiUrl({ GHE_HOST: "ghe.example.com", GHE_PROTOCOL: "ftp" })).toThrow(/GHE_PROTOCOL is "ftp"/);
  });

  it("tells GraphQL's endpoint in both layouts from REST paths", () => {
    expect(isGraphqlUrl("https://api.github.com/graphql")).toBe(true);
    expect(isGraphqlUrl("https://ghe.example.com/api/graphql")).toBe(true);
    expect(isGraphqlUrl("https://ghe.example.com/api/v3/repos/o/graphql/issues/1")).toBe(false);
  });
});
