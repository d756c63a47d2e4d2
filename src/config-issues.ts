/**
 * A config that does not validate, told as one message: each problem with
 * the key it is under (an unknown key with the one probably meant), the
 * file named once, and a long list cut short.
 */
import type { z } from "zod";
import { keyList, safeKey } from "./config-echo.js";
import { configShape, labelsShape } from "./config-schema.js";

// More problems than this are summarised, so a pasted wrong file gets a short reply.
const PROBLEMS_MAX = 10;

/** The message for zod's `issues` with `raw`, the parsed YAML, in a file shown to users as `file`. */
export function formatIssues(file: string, issues: readonly z.core.$ZodIssue[], raw: unknown): string {
  const problems: string[] = [];
  for (const issue of issues) {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") {
      const known = path.length === 0 ? Object.keys(configShape) : path[0] === "labels" ? Object.keys(labelsShape) : [];
      for (const key of issue.keys) problems.push(line([...path, safeKey(key)], unknownKey(key, known)));
      continue;
    }
    let message = issue.message;
    const params: Record<string, unknown> = issue.code === "custom" ? (issue.params ?? {}) : {};
    if (typeof params["value"] === "string" && typeof params["rest"] === "string" && !hasKey(raw, "default_ttl")) {
      message = `is ${params["value"]} (the default), ${params["rest"]}`;
    }
    problems.push(line(path, message));
  }
  if (problems.length === 0) problems.push(line([], "is not valid."));

  if (problems.length === 1) return `\`${file}\`: ${problems[0]}`;
  const shown = problems.slice(0, PROBLEMS_MAX).map((p) => `- ${p}`);
  if (problems.length > PROBLEMS_MAX) shown.push(`- and ${problems.length - PROBLEMS_MAX} more.`);
  return `\`${file}\` has ${problems.length} problems:\n${shown.join("\n")}`;
}

function line(path: string[], message: string): string {
  // A path may hold a user's key (a label name under `limits_by_label`): no backticks.
  return path.length === 0 ? message : `\`${path.map(safeKey).join(".")}\`: ${message}`;
}

function unknownKey(key: string, known: string[]): string {
  const guess = closest(key, known);
  if (guess !== null) return `unknown key; did you mean \`${guess}\`?`;
  return known.length > 0 ? `unknown key; the keys here are ${keyList(known)}.` : "unknown key.";
}

/** A known key the user probably meant: same letters ignoring case and `_`/`-`, or at most two edits away. */
function closest(key: string, known: string[]): string | null {
  if (key.length > 60) return null;
  const squash = (s: string) => s.toLowerCase().replace(/[_\-\s]/g, "");
  for (const k of known) if (squash(k) === squash(key)) return k;
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitute = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitute));
    }
    previous = current;
  }
  return previous[b.length]!;
}

function hasKey(raw: unknown, key: string): boolean {
  return typeof raw === "object" && raw !== null && Object.prototype.hasOwnProperty.call(raw, key);
}
