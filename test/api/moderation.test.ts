/**
 * GitHub's moderation through the API: what GitHub would not let a caller
 * comment, the API does not let it claim or renew (403 with a `reason`), and
 * a refusal writes nothing, on GitHub or in the ledger. The real server
 * against the fake GitHub, which knows locks, blocks, interaction limits
 * and tokens without access to issues, and answers the GraphQL query the
 * API asks them with.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import type { ApiRepo } from "../../src/api/access.js";
import { GitHubUnavailable, type Identity } from "../../src/api/identity.js";
import { Moderation } from "../../src/api/moderation.js";
import { callerGitHub } from "../../src/github/caller-port.js";
import { REPO } from "../support/payloads.js";
import { FULL, labels } from "../e2e/issue-view.js";
import { history } from "../e2e/ledger-file.js";
import { withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";

const token = (name: string) => `ghp_${name}Token`.padEnd(40, "X");
const ALICE = { token: token("alice"), login: "alice", id: 4201 };
const ALICE_AGAIN = { ...ALICE, token: token("aliceSecond") };
const MALLORY = { token: token("mallory"), login: "mallory", id: 4202 };
const MAINTAINER = { token: token("maint"), login: "maint", id: 4203 };
const NEWBIE = { token: token("newbie"), login: "newbie", id: 4204 };
/** Another app's installation token: it sees the repository (metadata), not its issues. */
const FOREIGN = { token: "ghs_foreignAppTokenXXXXXXXXXXXXXXXXXXXXXX", login: "metrics-app[bot]", id: 4205 };

describe("GitHub's moderation through the API", () => {
  it("Blocked/locked/interaction-limited callers and a foreign installation token, each refused through the API", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.addRepo(FULL, { id: REPO.id });
      for (const t of [ALICE, ALICE_AGAIN, MALLORY, MAINTAINER]) fake.addToken(t.token, t);
      fake.addToken(NEWBIE.token, { ...NEWBIE, newAccount: true });
      fake.addToken(FOREIGN.token, { ...FOREIGN, issues: "none" });
      fake.setPermission(FULL, MAINTAINER.login, "write");
      fake.lockIssue(FULL, 1, true, "too heated");
      fake.block(REPO.owner, MALLORY.login);
      const server = await live.start();
      const claim = (who: { token: string }, issue: number) => call(server, "POST", leasePath(issue), { token: who.token, body: { ttl: "2h" } });
      const refused = (r: { status: number; body: any }) => [r.status, r.body.error?.code, r.body.error?.reason];

      // A locked issue: refused to alice, as her comment would be; a writer may, as GitHub lets writers comment.
      const locked = await claim(ALICE, 1);
      expect(refused(locked)).toEqual([403, "forbidden", "locked"]);
      expect(locked.body.error.message).toContain("#1 is locked (too heated)");
      expect((await claim(MAINTAINER, 1)).body).toMatchObject({ outcome: "acquired", holder: { login: MAINTAINER.login } });

      // An account the repository's owner blocked.
      const blocked = await claim(MALLORY, 2);
      expect(refused(blocked)).toEqual([403, "forbidden", "blocked"]);
      expect(blocked.body.error.message).toContain("GitHub does not let mallory interact with #2");

      // Another app's installation token, which may not even read the issue: its claim is the API's one "not found"
      // (the issue is not there for it), its renewal a refusal, as GitHub refuses it the issue.
      const foreign = await claim(FOREIGN, 3);
      expect([foreign.status, foreign.body]).toEqual([404, { error: { code: "not_found", message: "Not Found" } }]);
      const foreignRenewal = await call(server, "PATCH", leasePath(1), { token: FOREIGN.token, body: {} });
      expect(refused(foreignRenewal)).toEqual([403, "forbidden", "blocked"]);
      expect(foreignRenewal.body.error.message).toContain("may not write to issues");

      // A renewal by a token of an account blocked since its claim: refused too, so no heartbeat keeps the lease alive.
      expect((await claim(ALICE, 4)).body).toMatchObject({ outcome: "acquired", token: 1 });
      fake.block(REPO.owner, ALICE.login);
      const renewal = await call(server, "PATCH", leasePath(4), { token: ALICE_AGAIN.token, body: { ttl: "2h" } });
      expect(refused(renewal)).toEqual([403, "forbidden", "blocked"]);
      // The lease is left to its expiry.
      expect((await call(server, "GET", leasePath(4), { token: MAINTAINER.token })).body).toMatchObject({ holder: { login: ALICE.login }, token: 1 });

      // An interaction limit: collaborators only shuts out alice's second token on a new issue and the new account; the writer is in.
      fake.setInteractionLimit(FULL, { limit: "collaborators_only", expiresAt: Date.now() + 86_400_000 });
      const limited = await claim(NEWBIE, 5);
      expect(refused(limited)).toEqual([403, "forbidden", "interaction_limit"]);
      expect(limited.body.error.message).toMatch(/limits interactions to its collaborators until \d{4}-/);
      expect((await claim(MAINTAINER, 6)).body).toMatchObject({ outcome: "acquired" });
      // Accounts older than a day only: the new account is still out.
      fake.setInteractionLimit(FULL, { limit: "existing_users", expiresAt: null });
      expect(refused(await claim(NEWBIE, 7))).toEqual([403, "forbidden", "interaction_limit"]);

      // Nothing of the refusals was recorded or written: the ledger has the three claims granted, GitHub their labels only.
      expect(history(live.dbFile).filter((h) => h.op === "acquire").map((h) => `${h.issue}:${h.outcome}`)).toEqual(["1:acquired", "4:acquired", "6:acquired"]);
      await live.settled(server);
      for (const issue of [2, 3, 5, 7]) {
        expect(labels(fake, issue)).toEqual([]);
        expect(fake.assignees(FULL, issue)).toEqual([]);
        expect(fake.comments(FULL, issue)).toEqual([]);
      }
      expect(fake.unmatched).toEqual([]);
      const output = server.stdout() + server.stderr();
      for (const t of [ALICE, ALICE_AGAIN, MALLORY, MAINTAINER, NEWBIE, FOREIGN]) expect(output).not.toContain(t.token);
    }), 120_000);
});

