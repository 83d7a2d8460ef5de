// Files: upload and download MB/s through the platform (bot uploads: streamed multipart,
// sniffed, hashed, stored; downloads: signed links) next to a bare Bun file server measured
// in the same run (the body streamed to a file, served with Bun.file). Same files, same
// concurrency, over real HTTP on loopback. Runs in the mode the env names (DATABASE_URL +
// NATS_URL → Postgres + a JetStream Object Store; neither → embedded, DATA_DIR-style files).
//   bun bench/files.ts [--files 16] [--mb 8] [--concurrency 4]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { startBenchServer } from "./server.ts";
import { numberArg } from "./stats.ts";

const FILES = numberArg("files", 16);
const MB = numberArg("mb", 8);
const CONCURRENCY = numberArg("concurrency", 4);

const { config, db, server, request } = await startBenchServer();
const json = async (path: string, body: unknown, token?: string) => (await request("POST", path, body, token)).result;
const user = await json("/api/auth/register", { email: `bench-${Date.now()}@example.com`, password: "bench-password" });
const bot = await json("/api/bots", { name: "Files bench" }, user.token);

// The baseline: what Bun alone does with the same bytes.
const dir = mkdtempSync(join(tmpdir(), "bench-files-"));
const bare = Bun.serve({
  port: 0, hostname: "127.0.0.1", maxRequestBodySize: 1 << 30,
  async fetch(request) {
    const name = new URL(request.url).pathname.slice(1);
    if (request.method === "POST") {
      const writer = Bun.file(join(dir, name)).writer();
      for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) writer.write(chunk);
      await writer.end();
      return Response.json({ ok: true });
    }
    return new Response(Bun.file(join(dir, name)));
  },
});

const payloads = Array.from({ length: FILES }, () => randomBytes(MB * 1024 * 1024));
const total = FILES * MB;

async function pool<T>(items: T[], run: (item: T, i: number) => Promise<void>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < items.length; i = next++) await run(items[i]!, i);
  }));
  return (performance.now() - started) / 1000;
}

const multipart = (bytes: Uint8Array, name: string) => {
  const form = new FormData();
  form.append("file", new Blob([bytes as BlobPart]), name);
  return form;
};

const urls: string[] = [];
const platformUp = await pool(payloads, async (bytes, i) => {
  const res = await fetch(`${server.url}/api/bots/${bot.id}/upload-file`, { method: "POST", body: multipart(bytes, `f${i}.bin`), headers: { authorization: `Bearer ${bot.token}` } });
  const body = (await res.json()) as any;
  if (!body.ok) throw new Error(`upload: ${JSON.stringify(body)}`);
  const link = new URL(body.result.url);
  urls[i] = `${server.url}${link.pathname}${link.search}`;
});
const platformDown = await pool(urls, async (url, i) => {
  const got = await (await fetch(url)).arrayBuffer();
  if (got.byteLength !== payloads[i]!.length) throw new Error("short download");
});
const bareUp = await pool(payloads, async (bytes, i) => {
  await (await fetch(`http://127.0.0.1:${bare.port}/f${i}`, { method: "POST", body: bytes })).arrayBuffer();
});
const bareDown = await pool(payloads, async (bytes, i) => {
  const got = await (await fetch(`http://127.0.0.1:${bare.port}/f${i}`)).arrayBuffer();
  if (got.byteLength !== bytes.length) throw new Error("short download");
});

const rate = (seconds: number) => `${(total / seconds).toFixed(0).padStart(6)} MB/s`;
console.log(`files: ${FILES} × ${MB} MB, ${CONCURRENCY} at a time, ${process.env.NATS_URL ? "production (JetStream Object Store)" : "embedded (files on disk)"}`);
console.log(`                 upload        download`);
console.log(`platform    ${rate(platformUp)}     ${rate(platformDown)}`);
console.log(`bare Bun    ${rate(bareUp)}     ${rate(bareDown)}`);
console.log(`platform/bare   ${((bareUp / platformUp) * 100).toFixed(0)}%            ${((bareDown / platformDown) * 100).toFixed(0)}%`);

bare.stop(true);
rmSync(dir, { recursive: true, force: true });
await server.stop();
process.exit(0);
