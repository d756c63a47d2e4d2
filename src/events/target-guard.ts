/**
 * Where an outgoing webhook may be sent. A repository's config names its
 * targets, so without this guard anyone who can push a config could make the
 * app call into its own network: a database on loopback, an admin page on a
 * private range, or the cloud's metadata service (which hands out the host's
 * credentials). The same rules are applied twice: to the URL's literal
 * address when the config is read (a refused one makes the config invalid),
 * and to every address a hostname resolves to when a delivery is made (DNS
 * can answer differently later: rebinding), the connection then going to the
 * address checked (target-lookup.ts).
 *
 * Loopback and private ranges are allowed only when the operator says so
 * (`EVENTS_WEBHOOK_ALLOW_PRIVATE=1`); link-local, metadata, unspecified and
 * reserved addresses never. Pure: no DNS here.
 */

/** What an address is, as far as the guard cares. */
export type AddressKind = "public" | "loopback" | "private" | "link_local" | "metadata" | "unspecified" | "reserved";

export interface TargetPolicy {
  /** Loopback and private ranges (and plain `http:`) allowed: the operator's `EVENTS_WEBHOOK_ALLOW_PRIVATE=1`. */
  allowPrivate: boolean;
}

/** The policy unless the operator allows more (settings/work-settings.ts `targetPolicy`). */
export const DEFAULT_TARGET_POLICY: TargetPolicy = Object.freeze({ allowPrivate: false });

/** Why an address of this kind is refused (the rule, no value), or null when the policy allows it. */
export function refusal(kind: AddressKind, policy: TargetPolicy): string | null {
  switch (kind) {
    case "public":
      return null;
    case "loopback":
    case "private":
      if (policy.allowPrivate) return null;
      return `is a${kind === "loopback" ? " loopback" : " private"} address, and a repository's config may not make the app call into its own network (the operator can allow loopback and private addresses with \`EVENTS_WEBHOOK_ALLOW_PRIVATE=1\`)`;
    case "link_local":
      return "is a link-local address; the app never sends webhooks there";
    case "metadata":
      return "is a cloud metadata address; the app never sends webhooks there";
    case "unspecified":
      return "is the unspecified address (it reaches this host); the app never sends webhooks there";
    case "reserved":
      return "is a reserved address (documentation, multicast or not routable); the app never sends webhooks there";
  }
}

// The metadata services' own addresses, refused before their ranges are looked at.
const METADATA_V4 = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "168.63.129.16", "192.0.0.192"]);
const METADATA_V6 = ["fd00:ec2::254"];
/** Names the clouds give their metadata services (they resolve to link-local addresses, refused anyway). */
const METADATA_NAMES = new Set(["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]);

/** IPv4 ranges: base, prefix length, kind; the first that contains an address decides. */
const V4_RANGES: ReadonlyArray<readonly [string, number, AddressKind]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "private"], // carrier-grade NAT
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link_local"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
  ["192.0.2.0", 24, "reserved"], // documentation
  ["192.88.99.0", 24, "reserved"], // 6to4 relays
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "private"], // benchmarking, used inside networks
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
  ["224.0.0.0", 4, "reserved"], // multicast
  ["240.0.0.0", 4, "reserved"], // and 255.255.255.255
];

/** The 32-bit value of a dotted quad, or null. Only the canonical form: the URL parser has already turned `2130706433` and `0x7f.1` into it. */
export function parseIPv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return null;
    value = value * 256 + Number(part);
  }
  return value;
}