describe("GitHub's moderation of a release through the API", () => {
  it("a release by a caller GitHub's moderation refuses (blocked by the owner since its claim) is refused, and the lease stays until its expiry", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      fake.addRepo(FULL, { id: REPO.id });
      for (const t of [ALICE, ALICE_AGAIN, MAINTAINER]) fake.addToken(t.token, t);
      const server = await live.start();
      expect((await call(server, "POST", leasePath(1), { token: ALICE.token, body: { ttl: "2h", instance: "w1" } })).body).toMatchObject({
        outcome: "acquired",
        token: 1,
      });
      fake.block(REPO.owner, ALICE.login);
      // A token GitHub has not been asked about since the block (an answer that let her act is kept for minutes).
      const release = await call(server, "DELETE", `${leasePath(1)}?instance=w1`, { token: ALICE_AGAIN.token });
      expect([release.status, release.body.error?.code, release.body.error?.reason]).toEqual([403, "forbidden", "blocked"]);
      expect(release.body.error.message).toContain("GitHub does not let alice interact with #1");
      expect((await call(server, "GET", leasePath(1), { token: MAINTAINER.token })).body).toMatchObject({ holder: { login: ALICE.login, instance: "w1" }, token: 1 });
      expect(history(live.dbFile).map((h) => `${h.issue}:${h.op}:${h.outcome}`)).toEqual(["1:acquire:acquired"]);
      expect(fake.unmatched).toEqual([]);
    }), 120_000);
});

describe("GitHub's moderation answer", () => {
  /** A GraphQL endpoint on 127.0.0.1 answering every question with `answer`, counting the questions. */
  async function answering(answer: unknown): Promise<{ url: string; asked: () => number; close: () => Promise<void> }> {
    let asked = 0;
    const server = createServer((req, res) => {
      asked++;
      req.resume().on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)));
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}/graphql`, asked: () => asked, close: () => new Promise((done) => server.close(() => done())) };
  }
  const repo = { id: REPO.id, owner: REPO.owner, name: REPO.name, private: false } as unknown as ApiRepo;

  it("takes an error that is not about the token's access (RATE_LIMITED) as GitHub not answering, and keeps no verdict", async () => {
    const github = await answering({ data: { repository: null }, errors: [{ type: "RATE_LIMITED", message: "API rate limit exceeded" }] });
    try {
      const moderation = new Moderation({ github: callerGitHub({ graphql: github.url, rest: github.url }), permission: async () => "read" });
      const ask = () => moderation.refusal(ALICE.token, repo, 1, { login: ALICE.login, id: ALICE.id } as Identity);
      await expect(ask()).rejects.toBeInstanceOf(GitHubUnavailable);
      await expect(ask()).rejects.toThrow(/RATE_LIMITED/);
      // Asked again: the failure was not kept as a yes.
      expect(github.asked()).toBe(2);
    } finally {
      await github.close();
    }
  });

  it("takes FORBIDDEN on the issue as the token's answer: a refusal, not an outage", async () => {
    const github = await answering({
      data: { repository: { interactionAbility: null, issueOrPullRequest: null } },
      errors: [{ type: "FORBIDDEN", path: ["repository", "issueOrPullRequest"], message: "Resource not accessible by integration" }],
    });
    try {
      const moderation = new Moderation({ github: callerGitHub({ graphql: github.url, rest: github.url }), permission: async () => "read" });
      const refusal = await moderation.refusal(FOREIGN.token, repo, 1, { login: FOREIGN.login, id: FOREIGN.id } as Identity);
      expect(refusal?.reason).toBe("blocked");
    } finally {
      await github.close();
    }
  });
});
