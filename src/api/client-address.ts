/**
 * Who a request comes from, for the limits per address (rate-limit.ts):
 * the socket's peer, or, behind proxies the operator says are there
 * (TRUST_PROXY_HOPS), the address the outermost of them saw. Each proxy
 * appends the address it received the request from to X-Forwarded-For, so
 * with N proxies of one's own the client is the Nth entry from the right;
 * anything left of it was written by the client and proves nothing. Without
 * TRUST_PROXY_HOPS the header is ignored: anyone can send one.
 *
 * IPv6 addresses count by their /64, the block one subscriber gets: a
 * client cannot pass a limit by walking its own prefix.
 */
import type { IncomingMessage } from "node:http";
import { isIPv4, isIPv6 } from "node:net";

export function clientAddress(req: IncomingMessage, trustProxyHops: number): string {
  let address = req.socket.remoteAddress ?? "";
  if (trustProxyHops > 0) {
    const header = req.headers["x-forwarded-for"];
    const hops = (Array.isArray(header) ? header.join(",") : (header ?? ""))
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    // Fewer entries than proxies: the request did not come through all of them; the leftmost is the best there is.
    if (hops.length > 0) address = hops[Math.max(0, hops.length - trustProxyHops)]!;
  }
  return addressKey(address);
}

/** The bucket's key: an IPv4 address (also when mapped into IPv6), an IPv6 /64, or the text as it came when it is neither. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (isIPv4(address)) return address;
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  if (!isIPv6(bare)) return address.slice(0, 64);
  const [head = "", tail = ""] = bare.split("::") as [string, string?];
  const left = head === "" ? [] : head.split(":");
  const right = bare.includes("::") ? (tail === "" ? [] : tail.split(":")) : [];
  const groups = bare.includes("::") ? [...left, ...Array(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, "")).join(":")}::/64`;
}
