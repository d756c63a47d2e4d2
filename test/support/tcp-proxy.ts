/**
 * A TCP pass-through on 127.0.0.1 that a test can cut and restore, to play a
 * database going down under a running app: `cut()` destroys every open
 * connection and resets new ones (as a host that is gone would), `stall()`
 * lets nothing through either way while keeping connections open (a network
 * partition: no reset, queries and connects just hang), `restore()` lets
 * connections through again, bytes held by a stall first.
 */
import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  /** The port to connect to instead of the target's. */
  port: number;
  /** Connections accepted and passed through so far. */
  connections: number;
  cut(): void;
  stall(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
  let stalled = false;
  /** Bytes that arrived during a stall, in order, with the socket they are for. */
  let held: Array<[Socket, Buffer]> = [];
  const server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    proxy.connections += 1;
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      from.on("error", drop);
      from.on("close", drop);
      from.on("data", (chunk: Buffer) => {
        if (stalled) held.push([to, chunk]);
        else to.write(chunk);
      });
    }
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));

  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    connections: 0,
    cut() {
      down = true;
      stalled = false;
      held = [];
      for (const s of open) s.destroy();
      open.clear();
    },
    stall() {
      stalled = true;
    },
    restore() {
      down = false;
      stalled = false;
      const pending = held;
      held = [];
      for (const [to, chunk] of pending) if (!to.destroyed) to.write(chunk);
    },
    close() {
      proxy.cut();
      return new Promise((done) => server.close(() => done()));
    },
  };
  return proxy;
}