/** The eight 16-bit groups of an IPv6 address (with a trailing dotted quad allowed), or null. */
export function parseIPv6(text: string): number[] | null {
  let s = text.toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  // A zone (`fe80::1%eth0`) names an interface: link-local anyway; the address before it decides.
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  if (!/^[0-9a-f:.]+$/.test(s) || s.length > 45) return null;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const v4 = lastColon < 0 ? null : parseIPv4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    tail = [Math.floor(v4 / 65536), v4 % 65536];
    const prefix = s.slice(0, lastColon + 1);
    s = prefix.endsWith("::") ? prefix : prefix.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    for (const g of part.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if (head === null || rest === null) return null;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
}

function v4Kind(value: number, text: string): AddressKind {
  if (METADATA_V4.has(text)) return "metadata";
  for (const [base, prefix, kind] of V4_RANGES) {
    const size = 2 ** (32 - prefix);
    const start = parseIPv4(base)!;
    if (value >= start && value < start + size) return kind;
  }
  return "public";
}

const v4Text = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");

function v6Kind(g: number[]): AddressKind {
  if (METADATA_V6.some((m) => parseIPv6(m)!.every((x, i) => x === g[i]))) return "metadata";
  const [a, b] = [g[0]!, g[1]!];
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  // An IPv4 address inside an IPv6 one reaches that IPv4 address: it is judged as that address.
  const embedded = (hi: number, lo: number) => v4Kind(hi * 65536 + lo, v4Text(hi, lo));
  if (zeroUpTo(8)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  if (zeroUpTo(5) && g[5] === 0xffff) return embedded(g[6]!, g[7]!); // ::ffff:a.b.c.d, mapped
  if (zeroUpTo(6)) return "reserved"; // ::a.b.c.d, the deprecated compatible form
  if (a === 0x64 && b === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return embedded(g[6]!, g[7]!); // NAT64
  if (a === 0x64 && b === 0xff9b && g[2] === 1) return "private"; // local-use NAT64
  if (a === 0x2002) return embedded(b, g[2]!); // 6to4
  if (a === 0x2001 && b === 0) return "reserved"; // Teredo
  if (a === 0x2001 && b === 0xdb8) return "reserved"; // documentation
  if (a === 0x100 && b === 0 && g[2] === 0 && g[3] === 0) return "reserved"; // discard
  if ((a & 0xfe00) === 0xfc00) return "private"; // unique local
  if ((a & 0xffc0) === 0xfe80) return "link_local";
  if ((a & 0xffc0) === 0xfec0) return "private"; // site-local, deprecated
  if ((a & 0xff00) === 0xff00) return "reserved"; // multicast
  if ((a & 0xe000) === 0x2000) return "public"; // global unicast
  return "reserved";
}

/** The kind of an IP address (IPv4, or IPv6 with or without brackets), or null when `text` is not one. */
export function addressKind(text: string): AddressKind | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return v4Kind(v4, text);
  const v6 = parseIPv6(text);
  return v6 === null ? null : v6Kind(v6);
}

/** Why the policy refuses an address a hostname resolved to (the rule, no value), or null when allowed. */
export function addressRefusal(address: string, policy: TargetPolicy): string | null {
  return refusal(addressKind(address) ?? "reserved", policy);
}

// A URL this long is not a webhook's.
const URL_MAX = 2000;

export type TargetCheck =
  | { ok: true; url: URL }
  /** `host`: what the problem is about, for a message that may show it (null: the URL itself); `problem`: the rule, no value. */
  | { ok: false; host: string | null; problem: string };

/**
 * Checks a target's URL as a config gives it: `https:` (or `http:` where
 * private targets are allowed), no user or password, and a host that is
 * not a refused literal address nor a name known to reach one (`localhost`,
 * a metadata service's name). A hostname passes here; its addresses are
 * checked when a delivery resolves it.
 */
export function checkTargetUrl(text: string, policy: TargetPolicy): TargetCheck {
  if (text.length > URL_MAX) return { ok: false, host: null, problem: `is too long for a URL (at most ${URL_MAX} characters)` };
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { ok: false, host: null, problem: "is not a URL; write it as `https://example.com/path`" };
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { ok: false, host: null, problem: "must start with `https://`" };
  // The address first: `http://127.0.0.1` is refused for where it goes, whatever its scheme.
  const host = url.hostname.replace(/\.$/, "").toLowerCase();
  const why = refusal(addressKind(host) ?? hostnameKind(host), policy);
  if (why !== null) return { ok: false, host, problem: why };
  if (url.protocol === "http:" && !policy.allowPrivate) {
    return { ok: false, host: null, problem: "must start with `https://`: deliveries are sent over TLS (plain `http://` only where the operator allows private targets)" };
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, host: null, problem: "must not carry a user or a password; a receiver checks the signature instead" };
  }
  return { ok: true, url };
}

/** What a name is known to reach before any DNS: loopback for `localhost`, a metadata service for its names; public otherwise (checked when resolved). */
function hostnameKind(host: string): AddressKind {
  if (host === "localhost" || host.endsWith(".localhost")) return "loopback";
  if (METADATA_NAMES.has(host)) return "metadata";
  return "public";
}
