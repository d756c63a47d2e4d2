/**
 * Who learns who holds the issues of a private repository: only a token
 * that may read its issues. Another app's installation token sees the
 * repository (any app installed on the organisation has metadata access)
 * but not its issues, and the API answers it as for a repository that does
 * not exist. The real server against the fake GitHub.
 */
import { describe, expect, it } from "vitest";
import { withLiveApp } from "../e2e/live-app.js";
import { call, leasePath } from "./api-calls.js";

const PRIVATE = "Codertocat/private-plans";
const WRITER = { token: "ghs_writerAppTokenXXXXXXXXXXXXXXXXXXXXXXX", login: "deploy[bot]", id: 4301 };
const READER = { token: "ghs_readerAppTokenXXXXXXXXXXXXXXXXXXXXXXX", login: "triage[bot]", id: 4302 };
const FOREIGN = { token: "ghs_checksAppTokenXXXXXXXXXXXXXXXXXXXXXXX", login: "checks-app[bot]", id: 4303 };

describe("private repositories through the API", () => {
  it("another app's installation token with metadata access only gets the API's 404 for a private repository's lease; one that reads issues gets it", () =>
    withLiveApp(async (live) => {
      live.fake.addRepo(PRIVATE, { private: true });
      live.fake.addToken(WRITER.token, WRITER);
      live.fake.addToken(READER.token, { ...READER, issues: "read" });
      // It sees the private repository, and no other: any other is a repository that, for it, does not exist.
      live.fake.addToken(FOREIGN.token, { ...FOREIGN, issues: "none", repos: [PRIVATE] });
      const server = await live.start();
      expect((await call(server, "POST", leasePath(1, PRIVATE), { token: WRITER.token, body: { ttl: "2h", instance: "w1" } })).body).toMatchObject({
        outcome: "acquired",
      });

      const missing = await call(server, "GET", leasePath(1, "Codertocat/not-for-it"), { token: FOREIGN.token });
      const status = await call(server, "GET", leasePath(1, PRIVATE), { token: FOREIGN.token });
      const verify = await call(server, "POST", `${leasePath(1, PRIVATE)}/verify`, { token: FOREIGN.token, body: { token: 1, instance: "w1" } });
      for (const r of [status, verify]) {
        expect(r.status).toBe(404);
        expect(r.text).toBe(missing.text);
      }
      // Nothing of the lease in any answer it got.
      for (const r of [status, verify]) for (const secret of [WRITER.login, "w1"]) expect(r.text).not.toContain(secret);

      // A token that may read the issues (not write them) sees who holds it.
      const read = await call(server, "GET", leasePath(1, PRIVATE), { token: READER.token });
      expect(read.body).toMatchObject({ outcome: "status", holder: { login: WRITER.login, instance: "w1" }, token: 1 });
      expect(live.fake.unmatched).toEqual([]);
    }), 120_000);
});
