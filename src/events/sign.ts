/**
 * The signature of an outgoing webhook, made like GitHub's own
 * (`X-Hub-Signature-256`): `sha256=` and the hex HMAC-SHA256 of the raw body
 * under the operator's `EVENTS_WEBHOOK_SECRET`. A receiver computes the same
 * over the bytes it received and compares in constant time (README, "Lease events").
 */
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Issue-Leases-Signature-256";

/** `sha256=<hex>` of `body` under `secret`. */
export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body, "utf8").digest("hex")}`;
}

/** Whether `signature` is `body`'s under `secret` (constant time). */
export function verifyBody(secret: string, body: string, signature: string): boolean {
  const want = Buffer.from(signBody(secret, body));
  const got = Buffer.from(signature);
  return want.length === got.length && timingSafeEqual(want, got);
}
