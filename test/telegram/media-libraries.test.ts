// Files through the facade with node-telegram-bot-api 0.67 and 2.x and telebot 1.4, unchanged
// but for their API roots: a photo from a Buffer (multipart) with an HTML caption, a document by
// URL (fetched by the server), a resend by file_id, an album, getFile + download with the
// same bytes. 0.67 and telebot send multipart through the `request` library (form-data),
// 2.x through fetch with web streams.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import TelegramBot from "node-telegram-bot-api-classic";
import { Bot as NtbaBot, InputFile } from "node-telegram-bot-api";
import TeleBot from "telebot";
import { MODE } from "../support/harness.ts";
import { inboxConversation, newVisitor, say, startFacade, type Facade, type FacadeBot } from "./support.ts";
import { PDF, PNG, sha256 } from "../files/support.ts";

setDefaultTimeout(60_000);

let facade: Facade;
let site: ReturnType<typeof Bun.serve>;
beforeAll(async () => {
  facade = await startFacade();
  // A site the bot names a document on (ALLOW_PRIVATE_WEBHOOKS is on in tests).
  site = Bun.serve({ port: 0, fetch: (req) => (new URL(req.url).pathname === "/price-list.pdf" ? new Response(PDF) : new Response("no", { status: 404 })) });
});
afterAll(async () => {
  site.stop(true);
  await facade.stop();
});

const pdfUrl = () => `http://127.0.0.1:${site.port}/price-list.pdf`;

async function chatOf(created: FacadeBot) {
  const visitor = newVisitor("Fiona");
  await say(facade, created, visitor, "hello");
  return (await inboxConversation(facade, created, visitor)).number as number;
}

