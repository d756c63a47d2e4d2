/**
 * DNS for an outgoing webhook, checked: a hostname is resolved when the
 * delivery is made, every address it resolves to is checked by the target
 * guard, and the connection is made to those checked addresses only (the
 * function is the socket's own `lookup`, so nothing resolves the name again
 * between the check and the connect). A name that resolves to a refused
 * address at any time (DNS rebinding: public when the config was read,
 * loopback now) is refused then.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import { addressRefusal, type TargetPolicy } from "./target-guard.js";

/** Every address of a hostname (the system's resolver: /etc/hosts, then DNS). */
export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** A target whose address the guard refused: not retried (the config or DNS must change first). */
export class RefusedTargetError extends Error {
  readonly code = "EREFUSEDTARGET";
}

/** The addresses if every one is allowed; a name with any refused address is refused whole (a client may pick any of them). */
export function checkAddresses(hostname: string, addresses: readonly LookupAddress[], policy: TargetPolicy): LookupAddress[] {
  if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" });
  for (const a of addresses) {
    const why = addressRefusal(a.address, policy);
    if (why !== null) throw new RefusedTargetError(`${hostname} resolves to ${a.address}, which ${why}`);
  }
  return [...addresses];
}

/** A socket `lookup` that resolves with `resolve` and hands the socket only addresses the guard allows. */
export function guardedLookup(policy: TargetPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname: string, options: LookupOptions, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    resolve(hostname)
      .then((all) => {
        const family = options.family === 4 || options.family === 6 ? options.family : null;
        const allowed = checkAddresses(hostname, all, policy).filter((a) => family === null || a.family === family);
        if (allowed.length === 0) throw Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: "ENOTFOUND" });
        if (options.all) callback(null, allowed);
        else callback(null, allowed[0]!.address, allowed[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, options.all ? [] : ""));
  };
}
