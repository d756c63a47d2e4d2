/**
 * The runner's protocol as the action speaks it (inputs by the runner's
 * variable names, file commands read back as the runner reads them, workflow
 * commands escaped) and the inputs read into settings, in-process.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { escapeData, error, input, mask, type RunnerIo, saveState, setOutput } from "../../src/action/runner.js";
import { InputError, readSettings } from "../../src/action/settings.js";
import { commentPayload, issuesPayload } from "../support/payloads.js";
import { inputVariable, readFileCommands, workflowCommands } from "./actions-runner.js";

const dir = mkdtempSync(join(tmpdir(), "issue-leases-action-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(env: Record<string, string>): RunnerIo & { lines: string[] } {
  const lines: string[] = [];
  return { env, lines, log: (line) => lines.push(line) };
}

function withInputs(inputs: Record<string, string>, env: Record<string, string> = {}): RunnerIo & { lines: string[] } {
  const e: Record<string, string> = { GITHUB_REPOSITORY: "octo-org/widgets", ...env };
  for (const [name, value] of Object.entries(inputs)) e[inputVariable(name)] = value;
  return io(e);
}

function event(name: string, payload: unknown): Record<string, string> {
  const path = join(dir, `${name}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(payload));
  return { GITHUB_EVENT_NAME: name, GITHUB_EVENT_PATH: path };
}

const base = { url: "https://leases.example.com", token: "ghs_x" };

describe("the runner's protocol", () => {
  it("reads an input by the runner's variable name, trimmed: allow-http is INPUT_ALLOW-HTTP", () => {
    const r = io({ "INPUT_ALLOW-HTTP": " true \n", INPUT_URL: "u" });
    expect(input(r, "allow-http")).toBe("true");
    expect(input(r, "url")).toBe("u");
    expect(input(r, "ttl")).toBe("");
  });

  it("writes outputs and state the runner reads back, a multi-line value whole, the last of a name winning", () => {
    const file = join(dir, "out");
    writeFileSync(file, "");
    const r = io({ GITHUB_OUTPUT: file, GITHUB_STATE: file });
    setOutput(r, "token", "7");
    setOutput(r, "note", "two\nlines\nname=forged");
    saveState(r, "issue", "octo-org/widgets#12");
    saveState(r, "issue", "");
    expect(readFileCommands(readFileSync(file, "utf8"))).toEqual({ token: "7", note: "two\nlines\nname=forged", issue: "" });
    // Each block has its own random delimiter.
    const delimiters = [...readFileSync(file, "utf8").matchAll(/<<(.+)$/gm)].map((m) => m[1]);
    expect(new Set(delimiters).size).toBe(4);
  });

  it("refuses to write where no file is named, rather than lose an output", () => {
    expect(() => setOutput(io({}), "token", "1")).toThrow("GITHUB_OUTPUT is not set: this runs as a step of a GitHub Actions job");
  });

  it("escapes a command's message so that it stays one line: no text of the API can start a command of its own", () => {
    const r = io({});
    error(r, "100% held\n::add-mask::x\r");
    mask(r, "s%cret");
    expect(r.lines).toEqual(["::error::100%25 held%0A::add-mask::x%0D", "::add-mask::s%25cret"]);
    expect(workflowCommands(r.lines.join("\n"))).toEqual([
      { command: "error", message: "100% held\n::add-mask::x\r" },
      { command: "add-mask", message: "s%cret" },
    ]);
    expect(escapeData("a%0A")).toBe("a%250A");
  });
});

describe("the inputs", () => {
  it("take the issue from the event (issues, issue_comment), its repository from the payload", () => {
    const comment = readSettings(withInputs(base, event("issue_comment", commentPayload({ body: "x", issue: 12 }))));
    expect(comment.ref).toEqual({ owner: "Codertocat", repo: "Hello-World", issue: 12 });
    const issue = readSettings(withInputs(base, event("issues", issuesPayload("opened", { issue: 3 }))));
    expect(issue.ref).toEqual({ owner: "Codertocat", repo: "Hello-World", issue: 3 });
  });

  it("take the issue input as owner/repo#N, N or #N (this repository), over the event", () => {
    const ev = event("issue_comment", commentPayload({ body: "x", issue: 12 }));
    expect(readSettings(withInputs({ ...base, issue: "octo-org/gadgets#4" }, ev)).ref).toEqual({ owner: "octo-org", repo: "gadgets", issue: 4 });
    expect(readSettings(withInputs({ ...base, issue: "5" }, ev)).ref).toEqual({ owner: "octo-org", repo: "widgets", issue: 5 });
    expect(readSettings(withInputs({ ...base, issue: "#6" }, ev)).ref).toEqual({ owner: "octo-org", repo: "widgets", issue: 6 });
    expect(() => readSettings(withInputs({ ...base, issue: "widgets 7" }, ev))).toThrow(
      new InputError('issue "widgets 7" is not an issue: write owner/repo#N, or N for an issue of octo-org/widgets'),
    );
  });

  it("default the instance to one per run attempt, job, runner and step, within the API's 40 characters", () => {
    const ev = event("issue_comment", commentPayload({ body: "x", issue: 12 }));
    const job = { GITHUB_RUN_ID: "12345678901", GITHUB_RUN_ATTEMPT: "2", GITHUB_JOB: "fix", RUNNER_NAME: "GitHub Actions 3", GITHUB_ACTION: "lease" };
    const a = readSettings(withInputs(base, { ...ev, ...job })).instance;
    expect(a).toMatch(/^gha-12345678901-2-[0-9a-f]{8}$/);
    expect(a.length).toBeLessThanOrEqual(40);
    expect(readSettings(withInputs(base, { ...ev, ...job })).instance).toBe(a);
    // A matrix's jobs share the job id, not the runner; two uses of the action in a job differ by step.
    expect(readSettings(withInputs(base, { ...ev, ...job, RUNNER_NAME: "GitHub Actions 4" })).instance).not.toBe(a);
    expect(readSettings(withInputs(base, { ...ev, ...job, GITHUB_ACTION: "lease2" })).instance).not.toBe(a);
    expect(readSettings(withInputs({ ...base, instance: "worker-3" }, { ...ev, ...job })).instance).toBe("worker-3");
  });

  it("read durations and booleans, and name the input of a mistake", () => {
    const ev = event("issue_comment", commentPayload({ body: "x", issue: 12 }));
    const s = readSettings(withInputs({ ...base, ttl: "30m", wait: "10m", grace: "5s", command: "make", "allow-http": "false" }, ev));
    expect(s).toMatchObject({ ttl: "30m", waitMs: 600_000, graceMs: 5_000, command: "make", allowHttp: false });
    expect(readSettings(withInputs({ ...base, wait: "0", grace: "" }, ev))).toMatchObject({ waitMs: 0, graceMs: 10_000, command: null, ttl: undefined });
    expect(() => readSettings(withInputs({ ...base, ttl: "soon" }, ev))).toThrow('ttl "soon" is not a duration: use 30s, 45m, 2h, 3d or 2w');
    expect(() => readSettings(withInputs({ ...base, wait: "forever" }, ev))).toThrow('wait "forever" is not a duration: use 30s, 10m or 1h');
    expect(() => readSettings(withInputs({ ...base, "allow-http": "yes" }, ev))).toThrow('allow-http "yes" is not a boolean: write true or false');
    // watch: on unless turned off.
    expect([s.watch, readSettings(withInputs({ ...base, watch: "false" }, ev)).watch, readSettings(withInputs({ ...base, watch: "True" }, ev)).watch]).toEqual([true, false, true]);
    expect(() => readSettings(withInputs({ ...base, watch: "off" }, ev))).toThrow('watch "off" is not a boolean: write true or false');
    expect(() => readSettings(withInputs({ ...base, token: "" }, ev))).toThrow(/^the token input is empty: leave it out for the workflow's GITHUB_TOKEN/);
    expect(() => readSettings(withInputs({ ...base, url: "" }, ev))).toThrow(/^the url input is empty/);
    const http = readSettings(withInputs({ ...base, url: "http://leases.internal:3000", "allow-http": "true" }, ev));
    expect(http.url.href).toBe("http://leases.internal:3000/");
  });
});
