// The SSRF guard for webhooks and channel callbacks: a bot owner chooses the URL we POST to,
// so without this anyone could make the platform call its own database, the cloud metadata
// service or other hosts on the private network. The host is resolved and every address it
// resolves to must be public; checked when the URL is set and again before each delivery
// (DNS may change between the two). Redirects are never followed (see http.ts), so a public
// URL cannot bounce a request to a private one.
//
// Residual risk, documented in docs/decisions.md: fetch resolves the name again, so a DNS
// server answering differently within a few milliseconds (rebinding) could still win.
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

/** IPv4 ranges that are not the public internet (RFC 6890 special-purpose registry). */
const V4_BLOCKED: Array<[base: string, bits: number, what: string]> = [
  ["0.0.0.0", 8, "unspecified"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
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
function v6Bytes(ip: string): number[] {
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

const v4Of = (b: number[], at: number) => b.slice(at, at + 4).join(".");

function blockedV6(ip: string): string | undefined {
  const b = v6Bytes(ip);
  const zeroUpTo = (n: number) => b.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(16)) return "unspecified";
  if (zeroUpTo(15) && b[15] === 1) return "loopback";
  // Addresses that carry an IPv4 address inside: judged by that address.
  if (zeroUpTo(10) && b[10] === 0xff && b[11] === 0xff) return blockedV4(v4Of(b, 12));
  if (zeroUpTo(12)) return blockedV4(v4Of(b, 12));
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return blockedV4(v4Of(b, 12));
  if (b[0] === 0x20 && b[1] === 0x02) return blockedV4(v4Of(b, 2));
  if ((b[0]! & 0xfe) === 0xfc) return "unique local";
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0x80) return "link-local";
  if (b[0] === 0xfe && (b[1]! & 0xc0) === 0xc0) return "site-local";
  if (b[0] === 0xff) return "multicast";
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

/**
 * Throws UrlRefused naming the reason unless the URL is http(s) and every address its host
 * resolves to is public (or the policy allows private targets).
 */
export async function checkTarget(raw: string, policy: UrlPolicy): Promise<URL> {
  const url = parseHttpUrl(raw);
  if (policy.allowPrivate) return url;
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
  return url;
}
