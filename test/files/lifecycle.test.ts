// Files' lifecycle, in both modes: a deleted message takes its files with it at once (rows
// and stored bytes) unless another live message still shows them; a deleted bot's files
// go with it; an upload never sent is removed once its grace has passed (an injected clock).
import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { fetchLink, form, PDF, PNG, upload } from "./support.ts";
import { sweepFiles } from "../../src/domain/files.ts";
import { findFile } from "../../src/db/files.ts";
import { UNREFERENCED_FILE_GRACE_MS } from "../../src/core/files.ts";

let client: Client;
let alice: TestUser;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

const chat = () => `chat-${crypto.randomUUID()}`;

async function botFile(bot: TestBot, bytes: Uint8Array, name: string) {
  const up = await upload(client, `/api/bots/${bot.id}/upload-file`, form({}, { bytes, name }), bot.token);
  expect(up.status).toBe(200);
  return up.body.result as { file_id: string; url: string };
}

async function send(bot: TestBot, chatId: string, ids: string[]) {
  const sent = await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: chatId, text: "here", attachments: ids }, bot.token);
  expect(sent.status).toBe(200);
  return sent.body.result.message_id as number;
}

const remove = (bot: TestBot, messageId: number) => client.post(`/api/bots/${bot.id}/delete-message`, { message_id: messageId }, bot.token);

/** Whether the file is still there: its row, its stored bytes, and its link. */
async function present(file: { file_id: string; url: string }) {
  const row = await findFile(client.platform.db, file.file_id);
  const stored = await client.platform.files.get(file.file_id);
  await stored?.cancel();
  const link = await fetchLink(client, file.url);
  return { row: row !== undefined, bytes: stored !== undefined, link: link.status };
}

const THERE = { row: true, bytes: true, link: 200 };
const GONE = { row: false, bytes: false, link: 404 };

describe(`files' lifecycle (${MODE})`, () => {
  test("deleting a message removes its files at once, unless another live message shows them", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
    const shared = await botFile(bot, PNG, "shared.png");
    const own = await botFile(bot, PDF, "own.pdf");
    const first = await send(bot, chatId, [shared.file_id]);
    const second = await send(bot, chatId, [shared.file_id, own.file_id]);

    expect((await remove(bot, second)).status).toBe(200);
    expect(await present(own)).toEqual(GONE);
    expect(await present(shared)).toEqual(THERE);
    expect((await remove(bot, first)).status).toBe(200);
    expect(await present(shared)).toEqual(GONE);
  });

  test("deleting a bot removes its files' bytes at once, sent or not", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
    const sent = await botFile(bot, PNG, "sent.png");
    const unsent = await botFile(bot, PDF, "unsent.pdf");
    await send(bot, chatId, [sent.file_id]);
    const visitor = await upload(client, "/api/files", form({ bot_id: bot.id, chat_id: chatId }, { bytes: PNG, name: "v.png" }));
    expect(visitor.status).toBe(200);

    expect((await client.request("DELETE", `/api/bots/${bot.id}`, { token: alice.token })).status).toBe(200);
    for (const file of [sent, unsent, visitor.body.result]) expect(await present(file)).toEqual(GONE);
  });

  test("an upload never sent is kept through its grace, then swept; a sent one stays", async () => {
    const bot = await createTestBot(client, alice);
    const chatId = chat();
    await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
    const unsent = await botFile(bot, PNG, "draft.png");
    const sent = await botFile(bot, PDF, "sent.pdf");
    await send(bot, chatId, [sent.file_id]);
    const deps = { db: client.platform.db, files: client.platform.files };

    await sweepFiles(deps, Date.now() + UNREFERENCED_FILE_GRACE_MS - 60_000);
    expect(await present(unsent)).toEqual(THERE);

    // Past the grace; a database shared with earlier runs may hold more than one sweep's batch.
    const later = Date.now() + UNREFERENCED_FILE_GRACE_MS + 60_000;
    for (let i = 0; i < 100 && (await sweepFiles(deps, later)) > 0; i++);
    expect(await present(unsent)).toEqual(GONE);
    expect(await present(sent)).toEqual(THERE);
  });
});
