/**
 * Dockerfile, .dockerignore and compose.yaml: what the manual's Deploy page (docs/operators/deploy.md)
 * relies on, read on every machine. The image itself is built and run by
 * container.test.ts where podman is; compose.yaml's PostgreSQL image cannot
 * be pulled here, so its wiring is checked as written.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../support/server-process.js";

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped, each stage's from its FROM. */
function stages(text: string): { args: Instruction[]; stages: Instruction[][] } {
  const lines = text.split("\n").filter((line) => !/^\s*#/.test(line));
  const joined = lines.join("\n").replace(/\\\n/g, " ");
  const instructions = joined
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const space = line.search(/\s/);
      return { op: line.slice(0, space).toUpperCase(), args: line.slice(space).trim().replace(/\s+/g, " ") };
    });
  const first = instructions.findIndex((i) => i.op === "FROM");
  const result: Instruction[][] = [];
  for (const instruction of instructions.slice(first)) {
    if (instruction.op === "FROM") result.push([]);
    result.at(-1)!.push(instruction);
  }
  return { args: instructions.slice(0, first), stages: result };
}

const args = (stage: Instruction[], op: string) => stage.filter((i) => i.op === op).map((i) => i.args);

describe("Dockerfile", () => {
  const file = stages(readFileSync(join(ROOT, "Dockerfile"), "utf8"));
  const runtime = file.stages.at(-1)!;

  it("builds every stage on NODE_IMAGE, the official slim Node 24 unless given (Node 20's life ended on 2026-04-30)", () => {
    expect(file.args).toEqual([{ op: "ARG", args: "NODE_IMAGE=node:24-bookworm-slim" }]);
    expect(file.stages.map((stage) => stage[0]!.args)).toEqual(["${NODE_IMAGE} AS build", "${NODE_IMAGE} AS deps", "${NODE_IMAGE}"]);
  });

  it("compiles in one stage, installs the production dependencies in another, and copies only their output", () => {
    const [build, deps] = file.stages;
    expect(args(build!, "RUN")).toContain("npm run build");
    expect(args(deps!, "RUN").join(" ")).toContain("npm ci --omit=dev");
    expect(args(runtime, "RUN").join(" ")).not.toMatch(/npm (ci|install)/);
    expect(args(runtime, "COPY")).toEqual(
      expect.arrayContaining(["--from=deps /app/node_modules node_modules", "--from=build /app/dist/src dist/src"]),
    );
  });

  it("runs npm start as uid 10001, the SQLite file on the /data volume, with a HEALTHCHECK on /health through Node's fetch", () => {
    expect(args(runtime, "USER")).toEqual(["10001:10001"]);
    expect(args(runtime, "CMD")).toEqual(['["npm", "start"]']);
    expect(args(runtime, "VOLUME")).toEqual(["/data"]);
    expect(args(runtime, "ENV").join(" ")).toContain("DATABASE_URL=/data/leases.db");
    const [healthcheck] = args(runtime, "HEALTHCHECK");
    expect(healthcheck).toMatch(/CMD \["node", "-e", "fetch\(.*\/health`\)/);
    expect(healthcheck).not.toContain("curl");
  });
});

describe(".dockerignore", () => {
  const entries = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").filter((line) => line && !line.startsWith("#"));

  it("keeps secrets, the ledger and local builds out of the build context", () => {
    expect(entries).toEqual(expect.arrayContaining([".env", ".env.*", "*.pem", "data", "*.db", "node_modules", "dist", ".git"]));
  });
});

describe("compose.yaml", () => {
  const compose = parse(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as Record<string, any>;
  const { app, db } = compose.services as Record<string, Record<string, any>>;

  it("runs PostgreSQL on a named volume with a pg_isready healthcheck", () => {
    expect(db!.image).toMatch(/^postgres:\d+/);
    expect(db!.volumes).toEqual(["db-data:/var/lib/postgresql/data"]);
    expect(Object.keys(compose.volumes)).toEqual(["db-data"]);
    expect(db!.healthcheck.test.slice(0, 2)).toEqual(["CMD", "pg_isready"]);
  });

  it("starts the app from this Dockerfile once the database is healthy, with DATABASE_URL the database's", () => {
    expect(app!.build).toBe(".");
    expect(app!.depends_on).toEqual({ db: { condition: "service_healthy" } });
    const url = new URL(app!.environment.DATABASE_URL.replace("${POSTGRES_PASSWORD}", "secret"));
    expect(url.protocol).toBe("postgres:");
    expect(url.hostname).toBe("db");
    expect(url.username).toBe(db!.environment.POSTGRES_USER);
    expect(url.pathname).toBe(`/${db!.environment.POSTGRES_DB}`);
    expect(db!.environment.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    // The port published is the one the app listens on, on every interface of the container.
    expect(app!.ports).toEqual([`${app!.environment.PORT}:${app!.environment.PORT}`]);
    expect(app!.environment.HOST).toBe("0.0.0.0");
  });
});
