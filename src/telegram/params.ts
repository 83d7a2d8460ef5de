// Telegram's parameter passing: the query string and a JSON, urlencoded or multipart body,
// merged (the body wins). Form and query values are always strings, so readers accept an
// integer written as digits and an object written as JSON text, as Telegram does.
import type { Params } from "./model.ts";
import { TelegramError, tgBadRequest } from "./errors.ts";
import { findUnstorableText, jsonTooDeep, tooDeepMessage, unstorableMessage } from "../core/input.ts";
import { MAX_BODY_BYTES } from "../core/limits.ts";
import { MAX_FILES_PER_MESSAGE } from "../core/files.ts";
import { AppError } from "../core/errors.ts";
import { readMultipart, type FilePart } from "../domain/multipart.ts";

const INTEGER = /^-?\d{1,16}$/;

/** docs/design.md §7's 64 KiB body limit, applied again to what a compressed body expands to. */
export const MAX_DECODED_BODY_BYTES = MAX_BODY_BYTES;
/** Content-Encoding values a client may compress its body with (Telegraf on Bun gzips every call). */
const DECODERS: Record<string, CompressionFormat> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate" };

async function decodedBody(request: Request): Promise<Uint8Array> {
  const encoding = (request.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (encoding === "" || encoding === "identity") return new Uint8Array(await request.arrayBuffer());
  const format = DECODERS[encoding];
  if (!format) throw tgBadRequest(`unsupported Content-Encoding "${encoding}"`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body!.pipeThrough(new DecompressionStream(format)).getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      size += next.value.byteLength;
      if (size > MAX_DECODED_BODY_BYTES) throw new TelegramError(413, "Request Entity Too Large");
      chunks.push(next.value);
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    if (err instanceof TelegramError) throw err;
    throw tgBadRequest(`can't decode the ${encoding} request body`);
  }
  return Buffer.concat(chunks);
}

function jsonBody(bytes: Uint8Array): Params {
  const text = new TextDecoder().decode(bytes);
  if (text.trim() === "") return {};
  if (jsonTooDeep(text)) throw tgBadRequest(tooDeepMessage());
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw tgBadRequest("can't parse JSON object: the request body is not valid JSON");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw tgBadRequest("can't parse JSON object: the request body must be a JSON object");
  }
  return body as Params;
}

/** Streams a multipart body: text fields become parameters, each file part is handed to `onFile` as it arrives. */
async function multipartBody(request: Request, contentType: string, onFile: (part: FilePart) => Promise<unknown>): Promise<Params> {
  const encoding = (request.headers.get("content-encoding") ?? "").trim().toLowerCase();
  let body = request.body!;
  if (encoding !== "" && encoding !== "identity") {
    const format = DECODERS[encoding];
    if (!format) throw tgBadRequest(`unsupported Content-Encoding "${encoding}"`);
    body = body.pipeThrough(new DecompressionStream(format));
  }
  try {
    const { fields, files } = await readMultipart(contentType, body, onFile, { maxFiles: MAX_FILES_PER_MESSAGE, maxFieldBytes: MAX_DECODED_BODY_BYTES });
    return { ...fields, ...Object.fromEntries(files) };
  } catch (err) {
    if (err instanceof AppError) throw err.code === "bad_request" ? tgBadRequest(err.message) : err;
    throw tgBadRequest("can't parse multipart/form-data body");
  }
}

/** Without a place to put files (tests, non-media callers), their bytes are read and dropped. */
const dropFile = async (part: FilePart) => {
  for await (const _chunk of part.stream) void _chunk;
  return undefined;
};

/** Every parameter, with text PostgreSQL cannot store refused up front, naming the parameter. */
export async function readParams(request: Request, onFile: (part: FilePart) => Promise<unknown> = dropFile): Promise<Params> {
  const params = await mergedParams(request, onFile);
  const field = findUnstorableText(params);
  if (field) throw tgBadRequest(unstorableMessage(field));
  return params;
}

async function mergedParams(request: Request, onFile: (part: FilePart) => Promise<unknown>): Promise<Params> {
  const query: Params = Object.fromEntries(new URL(request.url).searchParams);
  if (!request.body || request.method === "GET" || request.method === "HEAD") return query;
  const contentType = request.headers.get("content-type") ?? "";
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") return query;
  if (type === "multipart/form-data") return { ...query, ...(await multipartBody(request, contentType, onFile)) };
  const bytes = await decodedBody(request);
  if (type === "application/json") return { ...query, ...jsonBody(bytes) };
  if (type === "application/x-www-form-urlencoded") {
    return { ...query, ...Object.fromEntries(new URLSearchParams(new TextDecoder().decode(bytes))) };
  }
  return query;
}

const absent = (value: unknown) => value === undefined || value === null || value === "";

export function optionalInt(params: Params, name: string): number | undefined {
  const value = params[name];
  if (absent(value)) return undefined;
  if (typeof value === "number" && Number.isSafeInteger(value)) return value;
  if (typeof value === "string" && INTEGER.test(value.trim())) {
    const n = Number(value.trim());
    if (Number.isSafeInteger(n)) return n;
  }
  throw tgBadRequest(`${name}: expected an integer`);
}

export function requireInt(params: Params, name: string, missing = `${name} is empty`): number {
  const value = optionalInt(params, name);
  if (value === undefined) throw tgBadRequest(missing);
  return value;
}

export function optionalString(params: Params, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  throw tgBadRequest(`${name}: expected a string`);
}

/** A JSON-serialised object or array, or the value itself when the body was JSON. */
function optionalJson(params: Params, name: string, what = "JSON object"): unknown {
  const value = params[name];
  if (absent(value)) return undefined;
  if (typeof value !== "string") return value;
  if (jsonTooDeep(value)) throw tgBadRequest(`can't parse ${what}: ${name} nests too deep`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw tgBadRequest(`can't parse ${what}: ${name} is not valid JSON`);
  }
  const field = findUnstorableText(parsed, name);
  if (field) throw tgBadRequest(unstorableMessage(field));
  return parsed;
}

export function optionalObject(params: Params, name: string, what = "JSON object"): Record<string, unknown> | undefined {
  const value = optionalJson(params, name, what);
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw tgBadRequest(`can't parse ${what}: ${name} must be an object`);
  return value as Record<string, unknown>;
}

export function optionalArray(params: Params, name: string): unknown[] | undefined {
  const value = optionalJson(params, name, "JSON array");
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw tgBadRequest(`can't parse JSON array: ${name} must be an array`);
  return value;
}

export function optionalBool(params: Params, name: string): boolean | undefined {
  const value = params[name];
  if (absent(value)) return undefined;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "1" || value === 1) return true;
  if (value === "false" || value === "0" || value === 0) return false;
  throw tgBadRequest(`${name}: expected a Boolean`);
}

/** A chat as a Telegram client names it: our conversation number, or a native chat_id string. */
export type ChatRef = { number: number } | { chatId: string };

export function requireChat(params: Params): ChatRef {
  const value = params.chat_id;
  if (absent(value)) throw tgBadRequest("chat_id is empty");
  if (typeof value === "number") {
    if (!Number.isSafeInteger(value)) throw tgBadRequest("chat_id: expected an integer or a string");
    return { number: value };
  }
  if (typeof value !== "string") throw tgBadRequest("chat_id: expected an integer or a string");
  const trimmed = value.trim();
  return INTEGER.test(trimmed) && Number.isSafeInteger(Number(trimmed)) ? { number: Number(trimmed) } : { chatId: value };
}
