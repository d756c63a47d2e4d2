/**
 * A TCP pass-through on 127.0.0.1 that a test can cut and restore, to play a
 * database going down under a running app: `cut()` destroys every open
 * connection and resets new ones (as a host that is gone would), `restore()`
 * lets connections through again.
 */
import { connect, createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";

export interface TcpProxy {
  /** The port to connect to instead of the target's. */
  port: number;
  /** Connections accepted and passed through so far. */
  connections: number;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let down = false;
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
    for (const s of [client, upstream]) {
      s.on("error", drop);
      s.on("close", drop);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));

  const proxy: TcpProxy = {
    port: (server.address() as AddressInfo).port,
    connections: 0,
    cut() {
      down = true;
      for (const s of open) s.destroy();
      open.clear();
    },
    restore() {
      down = false;
    },
    close() {
      proxy.cut();
      return new Promise((done) => server.close(() => done()));
    },
  };
  return proxy;
}
