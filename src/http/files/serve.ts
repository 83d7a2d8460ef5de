// Serving a file's bytes: pictures, audio, video and PDF inline, everything else as a
// download; never sniffed by the browser, never able to run script in our origin (a
// sandboxing CSP even if something is rendered), seekable (Range) and cacheable (strong ETag).
import { servedInline } from "../../core/files.ts";
import type { ServableFile } from "../../domain/file_access.ts";
import type { ByteRange } from "../../files/store.ts";

/** A document opened in place may show itself and nothing else: no script, no requests, no forms. */
const SANDBOX_CSP = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; object-src 'self'; frame-ancestors *";

function disposition(file: ServableFile["meta"], inline: boolean): string {
  const ascii = file.name.replace(/[^\x20-\x7e]/g, "_").replace(/[\\"]/g, "_");
  return `${inline ? "inline" : "attachment"}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(file.name)}`;
}

/** One `bytes=a-b`, `bytes=a-` or `bytes=-n` range; anything else is served whole, as RFC 9110 allows. */
function parseRange(header: string | null, size: number): ByteRange | "unsatisfiable" | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === "" && match[2] === "")) return undefined;
  let start: number;
  let end: number;
  if (match[1] === "") {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start >= size || start > end) return "unsatisfiable";
  return { start, end };
}

/** `download`: the link's reader asked to save it (a card's Download), whatever the type. */
export async function serveFile(servable: ServableFile, request: Request, download = false): Promise<Response> {
  const file = servable.meta;
  const size = Number(file.size);
  const etag = `"${file.sha256}"`;
  const inline = !download && servedInline(file.mime_type);
  const headers: Record<string, string> = {
    etag,
    "accept-ranges": "bytes",
    "cache-control": "private, max-age=3600",
    "content-disposition": disposition(file, inline),
    "x-content-type-options": "nosniff",
    "content-security-policy": SANDBOX_CSP,
    "cross-origin-resource-policy": "cross-origin",
    // Markup is never handed to a browser as markup, even as a download.
    "content-type": inline || file.mime_type.startsWith("text/plain") || file.mime_type === "text/csv" ? withCharset(file.mime_type) : "application/octet-stream",
  };
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch && ifNoneMatch.split(",").some((t) => t.trim() === etag || t.trim() === "*")) return new Response(null, { status: 304, headers });
  const ifRange = request.headers.get("if-range");
  const range = ifRange && ifRange !== etag ? undefined : parseRange(request.headers.get("range"), size);
  if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...headers, "content-range": `bytes */${size}` } });
  const body = request.method === "HEAD" ? null : await servable.read(range);
  if (request.method !== "HEAD" && !body) return Response.json({ ok: false, error: "file not found", error_code: 404 }, { status: 404 });
  if (range) {
    return new Response(body, {
      status: 206,
      headers: { ...headers, "content-range": `bytes ${range.start}-${range.end}/${size}`, "content-length": String(range.end - range.start + 1) },
    });
  }
  return new Response(body, { status: 200, headers: { ...headers, "content-length": String(size) } });
}

const withCharset = (mime: string) => (mime.startsWith("text/") ? `${mime}; charset=utf-8` : mime);
