/**
 * The target guard: which addresses an outgoing webhook may reach, as
 * literals in a config's URL (in every form the URL parser turns into one)
 * and as a hostname resolves at delivery time.
 */
import { describe, expect, it } from "vitest";
import { addressKind, checkTargetUrl, parseIPv6, type TargetPolicy } from "../../src/events/target-guard.js";
import { targetPolicy } from "../../src/settings/work-settings.js";
import { checkAddresses, guardedLookup, RefusedTargetError } from "../../src/events/target-lookup.js";

const closed: TargetPolicy = { allowPrivate: false };
const open: TargetPolicy = { allowPrivate: true };

describe("addressKind", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["140.82.112.3", "public"],
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private"],
    ["100.127.255.255", "private"],
    ["100.128.0.1", "public"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["169.254.1.1", "link_local"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["100.100.100.200", "metadata"],
    ["192.0.2.1", "reserved"],
    ["224.0.0.1", "reserved"],
    ["255.255.255.255", "reserved"],
  ])("IPv4 %s is %s", (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each([
    ["2606:4700::1111", "public"],
    ["::", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "link_local"],
    ["fe80::1%eth0", "link_local"],
    ["febf::1", "link_local"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["fd00:ec2::254", "metadata"],
    ["ff02::1", "reserved"],
    ["2001:db8::1", "reserved"],
    // IPv4 inside IPv6 is judged as the IPv4 address it reaches.
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:a9fe:a9fe", "metadata"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["64:ff9b::7f00:1", "loopback"],
    ["64:ff9b::a9fe:a9fe", "metadata"],
    ["2002:7f00:1::", "loopback"],
    ["2002:a9fe:a9fe::1", "metadata"],
    ["::127.0.0.1", "reserved"],
  ])("IPv6 %s is %s", (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it("is null for what is not an address", () => {
    for (const text of ["example.com", "1.2.3", "1.2.3.256", "01.2.3.4", "1:2:3:4:5:6:7:8:9", "1::2::3", "gggg::1", ""]) expect(addressKind(text)).toBeNull();
  });

  it("parses IPv6 in its compressed and dotted forms", () => {
    expect(parseIPv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x0102, 0x0304]);
  });
});

describe("checkTargetUrl", () => {
  const refusedFor = (url: string, policy = closed) => {
    const check = checkTargetUrl(url, policy);
    return check.ok ? null : check;
  };

  it("accepts an https URL to a public name or address", () => {
    for (const url of ["https://example.com/hooks/leases", "https://hooks.slack.com/services/T0/B0/xyz", "https://8.8.8.8:8443/x", "https://[2606:4700::1111]/x"]) {
      expect(refusedFor(url), url).toBeNull();
    }
  });

  it.each([
    // Forms the URL parser turns into 127.0.0.1: decimal, hexadecimal, octal, short.
    ["https://127.0.0.1/", "127.0.0.1"],
    ["https://2130706433/", "127.0.0.1"],
    ["https://0x7f000001/", "127.0.0.1"],
    ["https://0177.0.0.1/", "127.0.0.1"],
    ["https://0x7f.1/", "127.0.0.1"],
    ["https://127.1/", "127.0.0.1"],
    ["https://[::1]:8080/", "[::1]"],
    ["https://[::ffff:127.0.0.1]/", "[::ffff:7f00:1]"],
    ["https://localhost/", "localhost"],
    ["https://LOCALHOST./", "localhost"],
    ["https://app.localhost/", "app.localhost"],
    ["https://10.0.0.5/", "10.0.0.5"],
    ["https://0xa.0.0.5/", "10.0.0.5"],
    ["https://192.168.0.1/", "192.168.0.1"],
    ["https://[fd00::1]/", "[fd00::1]"],
  ])("refuses %s (%s) unless private targets are allowed", (url, host) => {
    expect(refusedFor(url)).toMatchObject({ host, problem: expect.stringContaining("EVENTS_WEBHOOK_ALLOW_PRIVATE=1") });
    expect(refusedFor(url, open)).toBeNull();
  });

  it.each([
    ["https://169.254.169.254/latest/meta-data/", "metadata"],
    ["https://2852039166/", "metadata"],
    ["https://[fd00:ec2::254]/", "metadata"],
    ["https://[::ffff:169.254.169.254]/", "metadata"],
    ["https://metadata.google.internal/computeMetadata/v1/", "metadata"],
    ["https://169.254.10.10/", "link-local"],
    ["https://[fe80::1]/", "link-local"],
    ["https://0.0.0.0/", "unspecified"],
    ["https://0/", "unspecified"],
    ["https://[::]/", "unspecified"],
    ["https://224.0.0.1/", "reserved"],
  ])("refuses %s always (%s)", (url, word) => {
    expect(refusedFor(url)?.problem).toContain(word);
    expect(refusedFor(url, open)?.problem).toContain(word);
  });

  it("wants https, unless private targets are allowed, and no user or password", () => {
    expect(refusedFor("http://example.com/x")?.problem).toContain("must start with `https://`");
    expect(refusedFor("http://example.com/x", open)).toBeNull();
    expect(refusedFor("ftp://example.com/x", open)?.problem).toContain("must start with `https://`");
    expect(refusedFor("https://user:pw@example.com/x")?.problem).toContain("user or a password");
    expect(refusedFor("not a url")?.problem).toContain("is not a URL");
    expect(refusedFor(`https://example.com/${"a".repeat(3000)}`)?.problem).toContain("too long");
  });

  it("reads the policy from EVENTS_WEBHOOK_ALLOW_PRIVATE=1 only", () => {
    expect(targetPolicy({})).toEqual({ allowPrivate: false });
    expect(targetPolicy({ EVENTS_WEBHOOK_ALLOW_PRIVATE: "true" })).toEqual({ allowPrivate: false });
    expect(targetPolicy({ EVENTS_WEBHOOK_ALLOW_PRIVATE: "1" })).toEqual({ allowPrivate: true });
  });
});

describe("a hostname resolved at delivery time", () => {
  const a = (address: string) => ({ address, family: address.includes(":") ? 6 : 4 });

  it("passes when every address is allowed, and is refused when any is not (DNS rebinding)", () => {
    expect(checkAddresses("example.com", [a("93.184.215.14"), a("2606:2800:21f:cb07:6820:80da:af6b:8b2c")], closed)).toHaveLength(2);
    expect(() => checkAddresses("evil.example", [a("93.184.215.14"), a("127.0.0.1")], closed)).toThrow(RefusedTargetError);
    expect(() => checkAddresses("evil.example", [a("169.254.169.254")], open)).toThrow(/metadata/);
    expect(() => checkAddresses("evil.example", [a("::ffff:10.0.0.1")], closed)).toThrow(/private/);
    expect(checkAddresses("intranet", [a("10.0.0.1")], open)).toHaveLength(1);
  });

  it("hands the socket the checked address, or the refusal", async () => {
    let answer = [a("93.184.215.14")];
    const lookup = guardedLookup(closed, async () => answer);
    const call = (all: boolean) =>
      new Promise<{ err: unknown; address: unknown; family?: number }>((resolve) => lookup("hook.example", { all }, (err, address, family) => resolve({ err, address, family })));
    expect(await call(false)).toEqual({ err: null, address: "93.184.215.14", family: 4 });
    expect(await call(true)).toEqual({ err: null, address: [a("93.184.215.14")], family: undefined });
    // The same name, answered differently later: refused then.
    answer = [a("127.0.0.1")];
    const refused = await call(false);
    expect(refused.err).toBeInstanceOf(RefusedTargetError);
    expect(String(refused.err)).toContain("hook.example resolves to 127.0.0.1");
  });
});
