/**
 * deploy/issue-leases.service: the keys the manual's Deploy page (docs/operators/deploy.md) relies
 * on, parsed always; `systemd-analyze verify` as well where systemd is.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { isAbsolute, join, posix } from "node:path";
import { parseEnv } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/server-process.js";

const UNIT = join(ROOT, "deploy/issue-leases.service");

/** Section -> key -> values (a key may repeat, as Environment= does). */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | undefined;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (!current || eq < 1) throw new Error(`not a key=value line in a section: ${raw}`);
    const key = line.slice(0, eq).trim();
    current.set(key, [...(current.get(key) ?? []), line.slice(eq + 1).trim()]);
  }
  return sections;
}

/**
 * The environment the service runs with, as systemd builds it: Environment= assignments in order (a later one wins),
 * then each EnvironmentFile=, whose settings override Environment= wherever they are written (systemd.exec(5)).
 */
function serviceEnvironment(service: Map<string, string[]>, files: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const assignment of service.get("Environment") ?? []) {
    const eq = assignment.indexOf("=");
    env[assignment.slice(0, eq)] = assignment.slice(eq + 1);
  }
  for (const file of service.get("EnvironmentFile") ?? []) Object.assign(env, parseEnv(files[file.replace(/^-/, "")] ?? ""));
  return env;
}

/** Where a service under ProtectSystem=strict may write: its StateDirectory= (under /var/lib) and ReadWritePaths=. */
function writablePaths(service: Map<string, string[]>): string[] {
  const state = (service.get("StateDirectory") ?? []).flatMap((v) => v.split(/\s+/)).map((d) => `/var/lib/${d}`);
  return [...state, ...(service.get("ReadWritePaths") ?? []).flatMap((v) => v.split(/\s+/))];
}

const hasSystemdAnalyze = spawnSync("systemd-analyze", ["--version"]).status === 0;

describe("deploy/issue-leases.service", () => {
  const unit = parseUnit(readFileSync(UNIT, "utf8"));
  const service = unit.get("Service")!;

  it("starts what npm start runs, from the environment file, and restarts on failure", () => {
    expect(service.get("ExecStart")).toEqual(["/usr/bin/node dist/src/startup/start.js"]);
    expect(readFileSync(join(ROOT, "package.json"), "utf8")).toContain('"start": "node dist/src/startup/start.js"');
    expect(service.get("EnvironmentFile")).toHaveLength(1);
    expect(service.get("Environment")).toContain("NODE_ENV=production");
    expect(service.get("Restart")).toEqual(["on-failure"]);
  });

  it("stops with SIGTERM, which the app handles, and keeps the SQLite file in its state directory", () => {
    expect(service.get("KillSignal")).toEqual(["SIGTERM"]);
    expect(service.get("StateDirectory")).toEqual(["issue-leases"]);
    expect(service.get("Environment")).toContain("DATABASE_URL=/var/lib/issue-leases/leases.db");
    expect(service.get("NoNewPrivileges")).toEqual(["true"]);
    expect(unit.get("Install")?.get("WantedBy")).toEqual(["multi-user.target"]);
  });

  it("keeps the ledger under its writable state directory when its environment file is .env.example, as its comment says", () => {
    expect(service.get("ProtectSystem")).toEqual(["strict"]);
    const [file] = service.get("EnvironmentFile")!;
    const example = readFileSync(join(ROOT, ".env.example"), "utf8");
    // The file as the unit reads it, and the same file copied to the working directory's .env (npm start applies it over the environment).
    for (const env of [serviceEnvironment(service, { [file!]: example }), { ...serviceEnvironment(service, {}), ...parseEnv(example) }]) {
      const url = env["DATABASE_URL"];
      expect(url).toBeDefined();
      const path = isAbsolute(url!) ? url! : posix.join(service.get("WorkingDirectory")![0]!, url!);
      expect(writablePaths(service).some((dir) => path.startsWith(`${dir}/`)), `DATABASE_URL ${url} (${path})`).toBe(true);
    }
  });

  it.runIf(hasSystemdAnalyze)("passes systemd-analyze verify", () => {
    // verify checks that ExecStart's program exists, and reads the EnvironmentFile only at start.
    const out = execFileSync("systemd-analyze", ["verify", UNIT], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    expect(out).toBe("");
  });
});
