// What every request meets before a parser or validator touches it: the body's size and
// nesting are checked on the raw bytes, per-client limits are counted (so a request that
// then fails validation still costs its sender), and text PostgreSQL cannot store is
// refused with a 400 naming the field instead of failing deep inside a query as a 500.
import { AppError, badRequest } from "../core/errors.ts";
import type { Platform } from "../platform.ts";
import { LOGIN_WINDOW_MS, MINUTE_MS } from "../ratelimit.ts";
import { clientIp } from "./client.ts";
import { PUBLIC_CORS_PATHS } from "./cors.ts";
import { feature } from "./feature.ts";
import { jsonTooDeep, rejectUnstorable, tooDeepMessage } from "./input.ts";
import { MAX_BODY_BYTES } from "../core/limits.ts";

/** DESIGN §7: bodies above 64 KiB are refused with 413 before they are read. */
export { MAX_BODY_BYTES };

const tooLarge = () => new AppError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);

/** Reads the body, refusing it as soon as it passes MAX_BODY_BYTES (a missing or lying Content-Length). */
async function readBounded(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    size += next.value.byteLength;
    if (size > MAX_BODY_BYTES) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(next.value);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

const isJsonType = (contentType: string) => {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
};
const isIdentity = (request: Request) => (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase() === "identity";
/** The Telegram facade reads its bodies itself (any encoding, multipart): its bytes are checked here. */
const readsOwnBody = (path: string) => path.startsWith("/bot");

/**
 * A plain JSON body is read here once, bounded, and its nesting checked on the text; Elysia's
 * JSON parser (`request.json()`) then parses that text instead of reading the stream again.
 * (Teeing the stream with request.clone() cost about 10% of an ingest request's CPU.)
 */
async function readJsonOnce(request: Request): Promise<void> {
  const text = new TextDecoder().decode(await readBounded(request.body!));
  if (jsonTooDeep(text)) throw badRequest(tooDeepMessage());
  Object.defineProperties(request, {
    json: { value: async () => JSON.parse(text) },
    text: { value: async () => text },
  });
}

/**
 * Body size first (from the header when declared), then nesting for JSON. Any other body
 * without a declared size is measured on a copy; the facade reads its own bodies (any
 * encoding, multipart), so its JSON is checked on a copy too.
 */
async function checkBody(request: Request, path: string): Promise<void> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return;
  const json = isJsonType(request.headers.get("content-type") ?? "") && isIdentity(request);
  if (json && !readsOwnBody(path)) return readJsonOnce(request);
  // A compressed body's bytes say nothing about its nesting; the reader that inflates it checks (telegram/params.ts).
  if (declared !== null && !json) return;
  const bytes = await readBounded(request.clone().body!);
  if (json && jsonTooDeep(new TextDecoder().decode(bytes))) throw badRequest(tooDeepMessage());
}

/** Per-client limits counted on arrival, before the body is parsed or validated. */
function countClient(platform: Platform, request: Request, path: string): void {
  if (request.method === "OPTIONS") return;
  const { limits } = platform.config;
  if (PUBLIC_CORS_PATHS.has(path)) platform.limiter.take(`public-ip:${clientIp(request)}`, limits.publicPerIp, MINUTE_MS);
  else if (request.method === "POST" && path === "/api/auth/login") platform.limiter.take(`login-ip:${clientIp(request)}`, limits.loginPerIp, LOGIN_WINDOW_MS);
  else if (request.method === "POST" && path === "/api/auth/register") platform.limiter.take(`register-ip:${clientIp(request)}`, limits.loginPerIp, LOGIN_WINDOW_MS);
}

export const requestGuard = (platform: Platform) =>
  feature({ name: "request-guard" })
    .onRequest(async ({ request }) => {
      const path = new URL(request.url).pathname;
      countClient(platform, request, path);
      await checkBody(request, path);
    })
    .onTransform({ as: "global" }, ({ body, query, params }) => {
      rejectUnstorable(params, "path ");
      rejectUnstorable(query, "query ");
      rejectUnstorable(body, "");
    });
