// Browser assets built from web/ by Bun's bundler on first request and kept in memory:
// no build step, no files written, and a process only pays for what it serves.
import { createHash } from "node:crypto";
import { join } from "node:path";

export const WEB_DIR = join(import.meta.dir, "../../../web");

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer>;
  etag: string;
  type: string;
}

/** Past this gzipped size the widget stops being "small" (Chatwoot ships 170 KiB). */
export const WIDGET_GZIP_BUDGET_BYTES = 12 * 1024;

/** What the bundler reads for each served script. */
export const SCRIPT_ENTRIES = {
  widget: join(WEB_DIR, "widget/index.ts"),
  cabinet: join(WEB_DIR, "cabinet/main.tsx"),
  serviceWorker: join(WEB_DIR, "sw/index.ts"),
  /** uPlot and the Reports page's drawing, loaded by that page only: the cabinet's bundle never carries the library. */
  charts: join(WEB_DIR, "charts/index.ts"),
} as const;

/** uPlot's own stylesheet, served beside the charts script. */
export const CHARTS_CSS = Bun.resolveSync("uplot/dist/uPlot.min.css", import.meta.dir);

const encoder = new TextEncoder();

export function makeAsset(text: string, type: string): Asset {
  const body = encoder.encode(text);
  return {
    body,
    gzip: Bun.gzipSync(body, { level: 9 }) as Uint8Array<ArrayBuffer>,
    etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
    type,
  };
}

/**
 * The cabinet's JSX is Preact's (tsconfig.json says the same for the typecheck); given here
 * too, so a bundle never depends on which tsconfig Bun happens to find.
 */
export const BROWSER_JSX = { runtime: "automatic", importSource: "preact", development: false } as const;

/** One IIFE per entry, minified: it shares no globals with the page that loads it. */
export async function bundleScript(entry: string): Promise<string> {
  const result = await Bun.build({ entrypoints: [entry], target: "browser", format: "iife", minify: true, jsx: BROWSER_JSX });
  if (!result.success || !result.outputs[0]) {
    throw new Error(`building ${entry} failed: ${result.logs.map((l) => String(l)).join("; ")}`);
  }
  return result.outputs[0].text();
}

/**
 * Memoises an async asset; a failed build is forgotten so the next request tries again
 * rather than serving the failure for the life of the process.
 */
export function lazyAsset(load: () => Promise<Asset>): () => Promise<Asset> {
  let pending: Promise<Asset> | undefined;
  return () => {
    pending ??= load().catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}

/** 304 when the browser has it; gzip when the browser takes it. */
export function serveAsset(request: Request, asset: Asset, cacheControl: string): Response {
  const headers: Record<string, string> = {
    "content-type": asset.type,
    etag: asset.etag,
    "cache-control": cacheControl,
    vary: "Accept-Encoding",
    "x-content-type-options": "nosniff",
  };
  if (request.headers.get("if-none-match") === asset.etag) return new Response(null, { status: 304, headers });
  if (/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) {
    return new Response(asset.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  return new Response(asset.body, { headers });
}
