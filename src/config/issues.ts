/**
 * A config that does not validate, told as one message: each problem with
 * the key it is under (an unknown key with the one probably meant), the
 * file named once, and a long list cut short.
 *
 * A problem in a file other than the repository's own (`_extends`, the
 * organisation's `.github`) names that file and the line instead of showing
 * what is written there: the commenter may not be able to read it. Only the
 * rule is said, and only the config's own key names (never a user's key).
 *
 * The same problems, one by one with where each is written, make the lines
 * of a config check (`listProblems`, config-check.ts).
 */
import type { z } from "zod";
import { keyList, safeKey, showValues } from "./echo.js";
import { configShape, labelsShape } from "./schema.js";
import { TARGET_KEYS } from "./webhooks-field.js";

// More problems than this are summarised, so a pasted wrong file gets a short reply.
const PROBLEMS_MAX = 10;

/**
 * Where a value of the merged config was written: in the repository's own
 * file, or elsewhere (a file's name as a reply shows it, and as a check's
 * lines name it, `owner/repo:path`); with its position when it is written there.
 */
export type Site =
  | { own: true; line?: number; column?: number }
  | { own: false; file: string; source: string; line?: number; column?: number };
/** The site of the value at a path of the config (a key of the file, or below one). */
export type Locate = (path: readonly PropertyKey[]) => Site;

const OWN: Locate = () => ({ own: true });

/** One problem of a config, in words its readers may see. */
export interface ConfigProblem {
  /** All in the repository's own file: values are shown. */
  own: boolean;
  /** The files a reply names: those that set the keys involved. */
  sites: Site[];
  /** Where a check puts it: the value the problem is about, then each other key involved (`min_ttl` against `max_ttl`). */
  places: Site[];
  /** `` `key.path`: message ``, without the file. */
  text: string;
}

/**
 * The problems of zod's `issues` with `raw`, the parsed YAML; `locate` says
 * where each value came from. At most `max` are worked out (a guess per
 * unknown key costs an edit distance); `more` counts the rest.
 */
export function listProblems(
  issues: readonly z.core.$ZodIssue[],
  raw: unknown,
  locate: Locate = OWN,
  max = Infinity,
): { problems: ConfigProblem[]; more: number } {
  const problems: ConfigProblem[] = [];
  let more = 0;
  const full = () => problems.length >= max;
  const add = (sites: Site[], places: Site[], path: PropertyKey[], message: string) => {
    const own = sites.every((s) => s.own);
    problems.push({ own, sites, places, text: line(path, showValues(message, own), own) });
  };
  for (const issue of issues) {
    if (full()) {
      more += issue.code === "unrecognized_keys" ? issue.keys.length : 1;
      continue;
    }
    const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
    if (issue.code === "unrecognized_keys") {
      const known = path.length === 0 ? Object.keys(configShape) : path[0] === "labels" ? Object.keys(labelsShape) : path[0] === "webhooks" ? [...TARGET_KEYS] : [];
      for (const key of issue.keys) {
        if (full()) {
          more++;
          continue;
        }
        const site = locate([...path, key]);
        add([site], [site], site.own ? [...path, key] : path, unknownKey(site.own ? key : null, known));
      }
      continue;
    }
    let message = issue.message;
    const params: Record<string, unknown> = issue.code === "custom" ? (issue.params ?? {}) : {};
    if (typeof params["value"] === "string" && typeof params["rest"] === "string" && !hasKey(raw, "default_ttl")) {
      message = `is ${params["value"]} (the default), ${params["rest"]}`;
    }
    // A problem of several keys (`min_ttl` against `max_ttl`) is in each file that set one of them.
    const keys = Array.isArray(params["keys"]) ? (params["keys"] as string[]).map((k) => [k]) : [path];
    const sites = keys.map(locate);
    // A check marks the value itself, then each other key (not the key the value is under: `exempt_labels` of `exempt_labels.1`).
    const others = keys.filter((k) => k.some((segment, i) => segment !== path[i]));
    add(sites, [locate(path), ...others.map(locate)], path, message);
  }
  return { problems, more };
}

/** The message for zod's `issues` with `raw`, the parsed YAML, in a file shown to users as `file`; `locate` says where each value came from. */
export function formatIssues(file: string, issues: readonly z.core.$ZodIssue[], raw: unknown, locate: Locate = OWN): string {
  // A long list is cut short: a pasted wrong file gets a short reply.
  const { problems: listed, more } = listProblems(issues, raw, locate, PROBLEMS_MAX);
  const problems = listed.map((p) => {
    const elsewhere = p.sites.filter((s): s is Extract<Site, { own: false }> => !s.own);
    return { own: p.own, text: p.own ? p.text : `${[...new Set(elsewhere.map(siteName))].join(" and ")}: ${p.text}` };
  });
  if (problems.length === 0) problems.push({ own: true, text: line([], "is not valid.", true) });

  if (problems.length === 1 && more === 0) {
    const [only] = problems as [{ own: boolean; text: string }];
    return only.own ? `\`${file}\`: ${only.text}` : only.text;
  }
  const shown = problems.map((p) => `- ${p.text}`);
  if (more > 0) shown.push(`- and ${more} more.`);
  const header = problems.every((p) => p.own) ? `\`${file}\`` : "This repository's config";
  return `${header} has ${problems.length + more} problems:\n${shown.join("\n")}`;
}

function siteName(site: Extract<Site, { own: false }>): string {
  if (site.line === undefined) return site.file;
  return `${site.file}, line ${site.line}${site.column === undefined ? "" : `, column ${site.column}`}`;
}

function line(path: PropertyKey[], message: string, own: boolean): string {
  const shown = own ? path.map((p) => safeKey(String(p))) : knownPart(path);
  // A path may hold a user's key (a label name under `limits_by_label`): no backticks.
  return shown.length === 0 ? message : `\`${shown.join(".")}\`: ${message}`;
}

/** The part of a path that is the config's own words (its keys, list positions), up to the first key a user wrote. */
function knownPart(path: PropertyKey[]): string[] {
  const shown: string[] = [];
  for (const [i, p] of path.entries()) {
    const known =
      typeof p === "number" ||
      (i === 0 && Object.hasOwn(configShape, p)) ||
      (i === 1 && path[0] === "labels" && Object.hasOwn(labelsShape, p)) ||
      (i === 2 && path[0] === "webhooks" && (TARGET_KEYS as readonly PropertyKey[]).includes(p));
    if (!known) break;
    shown.push(String(p));
  }
  return shown;
}

/** `key` null: an unknown key not to be named (its file is not the repository's own). */
function unknownKey(key: string | null, known: string[]): string {
  const guess = key === null ? null : closest(key, known);
  if (guess !== null) return `unknown key; did you mean \`${guess}\`?`;
  const what = key === null ? "a key that is not one of the config's" : "unknown key";
  return known.length > 0 ? `${what}; the keys here are ${keyList(known)}.` : `${what}.`;
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
