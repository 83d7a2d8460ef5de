// grammY, unchanged but for its API root, runs an echo bot in long-polling mode against the
// facade: /start, echo, edit and delete through the library.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Bot, GrammyError, type Context } from "grammy";
import { MODE } from "../support/harness.ts";
import {
  botTexts, exchange, inboxConversation, newVisitor, pendingNative, startFacade, waitForHistory, type Facade,
} from "./support.ts";

/** A whole conversation with a polling bot on a busy 2-core machine. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);

let facade: Facade;
beforeAll(async () => {
  facade = await startFacade();
});
afterAll(() => facade.stop(), SLOW_MS);

function echoBot(token: string, apiRoot: string, seen: Context["update"][]) {
  const bot = new Bot(token, { client: { apiRoot } });
  bot.use((ctx, next) => {
    seen.push(ctx.update);
    return next();
  });
  bot.command("start", (ctx) => ctx.reply(`Welcome, ${ctx.from?.first_name}!`));
  bot.command("edit", async (ctx) => {
    const draft = await ctx.reply("draft");
    await ctx.api.editMessageText(ctx.chat.id, draft.message_id, "final");
  });
  bot.command("delete", async (ctx) => {
    const doomed = await ctx.reply("temporary");
    await ctx.api.deleteMessage(ctx.chat.id, doomed.message_id);
    await ctx.reply("deleted it");
  });
  bot.on("message:text", (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
  return bot;
}

describe(`grammY long polling (${MODE})`, () => {
  test("an echo bot answers /start and text, edits and deletes its messages, and stops cleanly", async () => {
    const created = await facade.newBot("Grammy Echo");
    const seen: Context["update"][] = [];
    const bot = echoBot(created.token, facade.url, seen);
    let started!: () => void;
    const ready = new Promise<void>((resolve) => (started = resolve));
    const polling = bot.start({ onStart: () => started() });
    await ready;
    expect(bot.botInfo).toMatchObject({ id: created.number, is_bot: true, first_name: "Grammy Echo", username: created.username });

    const visitor = newVisitor("Gina");
    await exchange(facade, created, visitor, "/start", "Welcome, Gina!");
    await exchange(facade, created, visitor, "hello there", "echo: hello there");

    await exchange(facade, created, visitor, "/edit", "final");
    const afterEdit = await waitForHistory(facade, created, visitor, (m) => botTexts(m).includes("final"));
    expect(botTexts(afterEdit)).not.toContain("draft");
    expect(afterEdit.find((m) => m.text === "final")!.edited_at).not.toBeNull();

    const afterDelete = await exchange(facade, created, visitor, "/delete", "deleted it");
    expect(botTexts(afterDelete)).not.toContain("temporary");
    expect(botTexts(afterDelete)).toEqual(["Welcome, Gina!", "echo: hello there", "final", "deleted it"]);

    // What the handlers saw is Telegram's shape: integers named by the inbox's numbers.
    const conversation = await inboxConversation(facade, created, visitor);
    const first = seen.find((u) => u.message?.text === "/start")!.message!;
    expect(first.chat).toMatchObject({ id: conversation.number, type: "private", first_name: "Gina" });
    expect(first.from).toMatchObject({ id: conversation.contact.number, is_bot: false, first_name: "Gina" });
    expect(Number.isInteger(first.message_id)).toBe(true);
    expect(first.entities).toEqual([{ type: "bot_command", offset: 0, length: 6 }]);

    await bot.stop();
    await polling;
    // grammY confirms what it handled when it stops (getUpdates with offset, no timeout).
    expect(await pendingNative(facade, created)).toEqual([]);
  });

  test("Telegram errors reach grammY as GrammyError with Telegram's code and description", async () => {
    const created = await facade.newBot("Grammy Errors");
    const bot = new Bot(created.token, { client: { apiRoot: facade.url } });
    const visitor = newVisitor("Eve");
    await facade.call("POST", "/api/messages", { bot_id: created.id, chat_id: visitor.chatId, channel: "web", text: "hi" });
    const chat = (await inboxConversation(facade, created, visitor)).number;

    const sent = await bot.api.sendMessage(chat, "hello", { parse_mode: "HTML", reply_markup: { inline_keyboard: [[{ text: "A", callback_data: "a" }]] } });
    expect(sent).toMatchObject({ chat: { id: chat, type: "private" }, from: { id: created.number, is_bot: true }, text: "hello" });
    expect(sent.reply_markup).toEqual({ inline_keyboard: [[{ text: "A", callback_data: "a" }]] });

    // Thunks: a rejection created before its turn would count as unhandled.
    const failures: [() => Promise<unknown>, number, string][] = [
      [() => bot.api.sendMessage(999_999, "nobody"), 400, "Bad Request: chat not found"],
      [() => bot.api.editMessageText(chat, sent.message_id, "hello"), 400, "Bad Request: message is not modified"],
      [() => bot.api.editMessageText(chat, 999_999, "x"), 400, "Bad Request: message to edit not found"],
      [() => bot.api.deleteMessage(chat + 1, sent.message_id), 400, "Bad Request: message to delete not found"],
      [() => bot.api.raw.sendLocation({ chat_id: chat, latitude: 1, longitude: 2 }), 400, "Bad Request: method is not supported by this server"],
      [() => new Bot(`${created.number}:${"x".repeat(32)}`, { client: { apiRoot: facade.url } }).api.getMe(), 401, "Unauthorized"],
    ];
    for (const [call, code, description] of failures) {
      const error = await call().then(() => undefined, (err: unknown) => err);
      expect(error).toBeInstanceOf(GrammyError);
      expect({ code: (error as GrammyError).error_code, description: (error as GrammyError).description.slice(0, description.length) })
        .toEqual({ code, description });
    }

    await bot.api.setMyCommands([{ command: "start", description: "Say hello" }]);
    expect(await bot.api.getMyCommands()).toEqual([{ command: "start", description: "Say hello" }]);
    expect(await bot.api.getMyCommands({ language_code: "de" })).toEqual([]);
    expect(await bot.api.deleteMyCommands()).toBe(true);
    expect(await bot.api.sendChatAction(chat, "typing")).toBe(true);
    expect(await bot.api.getWebhookInfo()).toEqual({ url: "", has_custom_certificate: false, pending_update_count: 1, max_connections: 40 });
    expect(await bot.api.deleteMessage(chat, sent.message_id)).toBe(true);
  });
});
