// Mail servers an owner names are outbound connections made on their behalf, like webhooks:
// the host must resolve to public addresses only (unless ALLOW_PRIVATE_WEBHOOKS), and we
// connect to the address that was checked, with the host name kept for TLS. Failures are
// told in plain words: DNS, refused address, connection, TLS or login.
import { isIPv6 } from "node:net";
import { resolveTarget, UrlRefused, type UrlPolicy } from "../ssrf.ts";

export interface MailTarget {
  /** What to connect to: a checked address, or the host itself when private targets are allowed. */
  address: string;
  /** The name the server's certificate must carry. */
  servername: string;
}

export class MailServerRefused extends Error {}

export async function mailTarget(host: string, port: number, policy: UrlPolicy): Promise<MailTarget> {
  const bracketed = isIPv6(host) ? `[${host}]` : host;
  try {
    const { addresses } = await resolveTarget(`https://${bracketed}:${port}/`, policy);
    return { address: addresses[0] ?? host, servername: host };
  } catch (err) {
    if (err instanceof UrlRefused) throw new MailServerRefused(err.message);
    throw err;
  }
}

type ErrorLike = Error & { code?: string; responseCode?: number; authenticationFailed?: boolean; response?: string; serverResponseCode?: string };

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|ERR_OSSL|HOSTNAME_MISMATCH|ECONNRESET_TLS)/;

/** One sentence a person can act on; never the password, never a stack. */
export function explainMailError(err: unknown, host: string, port: number): string {
  const e = err as ErrorLike;
  const code = e?.code ?? "";
  const message = String(e?.message ?? err);
  if (err instanceof MailServerRefused) {
    if (/cannot be resolved|resolves to no address/.test(message)) return `DNS: the host name ${host} was not found`;
    return `refused: ${host} ${message.replace(/^host \S+ /, "")} (private addresses need ALLOW_PRIVATE_WEBHOOKS=1)`;
  }
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EDNS" || /ENOTFOUND|EAI_AGAIN/.test(message)) return `DNS: the host name ${host} was not found`;
  if (e?.authenticationFailed || code === "EAUTH" || /auth(entication)?\s*failed|invalid credentials|username and password not accepted/i.test(message)) {
    return "login: the server refused the user name or password";
  }
  if (TLS_CODES.test(code) || /certificate|ssl|tls|wrong version number|handshake/i.test(message)) {
    return `TLS: could not set up a secure connection to ${host}:${port} (${message.slice(0, 160)}); check the port and the TLS setting`;
  }
  if (code === "ECONNREFUSED" || /ECONNREFUSED/.test(message)) return `connection: ${host}:${port} refused the connection; check the port`;
  if (code === "ETIMEDOUT" || code === "ETIMEOUT" || /timed? ?out/i.test(message)) return `connection: ${host}:${port} did not answer in time`;
  if (code === "ECONNRESET" || code === "ECONNECTION" || code === "ENOCONNECTION" || code === "EPIPE") return `connection: ${host}:${port} closed the connection (${message.slice(0, 160)})`;
  return `${message.slice(0, 200)}`;
}
