// One delivery attempt over HTTP, shared by webhooks and channel callbacks: the SSRF check
// at delivery time, a POST with a hard timeout, no redirects, and an outcome the caller can
// log and back off on. Never throws: every failure is an outcome.
import { pinnedRequest, resolveTarget, UrlRefused, type CheckedTarget, type UrlPolicy } from "./ssrf.ts";

/** Why: Telegram gives a webhook about this long; a receiver slower than that is treated as down. */
export const REQUEST_TIMEOUT_MS = 10_000;
/** Why: the first retry comes quickly (a blip), later ones spread out. */
export const BACKOFF_BASE_MS = 1000;
/** Why: docs/design.md §6 caps the backoff at a minute, so a recovered receiver is served within one. */
export const BACKOFF_CAP_MS = 60_000;
/** Why: a Retry-After is honoured, but one of days would park a chat far past the 24 h retention. */
export const RETRY_AFTER_CAP_MS = 3600_000;
/** Why: enough of a failing response's body to tell what went wrong, small enough for the log. */
const ERROR_BODY_CHARS = 200;
/**
 * Why: resolving the host per request would cost a DNS round trip each. Requests within it
 * connect to the addresses checked at its start (never a fresh lookup), so the cache only
 * delays seeing a DNS change; it never lets a rebound name through.
 */
const TARGET_CACHE_MS = 10_000;
/** Why: bounds the verdict cache; past it the cache simply starts over. */
const TARGET_CACHE_MAX = 10_000;

export interface Outcome {
  ok: boolean;
  /** The HTTP status, or undefined when no response came (refused, timeout, network). */
  status?: number;
  latencyMs: number;
  /** A sentence for last_error_message and the delivery log; undefined on success. */
  error?: string;
  /** From a Retry-After header, in ms. */
  retryAfterMs?: number;
  /** A 2xx answer's body, when PostOptions.keepBodyBytes asked for it and it was not empty. */
  body?: ResponseBody;
  /** Why a wanted 2xx body was not kept (too large, cut off); the delivery itself succeeded. */
  bodyError?: string;
}

/** What a receiver answered, enough to parse it as a request would be (Telegram's webhook reply). */
export interface ResponseBody {
  headers: Record<string, string>;
  bytes: Uint8Array;
}

export interface PostOptions {
  policy: UrlPolicy;
  timeoutMs?: number;
  /** Aborted when the delivery must stop now (lease lost, worker stopping). */
  signal?: AbortSignal;
  /** Keep a 2xx answer's body up to this many bytes; by default it is discarded unread. */
  keepBodyBytes?: number;
}

/** The body of `res` if it has at most `max` bytes; throws RangeError past that. */
async function readAtMost(res: Response, max: number): Promise<Uint8Array> {
  if (!res.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new RangeError(`answer larger than ${max} bytes`);
    }
    chunks.push(next.value);
  }
  return Buffer.concat(chunks);
}

/** fetch has already undone any Content-Encoding: the kept bytes are plain, so their headers must say so. */
function decodedHeaders(headers: Headers): Record<string, string> {
  const kept = Object.fromEntries(headers);
  delete kept["content-encoding"];
  delete kept["content-length"];
  return kept;
}

/** A success, with its body when the caller wants it; a body that cannot be read costs only the body. */
async function success(res: Response, options: PostOptions, latencyMs: () => number): Promise<Outcome> {
  const outcome: Outcome = { ok: true, status: res.status, latencyMs: 0 };
  if (options.keepBodyBytes === undefined) {
    await res.body?.cancel().catch(() => undefined);
  } else {
    try {
      const bytes = await readAtMost(res, options.keepBodyBytes);
      if (bytes.byteLength > 0) outcome.body = { headers: decodedHeaders(res.headers), bytes };
    } catch (err) {
      outcome.bodyError = `answer body not read: ${(err as Error).message}`;
    }
  }
  outcome.latencyMs = latencyMs();
  return outcome;
}

/** Per policy, since a test's injected resolver must not answer for the system one. */
const verdictCaches = new WeakMap<UrlPolicy, Map<string, { at: number; refusal?: string; addresses: string[] }>>();

/**
 * resolveTarget with a short cache per URL origin: either why the URL is refused, or where to
 * connect. The cached addresses are the checked ones, so a name rebound meanwhile is never
 * looked up again before the connection.
 */
async function targetOf(url: string, policy: UrlPolicy): Promise<{ refusal: string } | { target: CheckedTarget }> {
  const parsed = new URL(url);
  if (policy.allowPrivate) return { target: { url: parsed, addresses: [] } };
  let verdicts = verdictCaches.get(policy);
  if (!verdicts) verdictCaches.set(policy, (verdicts = new Map()));
  const key = parsed.origin;
  let cached = verdicts.get(key);
  if (!cached || Date.now() - cached.at >= TARGET_CACHE_MS) {
    cached = { at: Date.now(), addresses: [] };
    try {
      cached.addresses = (await resolveTarget(url, policy)).addresses;
    } catch (err) {
      if (!(err instanceof UrlRefused)) throw err;
      cached.refusal = `refused: ${err.message}`;
    }
    if (verdicts.size >= TARGET_CACHE_MAX) verdicts.clear();
    verdicts.set(key, cached);
  }
  return cached.refusal ? { refusal: cached.refusal } : { target: { url: parsed, addresses: cached.addresses } };
}

/** Retry-After in seconds or as an HTTP date; undefined when absent or unreadable. */
function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1000 : Date.parse(value) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}

export interface BackoffOptions {
  baseMs?: number;
  capMs?: number;
}

/** Exponential backoff with jitter: the n-th consecutive failure waits 50..100 % of base·2^(n-1), capped. */
export function backoffMs(failures: number, options: BackoffOptions = {}, retryAfterMs?: number): number {
  const base = options.baseMs ?? BACKOFF_BASE_MS;
  const cap = options.capMs ?? BACKOFF_CAP_MS;
  const ceiling = Math.min(cap, base * 2 ** Math.max(0, failures - 1));
  const jittered = ceiling * (0.5 + Math.random() / 2);
  return Math.max(jittered, retryAfterMs ?? 0);
}

export async function postJson(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<Outcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const verdict = await targetOf(url, options.policy).catch((err: Error) => ({ refusal: `refused: ${err.message}` }));
  if ("refusal" in verdict) return { ok: false, latencyMs: elapsed(), error: verdict.refusal };
  const pinned = pinnedRequest(verdict.target);
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  try {
    const res = await fetch(pinned.url, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...headers, ...pinned.headers },
      tls: pinned.tls,
      // A redirect could point at a private address the guard never saw: it counts as a failure.
      redirect: "manual",
      signal,
    });
    const status = res.status;
    if (status >= 200 && status < 300) return await success(res, options, elapsed);
    const text = await res.text().catch(() => "");
    const snippet = text.slice(0, ERROR_BODY_CHARS).trim();
    const what = status >= 300 && status < 400 ? `redirect ${status} not followed` : `HTTP ${status}`;
    return {
      ok: false,
      status,
      latencyMs: elapsed(),
      error: snippet ? `${what}: ${snippet}` : what,
      retryAfterMs: parseRetryAfter(res.headers.get("retry-after")),
    };
  } catch (err) {
    const error = timeout.aborted
      ? `timed out after ${timeoutMs} ms`
      : options.signal?.aborted
        ? "aborted: delivery stopped"
        : `connection failed: ${(err as Error).message}`;
    return { ok: false, latencyMs: elapsed(), error };
  }
}
