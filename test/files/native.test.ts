import { beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { fetchLink, form, HTML, linkPath, PDF, PNG, sha256, SVG, upload } from "./support.ts";

let client: Client;
let alice: TestUser;
let bot: TestBot;
beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
  bot = await createTestBot(client, alice);
});

const chat = () => `chat-${crypto.randomUUID()}`;
const visitorUpload = (b: TestBot, chatId: string, file: { bytes: Uint8Array; name: string; type?: string }) =>
  upload(client, "/api/files", form({ bot_id: b.id, chat_id: chatId }, file));

describe("a visitor's file, end to end", () => {
  test("upload → message with attachments → history, the bot's update and the inbox list it with a working link", async () => {
    const chatId = chat();
    const up = await visitorUpload(bot, chatId, { bytes: PNG, name: "screen shot.png", type: "image/png" });
    expect(up.status).toBe(200);
    const file = up.body.result;
    expect(file).toMatchObject({ kind: "photo", name: "screen shot.png", mime_type: "image/png", size: PNG.length, width: 2, height: 3 });
    expect(file.url).toContain(`/api/files/${file.file_id}?expires=`);

    const sent = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "", channel: "web", attachments: [file.file_id] });
    expect(sent.status).toBe(200);
    const history = await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`);
    expect(history.body.result[0].attachments).toHaveLength(1);
    expect(history.body.result[0].attachments[0]).toMatchObject({ file_id: file.file_id, mime_type: "image/png" });

    const updates = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    const message = updates.body.result.at(-1).message;
    expect(message.attachments[0]).toMatchObject({ file_id: file.file_id, kind: "photo", width: 2, height: 3 });
    const got = await fetchLink(client, message.attachments[0].url);
    expect(got.status).toBe(200);
    expect(sha256(got.bytes)).toBe(sha256(PNG));
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(got.headers.get("content-disposition")).toStartWith("inline");
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    expect(got.headers.get("content-security-policy")).toContain("sandbox");

    const detail = await client.get(`/api/inbox/${sent.body.result.conversation_id}`, alice.token);
    expect(detail.body.result.messages.at(-1).attachments[0].file_id).toBe(file.file_id);
  });

  test("Range requests seek and a strong ETag answers 304", async () => {
    const up = await visitorUpload(bot, chat(), { bytes: PDF, name: "invoice.pdf" });
    const url = up.body.result.url;
    const part = await fetchLink(client, url, { range: "bytes=5-9" });
    expect(part.status).toBe(206);
    expect(part.headers.get("content-range")).toBe(`bytes 5-9/${PDF.length}`);
    expect(Buffer.from(part.bytes).toString()).toBe(PDF.subarray(5, 10).toString());
    const tail = await fetchLink(client, url, { range: "bytes=-6" });
    expect(Buffer.from(tail.bytes).toString()).toBe("%%EOF\n");
    expect((await fetchLink(client, url, { range: `bytes=${PDF.length + 5}-` })).status).toBe(416);
    const whole = await fetchLink(client, url);
    expect(whole.headers.get("content-type")).toBe("application/pdf");
    expect(whole.headers.get("content-disposition")).toStartWith("inline");
    const etag = whole.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect((await fetchLink(client, url, { "if-none-match": etag })).status).toBe(304);
    // A file card's link asks for a download, whatever the type.
    const saved = await fetchLink(client, `${url}&download=1`);
    expect(saved.headers.get("content-disposition")).toStartWith("attachment");
    expect(sha256(saved.bytes)).toBe(sha256(PDF));
  });

  test("an expired or altered link is 403", async () => {
    const up = await visitorUpload(bot, chat(), { bytes: PNG, name: "a.png" });
    const path = linkPath(up.body.result.url);
    const altered = path.replace(/sig=(.)/, (_m, c) => `sig=${c === "A" ? "B" : "A"}`);
    expect((await client.get(altered)).status).toBe(403);
    const otherExpiry = path.replace(/expires=(\d+)/, (_m, n) => `expires=${Number(n) + 3600}`);
    expect((await client.get(otherExpiry)).status).toBe(403);
    const { filePath } = await import("../../src/file-links.ts");
    const expired = filePath(up.body.result.file_id, Date.now() - 3 * 24 * 3600_000);
    const res = await client.get(expired);
    expect(res.status).toBe(403);
    expect(res.body.error).toContain("expired");
  });

  test("a visitor may not send HTML or SVG (415 in plain words), even named .png", async () => {
    for (const bytes of [HTML, SVG]) {
      const res = await visitorUpload(bot, chat(), { bytes, name: "cute-cat.png", type: "image/png" });
      expect(res.status).toBe(415);
      expect(res.body.error).toMatch(/cannot be sent here/);
    }
  });

  test("another chat's and another bot's file is 'wrong file identifier'", async () => {
    const chatId = chat();
    const mine = (await visitorUpload(bot, chatId, { bytes: PNG, name: "a.png" })).body.result;
    const other = await createTestBot(client, alice);
    const res1 = await client.post("/api/messages", { bot_id: bot.id, chat_id: chat(), text: "x", attachments: [mine.file_id] });
    expect(res1.status).toBe(400);
    expect(res1.body.error).toContain("wrong file identifier");
    const res2 = await client.post("/api/messages", { bot_id: other.id, chat_id: chatId, text: "x", attachments: [mine.file_id] });
    expect(res2.status).toBe(400);
    const res3 = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "x", attachments: ["not-a-file"] });
    expect(res3.body.error).toContain("wrong file identifier");
    const empty = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "" });
    expect(empty.status).toBe(400);
  });

  test("an upload declared larger than the limit is 413 before its body is read", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 65536;
        controller.enqueue(new Uint8Array(65536));
        if (pulled > 30 * 1024 * 1024) controller.close();
      },
    });
    const res = await client.app.handle(new Request("http://test.local/api/files", {
      method: "POST", body, headers: { "content-type": "multipart/form-data; boundary=x", "content-length": String(30 * 1024 * 1024) },
      // @ts-expect-error Bun's fetch types lack duplex
      duplex: "half",
    }));
    expect(res.status).toBe(413);
    expect(pulled).toBeLessThan(1024 * 1024);
  });
});

describe("a bot's and an operator's files", () => {
  test("a bot uploads once and sends to a chat; an operator sends a file back; both show in history", async () => {
    const chatId = chat();
    const first = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "web" });
    const up = await upload(client, `/api/bots/${bot.id}/upload-file`, form({}, { bytes: PDF, name: "price list.pdf" }), bot.token);
    expect(up.status).toBe(200);
    expect(up.body.result.kind).toBe("document");
    const sent = await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: chatId, text: "Our prices", attachments: [up.body.result.file_id] }, bot.token);
    expect(sent.status).toBe(200);
    expect(sent.body.result.attachments[0].file_id).toBe(up.body.result.file_id);

    const conversationId = first.body.result.conversation_id;
    const op = await upload(client, `/api/inbox/${conversationId}/files`, form({}, { bytes: HTML, name: "notes.html" }), alice.token);
    expect(op.status).toBe(200);
    expect(op.body.result.mime_type).toBe("text/html");
    const reply = await client.post(`/api/inbox/${conversationId}`, { text: "", attachments: [op.body.result.file_id] }, alice.token);
    expect(reply.status).toBe(200);
    const history = (await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${chatId}`)).body.result;
    expect(history.map((m: any) => m.attachments.length)).toEqual([0, 1, 1]);
    // HTML is never handed to a browser as a page: a download of opaque bytes, sandboxed.
    const got = await fetchLink(client, history[2].attachments[0].url);
    expect(got.headers.get("content-type")).toBe("application/octet-stream");
    expect(got.headers.get("content-disposition")).toStartWith("attachment");
    expect(sha256(got.bytes)).toBe(sha256(HTML));

    const stranger = await registerUser(client);
    const refused = await upload(client, `/api/inbox/${conversationId}/files`, form({}, { bytes: PNG, name: "a.png" }), stranger.token);
    expect(refused.status).toBe(404);
  });
});
