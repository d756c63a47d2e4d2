/**
 * podman for the container test: the Dockerfile built on a base with Node
 * (where no registry is reachable, one made from Debian's packages and this
 * machine's Node by .ci/node-base-image), the app run in containers on the
 * host's network, and what the test made removed afterwards.
 *
 * podman reads .ci/containers.conf (runc, cgroupfs, no default ulimits: what
 * this machine needs) unless CONTAINERS_CONF names another file.
 */
import { execFile, spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT, sleep } from "../support/server-process.js";

/**
 * The Dockerfile's NODE_IMAGE: CONTAINER_NODE_IMAGE where one can be pulled
 * (e.g. docker.io/library/node:20-bookworm-slim), else the base
 * .ci/node-base-image makes, made first when podman does not have it.
 */
export const NODE_IMAGE = process.env.CONTAINER_NODE_IMAGE ?? "localhost/issue-leases-node:20-bookworm";

export const hasPodman = spawnSync("podman", ["--version"]).status === 0;

const podmanEnv = { CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? join(ROOT, ".ci/containers.conf") };

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command in the repository; `env` is added to this process's environment. */
function run(command: string, args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((done) => {
    execFile(
      command,
      args,
      { cwd: ROOT, env: { ...process.env, ...podmanEnv, ...opts.env }, maxBuffer: 64 * 1024 * 1024, timeout: opts.timeoutMs ?? 120_000 },
      (error, stdout, stderr) => done({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** podman's output, trimmed; a failure throws with the end of what it said. */
export async function podman(args: string[], opts: { env?: Record<string, string>; timeoutMs?: number } = {}): Promise<string> {
  const ran = await run("podman", args, opts);
  if (ran.code !== 0) throw new Error(`podman ${args.slice(0, 3).join(" ")} … exited ${ran.code}:\n${ran.stderr.slice(-6000)}\n${ran.stdout.slice(-2000)}`);
  return ran.stdout.trim();
}

/** Makes the default base with .ci/node-base-image when podman lacks it; a pullable CONTAINER_NODE_IMAGE is left to the build. */
export async function ensureBaseImage(): Promise<"present" | "made" | "pulled by the build"> {
  if (process.env.CONTAINER_NODE_IMAGE) return "pulled by the build";
  if ((await run("podman", ["image", "exists", NODE_IMAGE])).code === 0) return "present";
  const made = await run("bash", [".ci/node-base-image"], { env: { NODE_BASE_IMAGE: NODE_IMAGE }, timeoutMs: 20 * 60_000 });
  if (made.code !== 0) throw new Error(`.ci/node-base-image failed (${made.code}):\n${made.stderr.slice(-6000)}`);
  return "made";
}

/**
 * `podman build` of the Dockerfile as `tag`. Docker's image format keeps the
 * HEALTHCHECK (OCI's has none); --layers=false leaves no intermediate image
 * behind; npm ci needs the registry, hence the host's network.
 */
export async function buildImage(tag: string): Promise<void> {
  await podman(["build", "--network", "host", "--format", "docker", "--layers=false", "--build-arg", `NODE_IMAGE=${NODE_IMAGE}`, "--tag", tag, "."], {
    timeoutMs: 40 * 60_000,
  });
}

export interface AppContainer {
  name: string;
  url: string;
  /** The container's output so far (the app's JSON log lines, npm's lines). */
  logs(): Promise<string>;
  /** Runs a command in the running container, as the image's user. */
  exec(args: string[]): Promise<string>;
  /** `podman stop` (SIGTERM, then SIGKILL after 20 s): resolves to the exit code. */
  stop(): Promise<number>;
}

/**
 * Runs the image's command (`npm start`) on the host's network with `env`
 * and `volume` (a named volume) on /data
 * (passed by name, so no value shows in a process list), and resolves once
 * GET /health answers 200; fails at once, with its logs, if it exits first.
 */
export async function runApp(image: string, opts: { name: string; port: number; volume?: string; env: Record<string, string> }): Promise<AppContainer> {
  const { name, port } = opts;
  const env = { ...opts.env, PORT: String(port), HOST: "127.0.0.1" };
  const names = Object.keys(env).flatMap((key) => ["--env", key]);
  // --health-interval disable: no timer (podman would ask systemd for one); `podman healthcheck run` still runs it.
  await podman(["run", "--detach", "--name", name, "--network", "host", ...(opts.volume ? ["--volume", `${opts.volume}:/data`] : []), "--health-interval", "disable", ...names, image], { env });
  const url = `http://127.0.0.1:${port}`;
  const container: AppContainer = {
    name,
    url,
    logs: async () => {
      const ran = await run("podman", ["logs", name]);
      return ran.stdout + ran.stderr;
    },
    exec: (args) => podman(["exec", name, ...args]),
    async stop() {
      await podman(["stop", "--time", "20", name], { timeoutMs: 60_000 });
      return Number(await podman(["inspect", "--format", "{{.State.ExitCode}}", name]));
    },
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      const res = await fetch(`${url}/health`);
      await res.arrayBuffer();
      if (res.status === 200) return container;
    } catch {
      // Not listening yet.
    }
    if ((await podman(["inspect", "--format", "{{.State.Running}}", name])) !== "true") {
      throw new Error(`the container ${name} exited before /health answered 200:\n${await container.logs()}`);
    }
    if (Date.now() > deadline) throw new Error(`the container ${name} did not answer /health with 200 within 60 s:\n${await container.logs()}`);
    await sleep(250);
  }
}

/** Removes containers, volumes and images, each if it exists (`-f`: also what still runs). */
export async function remove(made: { containers: string[]; volumes: string[]; images: string[] }): Promise<void> {
  for (const name of made.containers) await run("podman", ["rm", "--force", "--volumes", name]);
  for (const name of made.volumes) await run("podman", ["volume", "rm", "--force", name]);
  for (const name of made.images) await run("podman", ["rmi", "--force", name]);
}
