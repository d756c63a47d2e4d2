/**
 * One way to GitHub (issue 38): every request to GitHub (REST, GraphQL, the
 * App's own JWT calls, the API's and the board's calls with a user's token)
 * is made in src/github/, which alone knows GitHub's URLs in both layouts,
 * its retries, budgets and fences. Read statically: outside src/github/, no
 * file of src/ makes an Octokit request, GraphQL call, REST method call or
 * pagination, calls `fetch`, or sends with Node's own HTTP client, but the
 * few below that send elsewhere.
 */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "../support/import-graph.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The ways a request leaves the process, as they read in the source. */
const SENDS: Array<{ what: string; pattern: RegExp }> = [
  // octokit.request("GET /app"), app.request(`POST ${endpoint}`): any client's call by route.
  { what: "an Octokit request", pattern: /\.request\s*(?:<[^>]*>)?\(\s*["'`](?:GET|POST|PUT|PATCH|DELETE|HEAD)\b/ },
  { what: "an Octokit request", pattern: /\boctokit\.request\s*\(/ },
  { what: "a GraphQL call", pattern: /\.graphql\s*(?:<[^>]*>)?\(/ },
  { what: "an Octokit REST method", pattern: /\.rest\.\w+\.\w+/ },
  { what: "an Octokit pagination", pattern: /\.paginate(?:\.iterator)?\s*\(/ },
  { what: "a fetch", pattern: /(?<![\w.])fetch\s*\(/ },
  { what: "Node's HTTP client", pattern: /\bhttps?\.(?:get|request)\s*\(/ },
  { what: "Node's HTTP client", pattern: /import\s*\{[^}]*\b(?:request|get)\b[^}]*\}\s*from\s*["'](?:node:)?(?:https?|http2)["']/ },
  { what: "Node's HTTPS client", pattern: /import\s+(?:\*\s+as\s+)?\w+\s*(?:,\s*\{[^}]*\})?\s*from\s*["'](?:node:)?https["']/ },
  { what: "undici", pattern: /from\s*["']undici["']/ },
];

/**
 * Files outside src/github/ that send HTTP requests, none of them to GitHub.
 * (The client package, which bots use to call the app, is not in src/.)
 */
const ELSEWHERE: Record<string, string> = {
  // Outgoing webhooks: lease events POSTed to the receivers a repository's config names.
  "src/events/send-event.ts": "lease events to outgoing webhooks' receivers",
  // `issue-leases mcp` (stdio): the MCP server's client calls this app's own API over kept-alive sockets.
  "src/mcp/keep-alive-fetch.ts": "the stdio MCP server's calls to the app's own API",
  // Streamable HTTP MCP sessions: their API requests are served by this process's own server.
  "src/mcp/in-process-fetch.ts": "the MCP sessions' API requests to this process's own server",
};

/** The text of a source file without its comments (a comment may name `fetch(`), lines kept where they were; strings are kept. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, "")).replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Calls of a `fetch` given under another name (a parameter typed `Fetch` or `typeof fetch`, such as `f(url)`). */
function fetchesByName(text: string): RegExp[] {
  const names = [...text.matchAll(/\b(\w+)\??\s*:\s*(?:Fetch|typeof\s+(?:globalThis\.)?fetch)\b/g)].map((m) => m[1]!).filter((n) => n !== "fetch");
  return [...new Set(names)].map((n) => new RegExp(`(?<![\\w.])${n}\\s*\\(`));
}

/** Each request outside src/github/ (and outside ELSEWHERE): `file:line: what`. */
function requestsOutsideGitHub(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(ROOT, "src")) {
    if (file.startsWith("src/github/") || file in ELSEWHERE) continue;
    const text = code(readFileSync(join(ROOT, file), "utf8"));
    const sends = [...SENDS, ...fetchesByName(text).map((pattern) => ({ what: "a fetch given under another name", pattern }))];
    text.split("\n").forEach((line, i) => {
      for (const { what, pattern } of sends) {
        if (pattern.test(line)) {
          found.push(`${file}:${i + 1}: ${what}`);
          break;
        }
      }
    });
  }
  return found;
}

describe("one way to GitHub", () => {
  it("makes no request to GitHub outside src/github/", () => {
    expect(requestsOutsideGitHub()).toEqual([]);
  });

  it("allows only files that send elsewhere, each of which does send", () => {
    for (const file of Object.keys(ELSEWHERE)) {
      const text = code(readFileSync(join(ROOT, file), "utf8"));
      expect(SENDS.some(({ pattern }) => text.split("\n").some((line) => pattern.test(line))), file).toBe(true);
    }
  });

  it("finds each way of sending it looks for", () => {
    const sample = [
      'await octokit.request("GET /repos/{owner}/{repo}", r);',
      "await app.request(`POST ${endpoint}`, doc);",
      "await octokit.graphql<Answer>(QUERY, vars);",
      "await octokit.rest.issues.addLabels(args);",
      'await octokit.paginate("GET /repos/{owner}/{repo}/issues", args);',
      "const res = await fetch(url, init);",
      "https.get(target, options);",
      'import { request as send } from "node:https";',
      'import https from "node:https";',
    ];
    expect(sample.filter((line) => !SENDS.some(({ pattern }) => pattern.test(code(line))))).toEqual([]);
    const injected = "async function call(f: Fetch, url: string) {\n  return f(url, init);\n}";
    expect(fetchesByName(injected).some((pattern) => pattern.test(injected.split("\n")[1]!))).toBe(true);
    // A comment that names them sends nothing, nor does a call of another `request` or `fetch`.
    const quiet = ["// octokit.request(\"GET /app\") and fetch(url)", "/* fetch(url) */", "filler.request({ repoId });", "this.o.fetch.bind(x);", "keepAliveFetch();"];
    expect(quiet.filter((line) => SENDS.some(({ pattern }) => pattern.test(code(line))))).toEqual([]);
  });
});
