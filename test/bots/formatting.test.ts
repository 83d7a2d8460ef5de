// parse_mode and entities on send and edit, native and facade: stored as text +
// entities, returned as Telegram returns them, refused with "can't parse entities".
import { beforeAll, describe, expect, test } from "bun:test";
import { formatText } from "../../src/core/formatting/index.ts";
import { botWithChat, native, tg, world, type World } from "./support.ts";
import { MODE } from "../support/harness.ts";

let w: World;
beforeAll(async () => {
  w = await world();
});

const read = (text: string, parse_mode: string) => formatText({ text, parse_mode });

describe("parse modes", () => {
  test("HTML: Telegram's tags and character references become text + entities", () => {
    expect(read('<b>bold</b> &amp; <i>it</i> <u>u</u> <s>s</s> <tg-spoiler>sp</tg-spoiler> <a href="https://x.example/?a=1&amp;b=2">link</a> <code>c</code> <pre><code class="language-js">x&lt;1</code></pre>', "HTML")).toEqual({
      text: "bold & it u s sp link c x<1",
      entities: [
        { type: "bold", offset: 0, length: 4 }, { type: "italic", offset: 7, length: 2 }, { type: "underline", offset: 10, length: 1 },
        { type: "strikethrough", offset: 12, length: 1 }, { type: "spoiler", offset: 14, length: 2 },
        { type: "text_link", offset: 17, length: 4, url: "https://x.example/?a=1&b=2" }, { type: "code", offset: 22, length: 1 },
        { type: "pre", offset: 24, length: 3, language: "js" },
      ],
    });
    expect(read("<b>outer <i>inner</i></b>", "html").entities).toEqual([{ type: "bold", offset: 0, length: 11 }, { type: "italic", offset: 6, length: 5 }]);
  });

  test("MarkdownV2 and Markdown: markers, escapes, links; offsets in UTF-16 code units", () => {
    expect(read("*bold* _it_ __u__ ~s~ ||sp|| `c` [l](https://a.example/x\\)) \\. 😀*e*", "MarkdownV2")).toEqual({
      text: "bold it u s sp c l . 😀e",
      entities: [
        { type: "bold", offset: 0, length: 4 }, { type: "italic", offset: 5, length: 2 }, { type: "underline", offset: 8, length: 1 },
        { type: "strikethrough", offset: 10, length: 1 }, { type: "spoiler", offset: 12, length: 2 }, { type: "code", offset: 15, length: 1 },
        { type: "text_link", offset: 17, length: 1, url: "https://a.example/x)" }, { type: "bold", offset: 23, length: 1 },
      ],
    });
    expect(read("*b* _i_ `c` [l](http://x.example)", "Markdown").entities!.map((e) => e.type)).toEqual(["bold", "italic", "code", "text_link"]);
  });

  test.each([
    ["HTML", "<script>x</script>", 'Unsupported start tag "script"'],
    ["HTML", "<b>x</i>", "Unmatched end tag"],
    ["HTML", "<b>open", 'Can\'t find end tag corresponding to start tag "b"'],
    ["HTML", "a < b", "Can't find end of the tag"],
    ["MarkdownV2", "1.5", "Character '.' is reserved"],
    ["MarkdownV2", "*open", "Can't find end of Bold entity"],
    ["Markdown", "*open", "Can't find end of the entity"],
  ])("%s %j is refused: %s", (mode, text, words) => {
    expect(() => read(text, mode)).toThrow(words);
  });
});

describe(`formatting through the APIs (${MODE})`, () => {
  test("facade sendMessage with HTML returns the plain text and entities; the history stores them", async () => {
    const chat = await botWithChat(w);
    const sent = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "<b>Hi</b> <i>there</i>", parse_mode: "HTML" });
    expect(sent.body.result).toMatchObject({ text: "Hi there", entities: [{ type: "bold", offset: 0, length: 2 }, { type: "italic", offset: 3, length: 5 }] });
    const history = (await w.client.get(`/api/messages?bot_id=${chat.bot.id}&chat_id=${chat.chatId}`)).body.result;
    expect(history.at(-1)).toMatchObject({ text: "Hi there", entities: [{ type: "bold", offset: 0, length: 2 }, { type: "italic", offset: 3, length: 5 }] });
    const detail = (await w.client.get(`/api/inbox/${chat.conversationId}`, w.user.token)).body.result;
    expect(detail.messages.at(-1).entities).toEqual(history.at(-1).entities);
  });

  test("explicit entities win over parse_mode; edits re-read the formatting", async () => {
    const chat = await botWithChat(w);
    const entities = [{ type: "underline", offset: 0, length: 3 }];
    const sent = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "*abc*", parse_mode: "MarkdownV2", entities });
    expect(sent.body.result).toMatchObject({ text: "*abc*", entities });
    const edited = await tg(w, chat.bot, "editMessageText", { chat_id: chat.number, message_id: sent.body.result.message_id, text: "*abc*", parse_mode: "MarkdownV2" });
    expect(edited.body.result).toMatchObject({ text: "abc", entities: [{ type: "bold", offset: 0, length: 3 }] });
    const nativeSent = await native(w, chat.bot, "send-message", { chat_id: chat.chatId, text: "_x_ y", parse_mode: "Markdown" });
    expect(nativeSent.body.result).toMatchObject({ text: "x y", entities: [{ type: "italic", offset: 0, length: 1 }] });
  });

  test("bad markup and bad entities are Telegram's 400 (facade) and {ok:false,error} (native); nothing is stored", async () => {
    const chat = await botWithChat(w);
    const bad = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "<b>x", parse_mode: "HTML" });
    expect(bad.status).toBe(400);
    expect(bad.body.description).toStartWith("Bad Request: can't parse entities: ");
    const unknownMode = await tg(w, chat.bot, "sendMessage", { chat_id: chat.number, text: "x", parse_mode: "BBCode" });
    expect(unknownMode.status).toBe(400);
    for (const entities of [[{ type: "bold", offset: 0, length: 99 }], [{ type: "blink", offset: 0, length: 1 }], [{ type: "text_link", offset: 0, length: 1 }], "nope"]) {
      const res = await native(w, chat.bot, "send-message", { chat_id: chat.chatId, text: "x", entities });
      expect({ status: res.status, ok: res.body.ok, error: typeof res.body.error }).toEqual({ status: 400, ok: false, error: "string" });
    }
    const nativeBad = await native(w, chat.bot, "send-message", { chat_id: chat.chatId, text: "a.b", parse_mode: "MarkdownV2" });
    expect(nativeBad.body).toMatchObject({ ok: false, error: "can't parse entities: Character '.' is reserved and must be escaped with the preceding '\\'" });
    const history = (await w.client.get(`/api/messages?bot_id=${chat.bot.id}&chat_id=${chat.chatId}`)).body.result;
    expect(history.filter((m: any) => m.sender === "bot")).toEqual([]);
  });
});
