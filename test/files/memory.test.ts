// A 50 MB bot upload is streamed into the store, never held whole: the server process (a
// separate one, so the test's own memory does not count) grows by less than 30 MB of RSS
// while it receives the file. Production mode runs `web` on the environment's PostgreSQL and
// NATS (the Object Store); embedded mode the all-in-one on a fresh DATA_DIR.
import { expect, test } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { MAX_BOT_UPLOAD_BYTES } from "../../src/core/files.ts";
import { MODE } from "../support/harness.ts";
import { createBot, embeddedProcess, tempDir, useCleanup, webProcess } from "../chaos/support.ts";

useCleanup();

/** The bar: a 50 MB upload may cost the server at most this much memory. */
const MAX_GROWTH_BYTES = 30 * 1024 * 1024;
const CHUNK = 64 * 1024;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;

/** A multipart body of `size` bytes of file, produced as it is sent. */
function multipart(size: number) {
  const boundary = `----botinbox${crypto.randomUUID()}`;
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const block = randomBytes(CHUNK);
  const hash = createHash("sha256");
  let sent = 0;
  let stage = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 0) {
        stage = 1;
        controller.enqueue(head);
      } else if (sent < size) {
        const part = block.subarray(0, Math.min(CHUNK, size - sent));
        sent += part.byteLength;
        hash.update(part);
        controller.enqueue(part);
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
  return { body, boundary, length: head.length + size + tail.length, sha256: () => hash.digest("hex") };
}

test(`a 50 MB bot upload grows the server's RSS by less than 30 MB (${MODE})`, async () => {
  const app = process.env.DATABASE_URL
    ? webProcess("files-memory.web", { databaseUrl: process.env.DATABASE_URL, natsUrl: process.env.NATS_URL! }, { NATS_PREFIX: process.env.NATS_PREFIX ?? "" })
    : embeddedProcess("files-memory.embedded", tempDir("files-memory"));
  await app.up(90_000);
  const pid = app.child!.pid;
  const bot = await createBot(app.url);
  const send = async (size: number) => {
    const upload = multipart(size);
    const res = await fetch(`${app.url}/api/bots/${bot.id}/upload-file`, {
      method: "POST", body: upload.body,
      headers: { authorization: `Bearer ${bot.token}`, "content-type": `multipart/form-data; boundary=${upload.boundary}`, "content-length": String(upload.length) },
      // @ts-expect-error Bun's fetch types lack duplex
      duplex: "half",
    });
    return { status: res.status, body: (await res.json()) as any, sha256: upload.sha256() };
  };
  // Warm up: every module an upload touches is loaded, its buffers allocated once.
  expect((await send(2 * 1024 * 1024)).status).toBe(200);
  Bun.gc(true);
  await Bun.sleep(500);
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(pid));
  }, 20);
  const started = performance.now();
  const big = await send(MAX_BOT_UPLOAD_BYTES);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  expect(big.status).toBe(200);
  expect(big.body.result.size).toBe(MAX_BOT_UPLOAD_BYTES);
  const growth = peak - before;
  console.log(`RSS before ${(before / 2 ** 20).toFixed(1)} MB, peak during the 50 MB upload ${(peak / 2 ** 20).toFixed(1)} MB: +${(growth / 2 ** 20).toFixed(1)} MB, in ${seconds.toFixed(1)} s`);
  expect(growth).toBeLessThan(MAX_GROWTH_BYTES);
  await app.kill("SIGTERM");
}, 180_000);
