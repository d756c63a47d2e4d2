/**
 * The fake serves only what GitHub serves: every REST route it answers is
 * one of GitHub's, by method and path, in GitHub's own OpenAPI descriptions
 * (@octokit/openapi) of github.com and of Enterprise Server, the two
 * layouts the app runs against. GraphQL's endpoint is checked by GitHub's
 * schema instead (graphql-schema.ts), and the web's sign-in pages are not
 * the API.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeGitHub, type Layout, startFakeGitHub } from "./fake-github.js";

const require = createRequire(import.meta.url);
const NOT_REST = new Set(["POST /graphql", "GET /login/oauth/authorize", "POST /login/oauth/access_token"]);

/** GitHub's routes in one description: `METHOD /path/{}` with every parameter's name blanked (the fake names its own). */
function routesOf(description: string): Set<string> {
  const doc = JSON.parse(readFileSync(require.resolve(`@octokit/openapi/generated/${description}.json`), "utf8")) as { paths: Record<string, Record<string, unknown>> };
  const routes = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of Object.keys(item)) routes.add(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{}")}`);
  }
  return routes;
}

/** The routes of `served` that GitHub does not have. */
const notGitHubs = (served: string[], github: Set<string>) => served.filter((r) => !github.has(r.replace(/\{[^}]+\}/g, "{}")));

const fakes: Partial<Record<Layout, FakeGitHub>> = {};
beforeAll(async () => {
  fakes.enterprise = await startFakeGitHub({ layout: "enterprise" });
  fakes["github.com"] = await startFakeGitHub({ layout: "github.com" });
});
afterAll(() => Promise.all(Object.values(fakes).map((f) => f.close())));

describe("the fake's REST routes", () => {
  for (const [layout, description] of [["github.com", "api.github.com"], ["enterprise", "ghes-3.19"]] as const) {
    it(`are each one of GitHub's, in ${layout}'s layout, by ${description}'s OpenAPI description`, () => {
      const github = routesOf(description);
      const served = fakes[layout]!.routeList().filter((r) => !NOT_REST.has(r));
      expect(served.length).toBeGreaterThan(40);
      expect(notGitHubs(served, github)).toEqual([]);
    });
  }

  it("would be told a route GitHub does not have, or a method it does not take", () => {
    const routes = ["GET /repos/{owner}/{repo}", "GET /repos/{owner}/{repo}/issues/{n}/claims", "PUT /repos/{owner}/{repo}/labels/{name}"];
    expect(notGitHubs(routes, routesOf("api.github.com"))).toEqual(routes.slice(1));
  });
});
