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

/** Reads at most MAX_BODY_BYTES + 1 bytes of a copy of the body; the route reads the original. */
async function boundedCopy(request: Request): Promise<Uint8Array> {
  const reader = request.clone().body!.getReader();
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
  return Buffer.concat(chunks);
}

const isJson = (request: Request) => {
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
};

/** Body size first (from the header when declared), then, for JSON, nesting depth. */
async function checkBody(request: Request): Promise<void> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return;
  const identity = (request.headers.get("content-encoding") ?? "identity").trim().toLowerCase() === "identity";
  // A compressed body's bytes say nothing about its nesting; the reader that inflates it checks (telegram/params.ts).
  if (declared !== null && !(isJson(request) && identity)) return;
  const bytes = await boundedCopy(request);
  if (isJson(request) && identity && jsonTooDeep(new TextDecoder().decode(bytes))) throw badRequest(tooDeepMessage());
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
      countClient(platform, request, new URL(request.url).pathname);
      await checkBody(request);
    })
    .onTransform({ as: "global" }, ({ body, query, params }) => {
      rejectUnstorable(params, "path ");
      rejectUnstorable(query, "query ");
      rejectUnstorable(body, "");
    });
