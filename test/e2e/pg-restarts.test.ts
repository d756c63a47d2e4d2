/**
 * A PostgreSQL replica killed with -9 while it holds the sweep lock: the
 * process started in its place sweeps at once, not once a lock of the dead
 * one has timed out (issue 19). Real processes on a schema of their own.
 */
import { describe, expect, it } from "vitest";
import { alice } from "../support/payloads.js";
import { waitFor } from "../support/server-process.js";
import { FULL, replies } from "./issue-view.js";
import { comment, historyOf, withCluster } from "./pg-cluster.js";

describe.concurrent("PostgreSQL: restarts and the sweep lock", () => {
  it("PostgreSQL: kill -9 while holding the sweep lock, restart, a reminder due 3 s later is sent", () =>
    withCluster(async (c) => {
      const { fake } = c;
      // An 8 s lease reminded 5 s before it ends: the reminder is due 3 s after the claim.
      fake.setConfigFile(FULL, ".github/issue-leases.yml", "min_ttl: 1s\nreminder_before: 5s\n");
      const env = { SWEEP_INTERVAL_MS: "250" };
      const first = await c.start(env);
      // It has swept, so it holds the sweep lock (it keeps it while it lives).
      await waitFor("a first sweep", async () => (await first.health()).body.last_sweep !== null, 30_000, 100);
      first.kill("SIGKILL");
      expect((await first.exited).signal).toBe("SIGKILL");

      const second = await c.start(env);
      expect(await second.send("issue_comment", comment("/claim 8s", alice, 1))).toBe(200);
      // Waited for generously: the expiry reply comes after the reminder, if there is one.
      await waitFor("the expire reply", () => replies(fake, 1).some((x) => x.op === "expire"), 60_000, 200);
      await c.settled(second);

      expect(replies(fake, 1).map((x) => [x.op, x.outcome, x.token])).toEqual([
        ["claim", "acquired", 1],
        ["remind", "reminded", 1],
        ["expire", "expired", 1],
      ]);
      expect((await historyOf(c, 1)).map((x) => [x.op, x.outcome])).toEqual([
        ["acquire", "acquired"],
        ["remind", "reminded"],
        ["expire", "expired"],
      ]);
    }), 120_000);
});
