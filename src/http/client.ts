// Who is calling: the key every per-client limit counts under. The socket's peer address
// comes from Bun's server (src/server.ts records it per request); X-Forwarded-For is
// believed only as far as TRUST_PROXY says, since anyone can send it and trusting it
// blindly would let a client pick its own rate-limit bucket.
import { isIP, isIPv4, isIPv6 } from "node:net";
import type { TrustProxy } from "../config.ts";
import { hasPrefix, v6Bytes } from "../delivery/ssrf.ts";

/** Requests handled without a socket (tests calling app.handle) share this one client. */
export const NO_PEER = "local";
/** One IPv6 subscriber gets a whole /64; counting per address would hand out 2^64 buckets. */
const IPV6_CLIENT_PREFIX_BITS = 64;
/** More forwarded entries than this are not read: a long forged header costs nothing extra. */
const MAX_FORWARDED_ENTRIES = 32;

const keys = new WeakMap<Request, string>();

/**
 * Called by the HTTP server for each request with the address its socket came from; the
 * client's key is settled here, once, under the server's TRUST_PROXY setting.
 */
export function recordPeer(request: Request, address: string | undefined, trust: TrustProxy): void {
  if (address) keys.set(request, clientKey(resolveClient(normalise(address), request, trust)));
}

const IPV4_MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/** "::ffff:1.2.3.4" is the IPv4 client 1.2.3.4 on a dual-stack socket. */
function normalise(address: string): string {
  const mapped = IPV4_MAPPED.exec(address);
  return mapped ? mapped[1]! : address;
}

function inRange(address: string, range: string): boolean {
  const [base = "", prefix] = range.split("/");
  if (isIPv4(address) !== isIPv4(base)) return false;
  if (isIPv4(address)) {
    const bits = prefix === undefined ? 32 : Number(prefix);
    const toBytes = (ip: string) => ip.split(".").map(Number);
    return hasPrefix(toBytes(address), toBytes(base), bits);
  }
  return hasPrefix(v6Bytes(address), v6Bytes(base), prefix === undefined ? 128 : Number(prefix));
}

/** The X-Forwarded-For entries, nearest proxy last; unparseable entries end the chain. */
function forwarded(request: Request): string[] {
  const header = request.headers.get("x-forwarded-for");
  if (!header) return [];
  return header.split(",").slice(-MAX_FORWARDED_ENTRIES).map((entry) => normalise(entry.trim()));
}

/** The client's address under `trust`, given the socket peer and the request's headers. */
export function resolveClient(peer: string, request: Request, trust: TrustProxy): string {
  if (trust.kind === "none") return peer;
  const chain = [...forwarded(request), peer];
  if (trust.kind === "hops") {
    // Each trusted proxy appended the address it saw; the one `hops` in from the right is the client.
    for (let i = chain.length - 1, hop = 0; i >= 0; i--, hop++) {
      if (!isIP(chain[i]!)) return chain[i + 1] ?? peer;
      if (hop === trust.hops) return chain[i]!;
    }
    return chain[0]!;
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    const address = chain[i]!;
    if (!isIP(address)) return chain[i + 1] ?? peer;
    if (!trust.ranges.some((range) => inRange(address, range))) return address;
  }
  return chain[0]!;
}

/** The bucket an address counts under: itself for IPv4, its /64 for IPv6. */
export function clientKey(address: string): string {
  // Every request asks: an address without a colon is no IPv6 one, and node:net's check is a
  // long regular expression (0.8 % of the samples of the delivery bench's server, profiled).
  if (!address.includes(":") || !isIPv6(address)) return address;
  const bytes = v6Bytes(address).slice(0, IPV6_CLIENT_PREFIX_BITS / 8);
  const groups = [];
  for (let i = 0; i < bytes.length; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(":")}::/${IPV6_CLIENT_PREFIX_BITS}`;
}

/** The rate-limit key of the client that sent `request`. */
export function clientIp(request: Request): string {
  return keys.get(request) ?? NO_PEER;
}
