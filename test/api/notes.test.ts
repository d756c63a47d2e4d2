/**
 * A note for the people reading the issue: a claim's body (`note`) and a
 * release's `?note=`; a renewal posts no reply, so its body takes none. Bad
 * notes are a 422 naming the field, before anything is asked of GitHub.
 */
import { describe, expect, it } from "vitest";
import { leaseRequest, releaseParams } from "../../src/api/requests.js";

describe("notes in API requests", () => {
  it("a claim takes a note, trimmed; a renewal refuses one", () => {
    expect(leaseRequest('{"ttl":"2h","note":"  taking the parser bug  "}', "claim")).toEqual({ ttl: 7_200_000, note: "taking the parser bug" });
    expect(leaseRequest('{"note":"x"}', "renew")).toMatchObject({ status: 422, body: { error: { code: "invalid_body", message: "unknown key `note`." } } });
  });

  it("refuses an empty note or one over 200 characters, naming the field", () => {
    expect(leaseRequest('{"note":"   "}', "claim")).toMatchObject({ status: 422, body: { error: { message: "`note` must not be empty." } } });
    expect(leaseRequest(JSON.stringify({ note: "x".repeat(201) }), "claim")).toMatchObject({ status: 422, body: { error: { message: "`note` must be at most 200 characters." } } });
  });

  it("a release takes ?note= beside ?instance=", () => {
    expect(releaseParams(new URLSearchParams("instance=w-3&note=done%2C+see+%2314"))).toEqual({ instance: "w-3", note: "done, see #14" });
    expect(releaseParams(new URLSearchParams(`note=${"y".repeat(201)}`))).toMatchObject({ status: 422 });
    expect(releaseParams(new URLSearchParams(""))).toEqual({});
  });
});
