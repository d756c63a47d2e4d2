/**
 * SIGTERM and SIGINT end the process cleanly: the delivery and the effect in
 * flight are finished (the runtime's shutdown) before it exits, and exit 1
 * if that fails or takes longer than 10 s.
 */
import type { Logger } from "pino";

export function stopOnSignals(runtime: { shutdown(): Promise<void> }, log: Pick<Logger, "info" | "error">): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, "shutting down: finishing the transaction and the effect in flight");
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    runtime.shutdown().then(
      () => process.exit(0),
      (error) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.once("SIGTERM", () => stop("SIGTERM"));
  process.once("SIGINT", () => stop("SIGINT"));
}
