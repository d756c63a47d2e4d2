/**
 * The event stream before anything has happened in a repository, end to end
 * (the real server on a real SQLite ledger against the fake GitHub, streams
 * read over HTTP): no webhook has shown the app the repository yet, so its
 * memory knows neither its name nor that it is public. A watcher with a
 * person's token that names it is answered as the API would answer (GitHub
 * asked with the token, the app installed there), and gets the first claim;
 * an anonymous stream gets a claim made through the API in a public
 * repository, whose public flag the API learned from GitHub.
 */
import { describe, expect, it } from "vitest";
import { alice, commentIn, full, PUBLIC, SECRET, withBoard, type BoardWorld } from "../dashboard/board-world.js";
import { type SseClient, openEvents } from "../support/sse.js";
import { call, leasePath } from "./api-calls.js";
import { checkAnswer } from "./openapi-check.js";

/** A person's token (a user's, with no installation of the app: it sees public repositories as anyone does). */
const DANA = { token: "ghu_danaWatchesTokenAAAAAAAAAAAAAAAAAAAAA", login: "dana", id: 5101, type: "User" as const };
const BOT = { token: "ghs_firstClaimBotTokenAAAAAAAAAAAAAAAAAAA", login: "agent[bot]", id: 5102 };

async function stream(w: BoardWorld, query: string, token?: string): Promise<SseClient> {
  const c = await openEvents(`${w.server.url}/api/v1/events${query}`, token ? { authorization: `Bearer ${token}` } : {});
  if (c.status !== 200) checkAnswer("GET", "/api/v1/events", c.status, c.body);
  return c;
}

const summary = (c: SseClient) => c.log.events.map((e) => `${e.event} ${e.data.repo}#${e.data.issue} ${e.data.holder.login}`);

describe.concurrent("the event stream of a repository the app has not seen yet", () => {
  it("a person's token naming a public repository of the installation is streamed, and gets its first claim", () =>
    withBoard(async (w) => {
      w.fake.addToken(DANA.token, DANA);
      const watcher = await stream(w, `?repo=${full(PUBLIC)}`, DANA.token);
      expect(watcher.status).toBe(200);

      // The first thing that happens there: a claim by a comment.
      expect(await w.server.send("issue_comment", commentIn(PUBLIC, { body: "/claim", author: alice, issue: 4, title: "First" }))).toBe(200);
      await watcher.waitForEvents(1);
      expect(summary(watcher)).toEqual([`lease.acquired ${full(PUBLIC)}#4 alice`]);
      watcher.close();
    }), 120_000);

  it("answers 404, the same for each, a repository the token does not see, one the app is not installed on, and one that does not exist", () =>
    withBoard(async (w) => {
      const other = `${PUBLIC.owner}/not-installed`;
      w.fake.addRepo(other, { id: 777_000_009 });
      w.fake.uninstall(other);
      // Dana's token sees the public repositories only (the fake's 404 for the rest, as GitHub answers for a private one).
      w.fake.addToken(DANA.token, { ...DANA, repos: [full(PUBLIC), other] });
      const answers: Array<[number, unknown]> = [];
      for (const name of [full(SECRET), other, `${PUBLIC.owner}/no-such-repo`]) {
        const c = await stream(w, `?repo=${name}`, DANA.token);
        answers.push([c.status, c.body]);
      }
      expect(answers.map(([status]) => status)).toEqual([404, 404, 404]);
      expect(answers[1]![1]).toEqual(answers[0]![1]);
      expect(answers[2]![1]).toEqual(answers[0]![1]);
    }), 120_000);

  it("an anonymous stream gets a claim made through the API in a public repository, and not one in a private repository", () =>
    withBoard(async (w) => {
      w.fake.addToken(BOT.token, BOT);
      const anonymous = await stream(w, "");
      expect(anonymous.status).toBe(200);
      // The private repository's claim comes first: had it reached the anonymous stream, it would be its first event.
      expect((await call(w.server, "POST", leasePath(1, full(SECRET)), { token: BOT.token, body: { ttl: "2h" } })).body.outcome).toBe("acquired");
      expect((await call(w.server, "POST", leasePath(2, full(PUBLIC)), { token: BOT.token, body: { ttl: "2h" } })).body.outcome).toBe("acquired");
      await anonymous.waitForEvents(1);
      // A second public event, so that the first is not the last one read before the assertion.
      expect((await call(w.server, "DELETE", leasePath(2, full(PUBLIC)), { token: BOT.token })).body.outcome).toBe("released");
      await anonymous.waitForEvents(2);
      expect(summary(anonymous)).toEqual([`lease.acquired ${full(PUBLIC)}#2 agent[bot]`, `lease.released ${full(PUBLIC)}#2 agent[bot]`]);
      anonymous.close();
    }), 120_000);
});
