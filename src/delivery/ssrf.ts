// The SSRF guard for webhooks and channel callbacks: a bot owner chooses the URL we POST to,
// so without this anyone could make the platform call its own database, the cloud metadata
// service or other hosts on the private network. The host is resolved and every address it
// resolves to must be public; checked when the URL is set and again before each delivery
// (DNS may change between the two). Redirects are never followed (see http.ts), so a public
// URL cannot bounce a request to a private one.
//
// DNS rebinding: a name that resolves to a public address for the check and to a private
// one a moment later would win if the sender resolved it again. `resolveTarget` returns the
// checked addresses and `pinnedRequest` connects to one of them (Host header and TLS name
// stay the URL's), so nothing is resolved between check and connect.
import { lookup } from "node:dns/promises";
import { isIPv4, isIPv6 } from "node:net";

export type Resolver = (host: string) => Promise<string[]>;

export interface UrlPolicy {
  /** ALLOW_PRIVATE_WEBHOOKS: skips the address check (tests, local development). */
  allowPrivate: boolean;
  /** Injected in tests; the system resolver otherwise. */
  resolve?: Resolver;
}

export class UrlRefused extends Error {}

export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/**
 * IPv4 ranges that are not the public internet: IANA's special-purpose registry (RFC 6890
 * and later), every entry that is not globally reachable, plus the documentation ranges.
 */
const V4_BLOCKED: Array<[base: string, bits: number, what: string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.31.196.0", 24, "AS112"],
  ["192.52.193.0", 24, "AMT"],
  ["192.88.99.0", 24, "6to4 relay"],
  ["192.168.0.0", 16, "private"],
  ["192.175.48.0", 24, "AS112"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved/broadcast"],
];

function v4ToInt(ip: string): number {
  return ip.split(".").reduce((n, octet) => n * 256 + Number(octet), 0);
}

function blockedV4(ip: string): string | undefined {
  const n = v4ToInt(ip);
  for (const [base, bits, what] of V4_BLOCKED) {
    const size = 2 ** (32 - bits);
    const start = v4ToInt(base);
    if (n >= start && n < start + size) return what;
  }
  return undefined;
}

/** 16 bytes of an IPv6 address (with "::" and a trailing dotted IPv4 part expanded). */
export function v6Bytes(ip: string): number[] {
  let text = ip.replace(/%.*$/, "");
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4ToInt(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${((n >>> 16) & 0xffff).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const parse = (part: string | undefined) => (part ? part.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return groups.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
}

/** True when the first `bits` bits of `bytes` equal those of `prefix`. */
export function hasPrefix(bytes: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

const v4Of = (b: number[], at: number) => b.slice(at, at + 4).join(".");

/**
 * IPv6 ranges refused outright: IANA's special-purpose registry and what is not global
 * unicast. Checked after the ranges that embed an IPv4 address (judged by that address).
 */
const V6_BLOCKED: Array<[base: string, bits: number, what: string]> = [
  ["::ffff:0:0:0", 96, "IPv4-translated (SIIT)"],
  ["64:ff9b:1::", 48, "local-use NAT64"],
  ["100::", 64, "discard-only"],
  // 2001::/23 holds Teredo (2001::/32), benchmarking, ORCHID and other protocol assignments.
  ["2001::", 23, "IETF protocol assignments (Teredo and others)"],
  ["2001:db8::", 32, "documentation"],
  ["3fff::", 20, "documentation"],
  ["5f00::", 16, "SRv6 segment identifiers"],
  ["fc00::", 7, "unique local"],
  ["fe80::", 10, "link-local"],
  ["fec0::", 10, "site-local"],
  ["ff00::", 8, "multicast"],
];
const NAT64_WELL_KNOWN = v6Bytes("64:ff9b::");
const V6_BLOCKED_BYTES = V6_BLOCKED.map(([base, bits, what]) => [v6Bytes(base), bits, what] as const);

function blockedV6(ip: string): string | undefined {
  const b = v6Bytes(ip);
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return "unspecified";
  if (zeroUpTo(15) && b[15] === 1) return "loopback";
  // Addresses that carry an IPv4 address inside: judged by that address.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return blockedV4(v4Of(b, 12));
  if (zeroUpTo(12)) return blockedV4(v4Of(b, 12));
  if (hasPrefix(b, NAT64_WELL_KNOWN, 96)) return blockedV4(v4Of(b, 12));
  if (b[0] === 0x20 && b[1] === 0x02) return blockedV4(v4Of(b, 2));
  for (const [prefix, bits, what] of V6_BLOCKED_BYTES) if (hasPrefix(b, prefix, bits)) return what;
  return undefined;
}

/** Why the address is not a public one, or undefined when it is. */
export function forbiddenAddress(ip: string): string | undefined {
  if (isIPv4(ip)) return blockedV4(ip);
  if (isIPv6(ip)) return blockedV6(ip);
  return "not an IP address";
}

/** Checks scheme and syntax only: what holds no matter what the host resolves to. */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UrlRefused("is not a valid URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UrlRefused("must use http or https");
  if (url.username || url.password) throw new UrlRefused("must not carry credentials");
  return url;
}

/** A URL whose host resolved only to public addresses, and those addresses. */
export interface CheckedTarget {
  url: URL;
  /** Empty when the policy allows private targets (nothing was resolved). */
  addresses: string[];
}

/**
 * Throws UrlRefused naming the reason unless the URL is http(s) and every address its host
 * resolves to is public (or the policy allows private targets). A sender that connects to
 * one of `addresses` itself, instead of resolving the name again, closes DNS rebinding.
 */
export async function resolveTarget(raw: string, policy: UrlPolicy): Promise<CheckedTarget> {
  const url = parseHttpUrl(raw);
  if (policy.allowPrivate) return { url, addresses: [] };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  if (isIPv4(host) || isIPv6(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (err) {
      throw new UrlRefused(`host ${host} cannot be resolved (${(err as { code?: string }).code ?? (err as Error).message})`);
    }
    if (addresses.length === 0) throw new UrlRefused(`host ${host} resolves to no address`);
  }
  for (const address of addresses) {
    const why = forbiddenAddress(address);
    if (why) throw new UrlRefused(`${host === address ? "address" : `host ${host} resolves to`} ${address}, a ${why} address`);
  }
  return { url, addresses };
}

/** resolveTarget for callers that only need the verdict. */
export async function checkTarget(raw: string, policy: UrlPolicy): Promise<URL> {
  return (await resolveTarget(raw, policy)).url;
}

/** Where and how to send so the connection goes to a checked address, not a fresh lookup. */
export interface PinnedRequest {
  /** The URL with its host replaced by the checked address (unchanged when nothing was resolved). */
  url: string;
  /** The URL's own Host, sent to the address so virtual hosting still works. */
  headers: Record<string, string>;
  /** Bun's fetch: SNI and the certificate check use the hostname, not the address connected to. */
  tls?: { serverName: string };
}

/**
 * The fetch arguments that connect to `target.addresses[0]`. Every address was checked, so
 * any would do; the first is what a resolver prefers. Without addresses (private targets
 * allowed) or for an IP literal the URL is used as it is.
 */
export function pinnedRequest(target: CheckedTarget): PinnedRequest {
  const { url, addresses } = target;
  const address = addresses[0];
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (address === undefined || address === host) return { url: url.href, headers: {} };
  const pinned = new URL(url.href);
  pinned.hostname = isIPv6(address) ? `[${address}]` : address;
  return {
    url: pinned.href,
    headers: { host: url.host },
    ...(url.protocol === "https:" ? { tls: { serverName: url.hostname } } : {}),
  };
}
