// A file named by URL (Telegram's "pass an HTTP URL as a String"): fetched by the server
// under the webhooks' rules, since an owner's bot names where we connect: the same address
// check (no private or loopback targets unless ALLOW_PRIVATE_WEBHOOKS), no redirects
// followed, the same timeout; the body is streamed on to the store with its size cap.
import { REQUEST_TIMEOUT_MS } from "./http.ts";
import { pinnedRequest, resolveTarget, type UrlPolicy } from "./ssrf.ts";

export class FetchRefused extends Error {}

export interface FetchedFile {
  name: string;
  body: AsyncIterable<Uint8Array>;
}

export async function fetchFile(raw: string, policy: UrlPolicy, maxBytes: number): Promise<FetchedFile> {
  const target = await resolveTarget(raw, policy).catch((err: Error) => {
    throw new FetchRefused(`failed to get HTTP URL content: ${err.message}`);
  });
  const pinned = pinnedRequest(target);
  const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
  const res = await fetch(pinned.url, { headers: pinned.headers, tls: pinned.tls, redirect: "manual", signal: timeout }).catch((err: Error) => {
    throw new FetchRefused(`failed to get HTTP URL content: ${timeout.aborted ? `timed out after ${REQUEST_TIMEOUT_MS} ms` : err.message}`);
  });
  if (res.status !== 200 || !res.body) {
    res.body?.cancel().catch(() => {});
    throw new FetchRefused(`failed to get HTTP URL content: HTTP ${res.status}`);
  }
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    res.body.cancel().catch(() => {});
    throw new FetchRefused(`failed to get HTTP URL content: the file is larger than ${maxBytes} bytes`);
  }
  const name = decodeURIComponent(target.url.pathname.split("/").pop() || "file");
  return { name, body: res.body as unknown as AsyncIterable<Uint8Array> };
}
