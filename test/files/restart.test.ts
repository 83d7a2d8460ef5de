// Files survive a restart, in both modes: uploaded and sent, the platform closed, a new one
// opened on the same DATA_DIR (embedded: PGlite and DATA_DIR/files on disk) or the same
// PostgreSQL and NATS (production: the Object Store bucket), and the same link downloads
// the same bytes; the bot's getFile still finds it.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { clientFor, createTestBot, MODE, registerUser, testConfig } from "../support/harness.ts";
import { createLogger } from "../../src/logger.ts";
import { openPlatform, type Platform } from "../../src/platform.ts";
import { fetchLink, form, PNG, sha256, upload } from "./support.ts";

const dataDir = mkdtempSync(join(tmpdir(), "files-restart-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function open(): Promise<Platform> {
  // Embedded: on disk in dataDir, not the tests' shared in-memory database.
  const config = testConfig({ dataDir });
  return openPlatform(config, createLogger(config), { migrate: !process.env.DATABASE_URL, relayIntervalMs: 0 });
}

test(`uploaded files download with the same bytes after a restart (${MODE})`, async () => {
  // Large enough to span many Object Store chunks and several disk writes.
  const big = randomBytes(3 * 1024 * 1024 + 17);
  let platform = await open();
  let client = clientFor(platform);
  const alice = await registerUser(client);
  const bot = await createTestBot(client, alice);
  const chatId = `chat-${crypto.randomUUID()}`;
  await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
  const visitor = await upload(client, "/api/files", form({ bot_id: bot.id, chat_id: chatId }, { bytes: PNG, name: "shot.png" }));
  expect(visitor.status).toBe(200);
  await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "", channel: "web", attachments: [visitor.body.result.file_id] });
  const own = await upload(client, `/api/bots/${bot.id}/upload-file`, form({}, { bytes: big, name: "backup.bin" }), bot.token);
  expect(own.status).toBe(200);
  await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: chatId, text: "backup", attachments: [own.body.result.file_id] }, bot.token);
  await platform.close();
  // What a new process finds: in embedded mode the bytes are in DATA_DIR, not a temporary folder.
  if (MODE === "embedded") expect(existsSync(join(dataDir, "files", own.body.result.file_id))).toBe(true);

  platform = await open();
  try {
    client = clientFor(platform);
    const history = (await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`)).body.result;
    const links = history.flatMap((m: any) => m.attachments.map((a: any) => a.url));
    expect(links).toHaveLength(2);
    const [picture, backup] = await Promise.all(links.map((url: string) => fetchLink(client, url)));
    expect(picture!.status).toBe(200);
    expect(sha256(picture!.bytes)).toBe(sha256(PNG));
    expect(backup!.status).toBe(200);
    expect(sha256(backup!.bytes)).toBe(sha256(big));
    // The link handed out before the restart still works too.
    expect(sha256((await fetchLink(client, own.body.result.url)).bytes)).toBe(sha256(big));
    const file = await client.request("POST", `/bot${bot.token}/getFile`, { body: { file_id: own.body.result.file_id } });
    expect(file.body.result).toMatchObject({ file_id: own.body.result.file_id, file_size: big.length });
  } finally {
    await platform.close();
  }
}, 120_000);
