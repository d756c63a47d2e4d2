/**
 * The port, checked before Probot's server listens on it; the variables
 * themselves are checked before this, with the rest (settings/settings.ts).
 */
import { createServer } from "node:net";
import { StartupError } from "./startup-error.js";

/**
 * Refuses a port another process listens on, before Probot's server tries
 * it: its failure is logged with a stack and left uncaught. (Whoever takes
 * the port between this probe and Probot's listen still gets that stack.)
 */
export function checkPortFree(port: number, host: string | undefined): Promise<void> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EADDRINUSE") fail(new StartupError(`PORT ${port} is already in use on ${host ?? "localhost"}: stop the other process or set PORT to a free port`));
      else if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND") fail(new StartupError(`HOST ${host} is not an address of this machine (${error.code}): set HOST, e.g. 0.0.0.0 or 127.0.0.1`));
      else if (error.code === "EACCES") fail(new StartupError(`PORT ${port} needs privileges this process lacks (EACCES): set PORT above 1023`));
      else fail(error);
    });
    probe.listen({ port, host: host ?? "localhost" }, () => probe.close(() => done()));
  });
}
