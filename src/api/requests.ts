/**
 * What a request to the API says, validated: the path's repository and
 * issue, the JSON body (at most 16 KiB), the `instance`, the
 * `Idempotency-Key`. Anything malformed is an Answer (422, 413) before
 * anything is asked of GitHub or the ledger.
 */
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { DURATION_FORMS, parseDuration } from "../commands/parse-duration.js";
import { readCappedBody, TOO_LARGE } from "../webhooks/read-capped-body.js";
import { type Answer, errorAnswer, NOT_FOUND } from "./answers.js";

export const MAX_BODY_BYTES = 16 * 1024;

/** A worker's name: short, and nothing that could mention someone or break markdown where it is shown. */
export const INSTANCE_PATTERN = /^[A-Za-z0-9._-]{1,40}$/;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
// GitHub's own limits on owner and repository names.
export const NAME_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

export const instance = z
  .string()
  .regex(INSTANCE_PATTERN, "must be 1 to 40 letters, digits, `.`, `_` or `-`")
  .nullable()
  .optional();

/** A line for the people reading the issue, shown in the app's reply (as a code span: no mention, no markdown). */
export const MAX_NOTE_CHARS = 200;
const note = z.string().trim().min(1, "must not be empty").max(MAX_NOTE_CHARS, `must be at most ${MAX_NOTE_CHARS} characters`).optional();

const renewBody = z.strictObject({
  ttl: z.string().max(40).nullable().optional(),
  instance,
});

const claimBody = renewBody.extend({ note });

const verifyBody = z.strictObject({
  token: z.number().int().positive(),
  instance,
});

export interface IssueRef {
  owner: string;
  name: string;
  issue: number;
}

/**
 * The issue a path names, or the 422 that says what is wrong with it: a
 * name GitHub would not accept, or a number that is not an issue number, can
 * never succeed, so it is answered before GitHub is asked who the caller is
 * (whether such a name exists is nobody's secret). The path's text is not
 * echoed back.
 */
export function issueRef(owner: string, name: string, number: string): IssueRef | Answer {
  let o: string | null;
  let n: string | null;
  try {
    o = decodeURIComponent(owner);
    n = decodeURIComponent(name);
  } catch {
    o = n = null;
  }
  if (o === null || n === null || !NAME_PATTERN.test(o) || !NAME_PATTERN.test(n)) {
    return errorAnswer(422, "invalid_path", "The path's owner and repository must each be 1 to 100 letters, digits, `.`, `_` or `-`, as GitHub's names are.");
  }
  if (!/^[1-9]\d{0,9}$/.test(number) || Number(number) > 2 ** 31 - 1) {
    return errorAnswer(422, "invalid_path", "The path's issue number must be a whole number from 1 to 2147483647.");
  }
  return { owner: o, name: n, issue: Number(number) };
}

/** The request's body as text, or the 413 answer when it is over the limit (by its Content-Length, or once that much was read: the rest is not kept). */
export async function readBody(req: IncomingMessage): Promise<string | Answer> {
  const body = await readCappedBody(req, MAX_BODY_BYTES);
  return body === TOO_LARGE ? errorAnswer(413, "body_too_large", `The body is over ${MAX_BODY_BYTES} bytes.`) : body.toString("utf8");
}

export function invalid(error: z.ZodError): Answer {
  const problems = error.issues.map((i) => {
    const at = i.path.length > 0 ? `\`${i.path.join(".")}\`` : "the body";
    if (i.code === "unrecognized_keys") return `unknown key${i.keys.length === 1 ? "" : "s"} ${i.keys.map((k) => `\`${k}\``).join(", ")}`;
    return `${at} ${i.message.replace(/^Invalid input: /, "")}`;
  });
  return errorAnswer(422, "invalid_body", `${problems.join("; ")}.`);
}

export function json(text: string): unknown | Answer {
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return errorAnswer(422, "invalid_body", "The body is not JSON.");
  }
}

const isAnswer = (v: unknown): v is Answer => typeof v === "object" && v !== null && "status" in v && "body" in v;

/**
 * A claim's or renewal's body: `{"ttl", "instance"}`, both optional, and a claim's `note`. `ttl` null: the repository's
 * default.
 */
export function leaseRequest(text: string, op: "claim" | "renew" = "renew"): { ttl: number | null; instance?: string; note?: string } | Answer {
  const raw = json(text);
  if (isAnswer(raw)) return raw;
  const parsed = (op === "claim" ? claimBody : renewBody).safeParse(raw);
  if (!parsed.success) return invalid(parsed.error);
  const { ttl, instance } = parsed.data;
  const written = (parsed.data as { note?: string }).note;
  const said = written !== undefined ? { note: written } : {};
  let ms: number | null = null;
  if (ttl !== undefined && ttl !== null) {
    ms = parseDuration(ttl.trim());
    if (ms === null) return errorAnswer(422, "invalid_ttl", `\`ttl\` is not a duration; use ${DURATION_FORMS}, or leave it out for the repository's default.`);
  }
  return { ttl: ms, ...(instance ? { instance } : {}), ...said };
}

export function verifyRequest(text: string): { token: number; instance?: string } | Answer {
  const raw = json(text);
  if (isAnswer(raw)) return raw;
  const parsed = verifyBody.safeParse(raw);
  if (!parsed.success) return invalid(parsed.error);
  return { token: parsed.data.token, ...(parsed.data.instance ? { instance: parsed.data.instance } : {}) };
}

/** `?instance=` and `?note=` of a release. */
export function releaseParams(params: URLSearchParams): { instance?: string; note?: string } | Answer {
  const value = params.get("instance");
  const text = params.get("note")?.trim();
  if (value !== null && value !== "" && !INSTANCE_PATTERN.test(value)) return errorAnswer(422, "invalid_body", "`instance` must be 1 to 40 letters, digits, `.`, `_` or `-`.");
  if (text !== undefined && text.length > MAX_NOTE_CHARS) return errorAnswer(422, "invalid_body", `\`note\` must be at most ${MAX_NOTE_CHARS} characters.`);
  return { ...(value ? { instance: value } : {}), ...(text ? { note: text } : {}) };
}

/** `?wait=` of a claim: `true` waits in line when the issue is held; absent or `false`, it does not. */
export function waitParam(value: string | null): boolean | Answer {
  if (value === null || value === "false") return false;
  if (value === "true") return true;
  return errorAnswer(422, "invalid_body", "`wait` must be `true` or `false`.");
}

/** The Idempotency-Key header: absent, valid, or a 422. */
export function idempotencyKey(req: IncomingMessage): string | undefined | Answer {
  const key = req.headers["idempotency-key"];
  if (key === undefined) return undefined;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    return errorAnswer(422, "invalid_idempotency_key", "`Idempotency-Key` must be 1 to 255 visible ASCII characters (a UUID is a good one).");
  }
  return key;
}

export { isAnswer, NOT_FOUND };
