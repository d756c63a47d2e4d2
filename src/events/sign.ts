/**
 * How an outgoing webhook is signed: as the Standard Webhooks specification
 * says (https://www.standardwebhooks.com/), so that its published libraries
 * verify it. `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`: the delivery's id (the same on
 * every retry, a receiver's de-duplication key) and the time of the try are
 * signed with the body, so a captured delivery cannot be sent again under a
 * new id, nor as new after the receiver's tolerance.
 *
 * Each installation has a key of its own, derived from the operator's
 * `EVENTS_WEBHOOK_SECRET` (HKDF-SHA256, the installation's id in its info):
 * a receiver holding one installation's key can forge nothing for another's.
 * The operator shows a key with `issue-leases webhook-key` and gives it to
 * that installation's maintainers; `EVENTS_WEBHOOK_SECRET` itself is given
 * to no one, as every key follows from it.
 */
import { createHmac, hkdfSync } from "node:crypto";

export const ID_HEADER = "webhook-id";
export const TIMESTAMP_HEADER = "webhook-timestamp";
export const SIGNATURE_HEADER = "webhook-signature";

/** A key as the spec writes a symmetric secret for people to copy: `whsec_` and its base64. */
export const KEY_PREFIX = "whsec_";

// The label of this derivation: another scheme, or keys rotated one day, gets another label and so other keys.
const KEY_INFO = "issue-leases webhook key v1:installation:";

/** The 32-byte key that signs `installation`'s deliveries. */
export function installationKey(secret: string, installation: number): Buffer {
  if (!Number.isSafeInteger(installation) || installation <= 0) throw new Error(`no webhook key for installation ${installation}`);
  return Buffer.from(hkdfSync("sha256", secret, Buffer.alloc(0), `${KEY_INFO}${installation}`, 32));
}

/** `whsec_<base64>`: the key as the operator hands it over and a receiver configures it. */
export function keyText(key: Buffer): string {
  return `${KEY_PREFIX}${key.toString("base64")}`;
}

/** `v1,<base64>`: the signature of a delivery with id `id`, tried at `timestamp` (seconds), of the raw `body`. */
export function signDelivery(key: Buffer, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64")}`;
}
