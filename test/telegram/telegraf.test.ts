// Telegraf, unchanged but for its API root, runs an echo bot in long-polling mode against
// the facade: /start, echo, edit and delete through the library.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Telegraf, TelegramError } from "telegraf";
import { message } from "telegraf/filters";
import type { Update } from "telegraf/types";
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

/**
 * Telegraf rewrites a failed fetch's message to hide the token; Bun's AbortError (what
 * stop() causes) has a read-only message, so launch() rejects with that TypeError instead
 * of ending quietly as under Node. Its offset sync has already run by then.
 */
function ignoreAbortUnderBun(err: unknown) {
  if (err instanceof TypeError && /readonly property/.test(err.message) && err.stack?.includes("redactToken")) return;
  throw err;
}

function echoBot(token: string, apiRoot: string, seen: Update[]) {
  const bot = new Telegraf(token, { telegram: { apiRoot } });
  bot.use((ctx, next) => {
    seen.push(ctx.update);
    return next();
  });
  bot.start((ctx) => ctx.reply(`Welcome, ${ctx.from.first_name}!`));
  bot.command("edit", async (ctx) => {
    const draft = await ctx.reply("draft");
    await ctx.telegram.editMessageText(ctx.chat.id, draft.message_id, undefined, "final");
  });
  bot.command("delete", async (ctx) => {
    const doomed = await ctx.reply("temporary");
    await ctx.telegram.deleteMessage(ctx.chat.id, doomed.message_id);
    await ctx.reply("deleted it");
  });
  bot.on(message("text"), (ctx) => ctx.reply(`echo: ${ctx.message.text}`));
  return bot;
}

describe(`Telegraf long polling (${MODE})`, () => {
  test("an echo bot answers /start and text, edits and deletes its messages, and stops cleanly", async () => {
    const created = await facade.newBot("Telegraf Echo");
    const seen: Update[] = [];
    const bot = echoBot(created.token, facade.url, seen);
    let launched!: () => void;
    const ready = new Promise<void>((resolve) => (launched = resolve));
    // launch() settles only when polling ends; its callback says getMe answered.
    const polling = bot.launch(() => launched());
    await ready;

    const visitor = newVisitor("Theo");
    await exchange(facade, created, visitor, "/start", "Welcome, Theo!");
    expect(bot.botInfo).toMatchObject({ id: created.number, is_bot: true, username: created.username });
    await exchange(facade, created, visitor, "hello there", "echo: hello there");

    await exchange(facade, created, visitor, "/edit", "final");
    const afterEdit = await waitForHistory(facade, created, visitor, (m) => botTexts(m).includes("final"));
    expect(botTexts(afterEdit)).not.toContain("draft");
    expect(afterEdit.find((m) => m.text === "final")!.edited_at).not.toBeNull();

    const afterDelete = await exchange(facade, created, visitor, "/delete", "deleted it");
    expect(botTexts(afterDelete)).toEqual(["Welcome, Theo!", "echo: hello there", "final", "deleted it"]);

    const conversation = await inboxConversation(facade, created, visitor);
    const first = seen.map((u) => ("message" in u ? u.message : undefined)).find((m) => m && "text" in m && m.text === "/start")!;
    expect(first.chat).toMatchObject({ id: conversation.number, type: "private", first_name: "Theo" });
    expect(first.from).toMatchObject({ id: conversation.contact.number, is_bot: false, first_name: "Theo" });

    bot.stop("test over");
    await polling.catch(ignoreAbortUnderBun);
    // Telegraf confirms what it handled when it stops (getUpdates with offset, no timeout).
    expect(await pendingNative(facade, created)).toEqual([]);
  });

  test("Telegram errors reach Telegraf as TelegramError with Telegram's code and description", async () => {
    const created = await facade.newBot("Telegraf Errors");
    const bot = new Telegraf(created.token, { telegram: { apiRoot: facade.url } });
    const visitor = newVisitor("Tess");
    await facade.call("POST", "/api/messages", { bot_id: created.id, chat_id: visitor.chatId, channel: "web", text: "hi" });
    const chat = (await inboxConversation(facade, created, visitor)).number;
    const sent = await bot.telegram.sendMessage(chat, "hello", { parse_mode: "MarkdownV2" });
    expect(sent).toMatchObject({ chat: { id: chat }, from: { id: created.number, is_bot: true }, text: "hello" });

    const error = await bot.telegram.editMessageText(chat, sent.message_id, undefined, "hello").catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TelegramError);
    expect((error as TelegramError).code).toBe(400);
    expect((error as TelegramError).description).toStartWith("Bad Request: message is not modified");

    const edited = await bot.telegram.editMessageText(chat, sent.message_id, undefined, "hello again");
    expect(edited).toMatchObject({ message_id: sent.message_id, text: "hello again" });
    expect(await bot.telegram.deleteMessage(chat, sent.message_id)).toBe(true);
  });
});
