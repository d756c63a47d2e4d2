import { describe, expect, it } from "vitest";
import { assertWebhookSecret } from "../../src/settings/webhook-secret.js";

describe("assertWebhookSecret", () => {
  it.each(["", "  ", "development", "secret", "Test"])("refuses %j in production, saying how to fix it", (secret) => {
    expect(() => assertWebhookSecret({ NODE_ENV: "production", WEBHOOK_SECRET: secret })).toThrow(/openssl rand -hex 32.*WEBHOOK_SECRET/);
  });

  it("refuses a missing secret when NODE_ENV is unset", () => {
    expect(() => assertWebhookSecret({})).toThrow("WEBHOOK_SECRET is empty");
  });

  it("accepts a secret of one's own, and any secret under NODE_ENV=development or test", () => {
    expect(() => assertWebhookSecret({ WEBHOOK_SECRET: "3f9c0a1e7d" })).not.toThrow();
    expect(() => assertWebhookSecret({ NODE_ENV: "development", WEBHOOK_SECRET: "development" })).not.toThrow();
    expect(() => assertWebhookSecret({ NODE_ENV: "test" })).not.toThrow();
  });
});
