/**
 * The event stream behind replicas: two real App processes on one
 * PostgreSQL schema (test/e2e/pg-cluster.ts). A change made on one replica
 * reaches a stream on the other by the ledger's notice (the poll is set to
 * ten minutes, so nothing else could bring it in time); both replicas'
 * streams carry every replica's events in one order; a client resumes on the
 * other replica with its Last-Event-ID and misses nothing.
 */
import { describe, expect, it } from "vitest";
import { alice, bob, type UserSpec } from "../support/payloads.js";
import { skipPostgres } from "../support/pg-schema.js";
import { openEvents } from "../support/sse.js";
import { comment, withCluster } from "../e2e/pg-cluster.js";

const NO_POLL = { EVENTS_POLL_MS: "600000" };
const user = (i: number): UserSpec => ({ login: `user-${i}`, id: 6001 + i, association: "CONTRIBUTOR" });

describe.skipIf(skipPostgres)("the event stream on several replicas", () => {
  it("a change on one replica reaches a stream on the other; both carry every replica's events in one order; a resume on the other replica misses nothing", () =>
    withCluster(async (c) => {
      const [ra, rb] = await Promise.all([c.start(NO_POLL), c.start(NO_POLL)]);
      const onA = await openEvents(`${ra.url}/api/v1/events`);
      const onB = await openEvents(`${rb.url}/api/v1/events`);
      expect([onA.status, onB.status]).toEqual([200, 200]);

      expect(await ra.send("issue_comment", comment("/claim", alice, 1))).toBe(200);
      await onB.waitForEvents(1, 15_000);
      expect(onB.log.events[0]).toMatchObject({ event: "lease.acquired", data: { issue: 1, holder: { login: "alice", id: alice.id } } });

      // Ten changes at once, spread over both replicas.
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? ra : rb).send("issue_comment", comment("/claim", user(i), 10 + i))),
      );
      expect(statuses).toEqual(Array(10).fill(200));
      expect(await rb.send("issue_comment", comment("/release", alice, 1))).toBe(200);
      await Promise.all([onA.waitForEvents(12, 20_000), onB.waitForEvents(12, 20_000)]);
      expect(onA.log.events).toEqual(onB.log.events);
      const ids = onA.log.ids;
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(new Set(onA.log.events.map((e) => e.data.issue))).toEqual(new Set([1, ...Array.from({ length: 10 }, (_, i) => 10 + i)]));
      expect(onA.log.events.at(-1)).toMatchObject({ event: "lease.released", data: { issue: 1 } });

      // A's client goes away, changes are made on both replicas, and it comes back on B.
      onA.close();
      expect(await ra.send("issue_comment", comment("/claim", bob, 1))).toBe(200);
      expect(await rb.send("issue_comment", comment("/release", user(0), 10))).toBe(200);
      await onB.waitForEvents(14, 20_000);
      const back = await openEvents(`${rb.url}/api/v1/events`, { "last-event-id": onA.log.events.at(-1)!.id });
      await back.waitForEvents(2, 20_000);
      expect([...onA.log.ids, ...back.log.ids]).toEqual(onB.log.ids);
      // And live again: the next change, made on A, reaches it on B.
      expect(await ra.send("issue_comment", comment("/release", bob, 1))).toBe(200);
      await Promise.all([back.waitForEvents(3, 15_000), onB.waitForEvents(15, 15_000)]);
      expect(back.log.events).toEqual(onB.log.events.slice(12));
      for (const s of [onB, back]) s.close();
    }), 150_000);
});