async function bytesAt(url: string) {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

describe(`node-telegram-bot-api 0.67 media (${MODE})`, () => {
  test("sendPhoto from a Buffer with an HTML caption, sendDocument by URL, resend by file_id, an album, getFileLink bytes", async () => {
    const created = await facade.newBot("Ntba Media");
    const bot = new TelegramBot(created.token, { baseApiUrl: facade.url, polling: false });
    const chat = await chatOf(created);

    const photo = await bot.sendPhoto(chat, PNG, { caption: "<b>Sales</b> chart", parse_mode: "HTML" }, { filename: "chart.png", contentType: "image/png" });
    const largest = photo.photo!.at(-1)!;
    expect(largest).toMatchObject({ width: 2, height: 3, file_size: PNG.length });
    expect(photo.caption).toBe("Sales chart");
    expect(photo.caption_entities).toEqual([{ type: "bold", offset: 0, length: 5 }]);

    const doc = await bot.sendDocument(chat, pdfUrl(), { caption: "prices" });
    expect(doc.document).toMatchObject({ file_name: "price-list.pdf", mime_type: "application/pdf", file_size: PDF.length });

    const again = await bot.sendPhoto(chat, largest.file_id);
    expect(again.photo!.at(-1)!.file_unique_id).toBe(largest.file_unique_id);

    const album = await bot.sendMediaGroup(chat, [
      { type: "photo", media: PNG, caption: "<i>first</i>", parse_mode: "HTML", fileOptions: { filename: "one.png" } },
      { type: "photo", media: largest.file_id },
    ]);
    expect(album).toHaveLength(2);
    expect(album[0]!.media_group_id).toBeString();
    expect(album[1]!.media_group_id).toBe(album[0]!.media_group_id!);
    expect(album[0]!.caption_entities).toEqual([{ type: "italic", offset: 0, length: 5 }]);

    const file = await bot.getFile(largest.file_id);
    expect(file.file_size).toBe(PNG.length);
    expect(sha256(await bytesAt(await bot.getFileLink(largest.file_id)))).toBe(sha256(PNG));
    expect(sha256(await bytesAt(await bot.getFileLink(doc.document!.file_id)))).toBe(sha256(PDF));
  });
});

describe(`node-telegram-bot-api 2.x media (${MODE})`, () => {
  test("sendPhoto from bytes with an HTML caption, sendDocument by URL, resend by file_id, an album, getFile bytes", async () => {
    const created = await facade.newBot("Ntba2 Media");
    const api = new NtbaBot(created.token, { apiRoot: facade.url }).api;
    const chat = await chatOf(created);

    const photo = await api.sendPhoto({ chat_id: chat, photo: new InputFile(PNG, { filename: "chart.png" }), caption: "<b>Sales</b> chart", parse_mode: "HTML" });
    const largest = photo.photo!.at(-1)!;
    expect(largest).toMatchObject({ width: 2, height: 3, file_size: PNG.length });
    expect(photo.caption_entities).toEqual([{ type: "bold", offset: 0, length: 5 }]);

    const doc = await api.sendDocument({ chat_id: chat, document: pdfUrl() });
    expect(doc.document).toMatchObject({ file_name: "price-list.pdf", mime_type: "application/pdf", file_size: PDF.length });

    const again = await api.sendPhoto({ chat_id: chat, photo: largest.file_id });
    expect(again.photo!.at(-1)!.file_unique_id).toBe(largest.file_unique_id);

    const album = await api.sendMediaGroup({ chat_id: chat, media: [
      { type: "photo", media: new InputFile(PNG, { filename: "one.png" }), caption: "<i>first</i>", parse_mode: "HTML" },
      { type: "photo", media: largest.file_id },
    ] });
    expect(album).toHaveLength(2);
    expect(album[1]!.media_group_id).toBe(album[0]!.media_group_id!);
    expect(album[0]!.caption_entities).toEqual([{ type: "italic", offset: 0, length: 5 }]);

    const file = await api.getFile({ file_id: largest.file_id });
    expect(sha256(await bytesAt(`${facade.url}/file/bot${created.token}/${file.file_path}`))).toBe(sha256(PNG));
    const pdf = await api.getFile({ file_id: doc.document!.file_id });
    expect(sha256(await bytesAt(`${facade.url}/file/bot${created.token}/${pdf.file_path}`))).toBe(sha256(PDF));
  });
});

describe(`telebot 1.4 media (${MODE})`, () => {
  test("sendPhoto from a Buffer with an HTML caption, sendDocument by URL, resend by file_id, an album, getFile bytes", async () => {
    const created = await facade.newBot("Telebot Media");
    const bot = new TeleBot({ token: created.token });
    // The changes a user makes: the API root and the file root (telebot builds both from the token).
    bot.api = `${facade.url}/bot${created.token}`;
    bot.fileLink = `${facade.url}/file/bot${created.token}/`;
    const chat = await chatOf(created);

    const photo = await bot.sendPhoto(chat, PNG, { caption: "<b>Sales</b> chart", parseMode: "html", fileName: "chart.png" });
    const largest = photo.photo!.at(-1)!;
    expect(largest).toMatchObject({ width: 2, height: 3, file_size: PNG.length });
    expect(photo.caption).toBe("Sales chart");
    expect(photo.caption_entities).toEqual([{ type: "bold", offset: 0, length: 5 }]);

    const doc = await bot.sendDocument(chat, pdfUrl());
    expect(doc.document).toMatchObject({ file_name: "price-list.pdf", mime_type: "application/pdf", file_size: PDF.length });

    const again = await bot.sendPhoto(chat, largest.file_id);
    expect(again.photo!.at(-1)!.file_unique_id).toBe(largest.file_unique_id);

    const album = await bot.sendMediaGroup(chat, [
      { type: "photo", media: largest.file_id, caption: "<u>one</u>", parse_mode: "HTML" },
      { type: "document", media: doc.document!.file_id },
    ]);
    expect(album).toHaveLength(2);
    expect(album[1]!.media_group_id).toBe(album[0]!.media_group_id!);
    expect(album[0]!.caption_entities).toEqual([{ type: "underline", offset: 0, length: 3 }]);

    const file = await bot.getFile(largest.file_id);
    expect(sha256(await bytesAt(file.fileLink))).toBe(sha256(PNG));
    const pdf = await bot.getFile(doc.document!.file_id);
    expect(sha256(await bytesAt(pdf.fileLink))).toBe(sha256(PDF));
  });
});
