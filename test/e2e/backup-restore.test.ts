/**
 * Back up and restore as an operator does, around the real server: a backup
 * taken with the CLI while the app is answering deliveries, more claims
 * after it, then the app stopped, the old backup restored, and the app
 * started again on it. No token is handed out twice.
 */
import { describe, expect, it } from "vitest";
import { ROOT, runBuiltCli } from "../support/cli-process.js";
import { alice, bob, type UserSpec } from "../support/payloads.js";
import { waitFor } from "../support/server-process.js";
import { replies } from "./issue-view.js";
import { withLiveApp } from "./live-app.js";

const carol: UserSpec = { login: "carol", id: 1005, association: "CONTRIBUTOR" };

const cli = (args: string[]) => runBuiltCli(args, ROOT);

const tokens = (fake: Parameters<typeof replies>[0], issue: number) =>
  replies(fake, issue).filter((r) => r.outcome === "acquired").map((r) => r.token!);

describe("backup and restore around the running app", () => {
  it("a backup taken while deliveries are answered, restored later: every issue's next token is above every token handed out", () =>
    withLiveApp(async (live) => {
      const { fake } = live;
      const backup = `${live.dbFile}.backup`;
      const first = await live.start();
      await live.comment(first, "/claim", alice, 1);
      await live.comment(first, "/claim", bob, 2);
      await waitFor("the first claims", () => tokens(fake, 1).length === 1 && tokens(fake, 2).length === 1);

      // Deliveries keep coming while the CLI copies the ledger (a few: each
      // costs GitHub writes at the throttle's real pace).
      let stop = false;
      let answered = 0;
      const traffic = (async () => {
        for (let i = 0; !stop && i < 6; i++) {
          await live.comment(first, i % 2 ? "/release" : "/claim", carol, 3);
          answered++;
          await new Promise((r) => setTimeout(r, 100));
        }
      })();
      await waitFor("traffic", () => answered >= 2);
      const copied = await cli(["backup", backup, "--database", live.dbFile]);
      const during = answered;
      stop = true;
      await traffic;
      expect(copied.stderr).toBe("");
      expect(copied.code).toBe(0);
      expect(during).toBeGreaterThan(0);

      // After the backup: more tenures, and an issue the backup never saw.
      await live.settled(first, 120_000);
      await live.comment(first, "/release", alice, 1);
      await live.comment(first, "/claim", bob, 1);
      await live.comment(first, "/claim", alice, 4);
      await waitFor("the later claims", () => tokens(fake, 1).length === 2 && tokens(fake, 4).length === 1, 60_000);
      await live.settled(first, 120_000);
      const before = [1, 2, 3, 4].flatMap((n) => tokens(fake, n));
      first.kill("SIGTERM");
      expect((await first.exited).code).toBe(0);

      const restored = await cli(["restore", backup, "--database", live.dbFile]);
      expect(restored.stderr).toBe("");
      expect(restored.code).toBe(0);

      const second = await live.start();
      await live.comment(second, "/release", bob, 1); // bob held #1 after the backup; the backup says alice does
      await live.comment(second, "/release", alice, 1);
      await live.comment(second, "/release", carol, 3); // carol may have held #3 when the backup was taken
      for (const n of [1, 3, 4, 5]) await live.comment(second, "/claim", { ...carol, login: `carol${n}`, id: 2000 + n }, n);
      const claimedAgain = () => [1, 3, 4, 5].every((n) => replies(fake, n).some((r) => r.holder === `carol${n}` && r.outcome === "acquired"));
      await waitFor("the claims after the restore", claimedAgain, 90_000);
      await live.settled(second, 120_000);
      const highest = Math.max(...before);
      for (const n of [1, 3, 4, 5]) {
        const after = replies(fake, n).filter((r) => r.holder === `carol${n}` && r.outcome === "acquired");
        expect(after).toHaveLength(1);
        expect(after[0]!.token, `issue ${n}`).toBeGreaterThan(highest);
      }
      // Effects the backup still held (carol's traffic) were applied after it: replayed after the
      // restore, they looked for their replies first, and posted none twice.
      for (const n of [1, 2, 3, 4, 5]) live.expectOneReplyEach(n, replies(fake, n).length);
    }), 300_000);
});
