/** Starts the fake GitHub in a child process (`fake-child.ts`) and talks to it over IPC. */
import { type ChildProcess, fork } from "node:child_process";
import type { FakeGitHubOptions } from "../../test/support/fake-github.js";
import type { FakeRequest, IssueCensus, RequestSummary } from "./fake-child.js";

export interface RemoteFake {
  url: string;
  baseUrl: string;
  setContentLimit(limit: { max: number; windowMs: number } | null): Promise<void>;
  /** GitHub's limits together: content a minute and an hour, and points a minute. */
  setLimits(content: Array<{ max: number; windowMs: number }>, points: { max: number; windowMs: number } | null): Promise<void>;
  /** Counts of the requests since the last summary, which it forgets; with `windowMs`, the most content in any such window. */
  summary(windowMs?: number): Promise<RequestSummary>;
  /** Issues 1..issues of each repository, and the app's labels left besides `claimed` and `keepLabels`. */
  census(repos: string[], issues: number, keepLabels?: string[]): Promise<IssueCensus>;
  /** The payloads' repositories by their ids, and the logins they name: the node ids the app learns from them then name the fake's records. */
  know(repos: Array<{ full: string; id: number }>, logins: string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startRemoteFake(opts: FakeGitHubOptions = {}): Promise<RemoteFake> {
  const child: ChildProcess = fork(new URL("./fake-child.js", import.meta.url), [JSON.stringify(opts)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const pending = new Map<number, (result: unknown) => void>();
  let nextId = 1;
  const ready = new Promise<{ url: string; baseUrl: string }>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`fake GitHub exited with ${code}`)));
    child.on("message", (msg: { ready?: { url: string; baseUrl: string }; id?: number; result?: unknown }) => {
      if (msg.ready) resolve(msg.ready);
      else if (msg.id !== undefined) {
        pending.get(msg.id)?.(msg.result);
        pending.delete(msg.id);
      }
    });
  });
  const { url, baseUrl } = await ready;
  const ask = <T>(req: FakeRequest) =>
    new Promise<T>((resolve) => {
      const id = nextId++;
      pending.set(id, resolve as (result: unknown) => void);
      child.send({ id, req });
    });
  return {
    url,
    baseUrl,
    setContentLimit: (limit) => ask<void>({ op: "setContentLimit", limit }),
    setLimits: (content, points) => ask<void>({ op: "setLimits", content, points }),
    summary: (windowMs) => ask<RequestSummary>({ op: "summary", ...(windowMs ? { windowMs } : {}) }),
    know: (repos, logins) => ask<void>({ op: "know", repos, logins }),
    census: (repos, issues, keepLabels = []) => ask<IssueCensus>({ op: "census", repos, issues, keepLabels }),
    async close() {
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await ask<void>({ op: "close" });
      await exited;
    },
  };
}
