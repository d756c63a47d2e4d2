/**
 * The OpenAPI document: a valid OpenAPI 3.1 document, served by the server
 * as it is in the repository, and its schemas strict enough to catch an
 * answer that drifted (every answer of the e2e tests is checked against it:
 * api-calls.ts).
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import openapi from "../../src/api/openapi.json" with { type: "json" };
import { withLiveApp } from "../e2e/live-app.js";
import { checkAnswer } from "./openapi-check.js";

const path = "/api/v1/repos/o/r/issues/1/lease";
const lease = { repo: "o/r", issue: 1, holder: { login: "a", id: 1, instance: null }, token: 3, expires_at: "2026-12-01T12:00:00Z" };

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(openapi) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("catches answers that are not what it says", () => {
    expect(() => checkAnswer("POST", path, 200, { outcome: "acquired", ...lease })).not.toThrow();
    expect(() => checkAnswer("POST", path, 200, { outcome: "held", ...lease })).toThrow(/does not match/);
    expect(() => checkAnswer("POST", path, 200, { outcome: "acquired", ...lease, extra: 1 })).toThrow(/does not match/);
    expect(() => checkAnswer("POST", path, 200, { outcome: "acquired", ...lease, expires_at: "tomorrow" })).toThrow(/does not match/);
    expect(() => checkAnswer("POST", path, 418, {})).toThrow(/does not list/);
    expect(() => checkAnswer("GET", path, 404, { error: { code: "not_found", message: "Not Found" } })).not.toThrow();
    expect(() => checkAnswer("GET", path, 404, { error: { code: "nope", message: "Not Found" } })).toThrow(/does not match/);
    expect(() => checkAnswer("POST", `${path}/verify`, 409, { valid: false, lease: null })).not.toThrow();
    expect(() => checkAnswer("POST", `${path}/verify`, 200, { valid: false, lease: null })).toThrow(/does not match/);
  });

  it("is served at /api/v1/openapi.json as it is in the repository", () =>
    withLiveApp(async (live) => {
      const server = await live.start();
      const res = await fetch(`${server.url}/api/v1/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toEqual(openapi);
    }), 60_000);
});
