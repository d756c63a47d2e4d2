/**
 * A delivery that fails because GitHub cannot be reached, on the real
 * server: answered 500 with what it was waiting for (not a guess about the
 * database), the cause logged with the delivery's id, its event and GitHub's
 * host, in a few lines, none with the payload.
 */
import { describe, expect, it } from "vitest";
import { defaultLayout, restUrlFor } from "../support/fake-github.js";
import { alice, commentPayload } from "../support/payloads.js";
import { logLines, startServer, waitFor } from "../support/server-process.js";
import { tempDir } from "./issue-view.js";

describe("A delivery GitHub cannot be reached for", () => {
  it("is answered 500 saying it waits for GitHub (ENOTFOUND, the host), logged in a few lines with the delivery id and no payload", async () => {
    const tmp = tempDir();
    // A name that never resolves (RFC 2606): the name lookup of GitHub's host fails.
    const server = await startServer({ fake: { host: "github.invalid" }, dbFile: tmp.db });
    try {
      const id = "0d0d0d0d-0000-4000-8000-00000000000e";
      const marker = "PAYLOADMARKER7";
      const before = logLines(server, 0).length;
      const status = await server.send("issue_comment", commentPayload({ body: `/claim 2h\n\n${marker}`, author: alice }), { id });
      expect(status).toBe(500);
      // The database was fine all along.
      const health = await server.health();
      expect(health.body).toMatchObject({ status: "ok", database: true });

      const lines = await waitFor("the delivery's request line", () => {
        const all = logLines(server, 0).slice(before);
        return all.some((l) => /^POST \/api\/github\/webhooks 500/.test(String(l.msg))) && all;
      });
      const failure = lines.filter((l) => l.level >= 50);
      expect(failure).toHaveLength(1);
      const [line] = failure;
      expect(line!.id).toBe(id);
      expect(line!.err).toMatchObject({
        type: "DeliveryFailed",
        status: 500,
        delivery: id,
        webhook: "issue_comment.created",
        code: "ENOTFOUND",
        github: expect.stringMatching(new RegExp(`^POST ${restUrlFor("github.invalid", defaultLayout()).replace(/[./]/g, "\\$&")}\\/app\\/installations\\/\\d+\\/access_tokens$`)),
      });
      // Octokit is waiting to retry the request, or (on a slow day) trying it again.
      expect(line!.msg).toMatch(
        /^not handled within 7000 ms, waiting (to retry a GitHub request: |for GitHub to answer ).*POST http:\/\/github\.invalid\/\S+ failed: getaddrinfo ENOTFOUND github\.invalid\)?; GitHub may redeliver$/,
      );
      expect(line!.msg).not.toMatch(/database/);
      // What the delivery wrote by the time it was answered: that line, and Probot's line for the request.
      expect(lines.filter((l) => !/^GET \/health /.test(String(l.msg)))).toHaveLength(2);
      // Octokit retries on for minutes; the payload is in nothing it or anything else wrote.
      expect(server.stdout()).not.toContain(marker);
      expect(server.stderr()).not.toContain(marker);
    } finally {
      await server.stop();
      tmp.remove();
    }
  }, 60_000);
});
