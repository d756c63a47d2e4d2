/** The stream's settings from the environment: the defaults, and a wrong value refused naming its variable. */
import { describe, expect, it } from "vitest";
import { eventStreamSettings } from "../../src/settings/http-settings.js";

describe("the event stream's settings", () => {
  it("defaults to a 15 s heartbeat, a 5 s poll, 1000 streams, 10 per address, 100 per account, 1 MiB per client", () => {
    expect(eventStreamSettings({})).toEqual({
      heartbeatMs: 15_000,
      pollMs: 5_000,
      maxStreams: 1_000,
      maxStreamsPerAddress: 10,
      maxStreamsPerCaller: 100,
      clientBufferBytes: 1_048_576,
    });
    expect(eventStreamSettings({ EVENTS_HEARTBEAT_MS: " 200 ", EVENTS_STREAMS_PER_ADDRESS: "0", EVENTS_STREAMS_PER_CALLER: "3", EVENTS_POLL_MS: "" })).toMatchObject({
      heartbeatMs: 200,
      maxStreamsPerAddress: 0,
      maxStreamsPerCaller: 3,
      pollMs: 5_000,
    });
  });

  it.each([
    ["EVENTS_HEARTBEAT_MS", "fast"],
    ["EVENTS_HEARTBEAT_MS", "5"],
    ["EVENTS_POLL_MS", "1.5"],
    ["EVENTS_STREAMS_MAX", "-1"],
    ["EVENTS_STREAMS_PER_CALLER", "many"],
    ["EVENTS_CLIENT_BUFFER_BYTES", "100"],
  ])("refuses %s=%s, naming it", (name, value) => {
    expect(() => eventStreamSettings({ [name]: value })).toThrow(new RegExp(`^${name} must be .*; it is "${value.replace(".", "\\.")}"$`));
  });
});
