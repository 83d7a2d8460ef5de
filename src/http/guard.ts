// What every request meets before a parser or validator touches it: the body's size and
// nesting are checked on the raw bytes, per-client limits are counted (so a request that
// then fails validation still costs its sender), and text PostgreSQL cannot store is
// refused with a 400 naming the field instead of failing deep inside a query as a 500.
import { AppError, badRequest } from "../core/errors.ts";
import type { Services } from "../services.ts";
import { clientIp } from "./client.ts";
import { PUBLIC_CORS_PATHS } from "./cors.ts";
import { feature } from "./feature.ts";
import { requestPath } from "./paths.ts";
import { jsonTooDeep, rejectUnstorable, tooDeepMessage } from "./input.ts";
import { MAX_BODY_BYTES } from "../core/limits.ts";
import { MAX_BOT_UPLOAD_BYTES, MAX_CHAT_FILE_BYTES, MAX_UPLOAD_REQUEST_BYTES, MULTIPART_OVERHEAD_BYTES } from "../core/files.ts";

/** docs/design.md §7: bodies above 64 KiB are refused with 413 before they are read. */
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
async function readJsonOnce(request: Request, declared: string | null): Promise<void> {
  // A declared length (already checked against the limit) bounds the body: Bun reads no more
  // than it, natively, without the stream reader's per-chunk promises (~6% of an ingest
  // request's CPU). Only a chunked body is read through the bounded reader.
  const text = declared !== null ? await request.text() : new TextDecoder().decode(await readBounded(request.body!));
  if (jsonTooDeep(text)) throw badRequest(tooDeepMessage());
  Object.defineProperties(request, {
    json: { value: async () => JSON.parse(text) },
    text: { value: async () => text },
  });
}

const isMultipart = (request: Request) => (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase() === "multipart/form-data";

/**
 * The routes that take files read their multipart bodies themselves, streaming, each file
 * bounded by its own limit; only these get more than 64 KiB. Undefined for every other route.
 */
function uploadLimit(request: Request, path: string): number | undefined {
  if (request.method !== "POST" || !isMultipart(request)) return undefined;
  if (path === "/api/files" || /^\/api\/inbox\/[^/]+\/files$/.test(path)) return MAX_CHAT_FILE_BYTES + MULTIPART_OVERHEAD_BYTES;
  if (/^\/api\/bots\/[^/]+\/upload-file$/.test(path)) return MAX_BOT_UPLOAD_BYTES + MULTIPART_OVERHEAD_BYTES;
  // The facade's media methods: sendMediaGroup carries up to 10 files.
  if (readsOwnBody(path)) return MAX_UPLOAD_REQUEST_BYTES;
  return undefined;
}

/**
 * Body size first (from the header when declared), then nesting for JSON. Any other body
 * without a declared size is measured on a copy; the facade reads its own bodies (any
 * encoding, multipart), so its JSON is checked on a copy too.
 */
async function checkBody(request: Request, path: string): Promise<void> {
  const declared = request.headers.get("content-length");
  const upload = uploadLimit(request, path);
  if (upload !== undefined) {
    // Refused before a byte is read; an undeclared size is counted while the route streams it.
    if (declared !== null && Number(declared) > upload) throw new AppError("payload_too_large", `the upload is larger than ${upload} bytes`);
    return;
  }
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return;
  const json = isJsonType(request.headers.get("content-type") ?? "") && isIdentity(request);
  if (json && !readsOwnBody(path)) return readJsonOnce(request, declared);
  // A compressed body's bytes say nothing about its nesting; the reader that inflates it checks (telegram/params.ts).
  if (declared !== null && !json) return;
  const bytes = await readBounded(request.clone().body!);
  if (json && jsonTooDeep(new TextDecoder().decode(bytes))) throw badRequest(tooDeepMessage());
}

/** Per-client limits counted on arrival, before the body is parsed or validated. */
function countClient(limits: Services["limits"], request: Request, path: string): void {
  if (request.method === "OPTIONS") return;
  if (PUBLIC_CORS_PATHS.has(path)) limits.publicClient(clientIp(request));
  else if (request.method === "POST" && path === "/api/auth/login") limits.loginClient(clientIp(request));
  else if (request.method === "POST" && path === "/api/auth/register") limits.registerClient(clientIp(request));
}

export const requestGuard = (services: Services) =>
  feature({ name: "request-guard" })
    .onRequest(async ({ request }) => {
      const path = requestPath(request);
      countClient(services.limits, request, path);
      await checkBody(request, path);
    })
    .onTransform({ as: "global" }, ({ body, query, params }) => {
      rejectUnstorable(params, "path ");
      rejectUnstorable(query, "query ");
      rejectUnstorable(body, "");
    });
