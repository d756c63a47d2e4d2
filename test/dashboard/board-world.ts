/**
 * The world the board's end-to-end tests look at: the real server against
 * the fake GitHub, with a public repository and a private one, leases
 * claimed by comments (signed deliveries, as GitHub sends them), and users
 * who can sign in through the fake's OAuth endpoints.
 */
import { expect } from "vitest";
import { type FakeGitHub, startFakeGitHub, userId } from "../support/fake-github.js";
import { commentPayload, INSTALLATION_ID, REPO, type UserSpec } from "../support/payloads.js";
import { type ServerProcess, startServer } from "../support/server-process.js";
import { runReport, tempDir } from "../e2e/issue-view.js";

export const CLIENT_ID = "Iv1.boardtest";
export const CLIENT_SECRET = "board-test-client-secret";

/** Users as the fake GitHub knows them (its ids), so a signed-in user is the holder of their leases. */
export const user = (login: string): UserSpec => ({ login, id: userId(login), association: "CONTRIBUTOR" });
export const alice = user("alice");
export const bob = user("bob");
export const carol = user("carol");

export interface RepoSpec {
  id: number;
  owner: string;
  name: string;
  private: boolean;
}

export const PUBLIC: RepoSpec = { ...REPO, private: false };
export const SECRET: RepoSpec = { id: 777_000_001, owner: REPO.owner, name: "secret-plans", private: true };
export const full = (r: RepoSpec) => `${r.owner}/${r.name}`;

/** An `issue_comment.created` payload in repository `r`, on an issue titled `title`. */
export function commentIn(r: RepoSpec, spec: { body: string; author: UserSpec; issue: number; title: string; labels?: string[] }): Record<string, any> {
  const p = commentPayload({ body: spec.body, author: spec.author, issue: spec.issue, labels: spec.labels });
  p.issue.title = spec.title;
  p.repository = {
    ...p.repository,
    id: r.id,
    node_id: `R_${r.id}`,
    name: r.name,
    full_name: full(r),
    private: r.private,
    visibility: r.private ? "private" : "public",
    owner: { ...p.repository.owner, login: r.owner },
  };
  p.installation = { id: INSTALLATION_ID, node_id: "I_1" };
  return p;
}

export interface BoardWorld {
  fake: FakeGitHub;
  server: ServerProcess;
  /** Claims issue `issue` of `r` for `author` by a comment, and expects the delivery accepted. */
  claim(r: RepoSpec, issue: number, author: UserSpec, title: string, opts?: { ttl?: string; labels?: string[] }): Promise<void>;
}

export async function withBoard(test: (world: BoardWorld) => Promise<void>, env: Record<string, string> = {}): Promise<void> {
  const fake = await startFakeGitHub();
  fake.setOAuthApp(CLIENT_ID, CLIENT_SECRET);
  // The ids the webhook payloads carry.
  for (const r of [PUBLIC, SECRET]) fake.addRepo(full(r), { id: r.id, private: r.private });
  // bob can see both repositories of the installation; alice only the public one.
  fake.setUserInstallations("bob", [{ id: INSTALLATION_ID, repos: [{ repo: full(PUBLIC), private: false }, { repo: full(SECRET), private: true }] }]);
  fake.setUserInstallations("alice", [{ id: INSTALLATION_ID, repos: [{ repo: full(PUBLIC), private: false }] }]);
  const tmp = tempDir();
  let server: ServerProcess | undefined;
  try {
    server = await startServer({ fake, dbFile: tmp.db, env: { GITHUB_CLIENT_ID: CLIENT_ID, GITHUB_CLIENT_SECRET: CLIENT_SECRET, ...env } });
    const s = server;
    await test({
      fake,
      server: s,
      async claim(r, issue, author, title, opts = {}) {
        const body = opts.ttl ? `/claim ${opts.ttl}` : "/claim";
        expect(await s.send("issue_comment", commentIn(r, { body, author, issue, title, labels: opts.labels }))).toBe(200);
      },
    });
  } catch (error) {
    console.log(runReport(fake, server ? [server] : []));
    throw error;
  } finally {
    await server?.stop();
    await fake.close();
    tmp.remove();
  }
}

/**
 * Signs `login` in over plain HTTP, following the redirects by hand as a
 * browser would (its cookies included): /login, the fake's authorize page,
 * the callback. Returns the session cookie (`il_session=…`) and where the
 * callback sent the browser.
 */
export async function signIn(server: ServerProcess, fake: FakeGitHub, login: string, returnTo = "/leases"): Promise<{ cookie: string; location: string }> {
  fake.signInAs(login);
  const start = await fetch(`${server.url}/login?return_to=${encodeURIComponent(returnTo)}`, { redirect: "manual" });
  expect(start.status).toBe(302);
  const signInCookie = cookieOf(start, "il_sign_in");
  const authorize = await fetch(start.headers.get("location")!, { redirect: "manual" });
  expect(authorize.status).toBe(302);
  const back = await fetch(authorize.headers.get("location")!, { redirect: "manual", headers: { cookie: signInCookie } });
  expect(back.status).toBe(302);
  return { cookie: cookieOf(back, "il_session"), location: back.headers.get("location")! };
}

/** `name=value` of a Set-Cookie the response carries (the first of that name). */
export function cookieOf(res: Response, name: string): string {
  const found = res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  if (!found) throw new Error(`no ${name} cookie in ${JSON.stringify(res.headers.getSetCookie())}`);
  return found.split(";")[0]!;
}
