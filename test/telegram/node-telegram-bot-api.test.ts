// node-telegram-bot-api, unchanged but for its API root, runs an echo bot in long-polling
// mode against the facade. This library sends urlencoded bodies
// with nested values as JSON text, which is what the facade's form parsing is for.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Bot, TelegramApiError, type Context } from "node-telegram-bot-api";
import { MODE } from "../support/harness.ts";
import { botTexts, exchange, inboxConversation, newVisitor, pendingNative, startFacade, waitForHistory, type Facade } from "./support.ts";

/** A whole conversation with a polling bot on a busy 2-core machine. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);

let facade: Facade;
beforeAll(async () => {
  facade = await startFacade();
});
afterAll(() => facade.stop(), SLOW_MS);

function echoBot(token: string, apiRoot: string, seen: Context["update"][]) {
  const bot = new Bot(token, { apiRoot });
  bot.use((ctx, next) => {
    seen.push(ctx.update);
    return next();
  });
  bot.command("start", (ctx) => ctx.reply(`Welcome, ${ctx.from?.first_name}!`));
  bot.command("edit", async (ctx) => {
    const draft = await ctx.reply("draft", { reply_markup: { inline_keyboard: [[{ text: "Go", callback_data: "go" }]] } });
    await ctx.api.editMessageText({ chat_id: ctx.chatId!, message_id: draft.message_id, text: "final" });
  });
  bot.command("delete", async (ctx) => {
    const doomed = await ctx.reply("temporary");
    await ctx.api.deleteMessage({ chat_id: ctx.chatId!, message_id: doomed.message_id });
    await ctx.reply("deleted it");
  });
  bot.on("message", async (ctx, next) => {
    if (ctx.message?.text?.startsWith("/")) return next();
    await ctx.reply(`echo: ${ctx.message?.text}`);
  });
  bot.catch((err) => {
    throw err;
  });
  return bot;
}

describe(`node-telegram-bot-api long polling (${MODE})`, () => {
  test("an echo bot answers /start and text, edits and deletes its messages, and stops cleanly", async () => {
    const created = await facade.newBot("Ntba Echo");
    const seen: Context["update"][] = [];
    const bot = echoBot(created.token, facade.url, seen);
    expect(await bot.api.getMe()).toMatchObject({ id: created.number, is_bot: true, username: created.username });
    const polling = bot.startPolling(undefined, { timeout: 30 });

    const visitor = newVisitor("Nina");
    await exchange(facade, created, visitor, "/start", "Welcome, Nina!");
    await exchange(facade, created, visitor, "hello there", "echo: hello there");

    await exchange(facade, created, visitor, "/edit", "final");
    const afterEdit = await waitForHistory(facade, created, visitor, (m) => botTexts(m).includes("final"));
    expect(botTexts(afterEdit)).not.toContain("draft");

    const afterDelete = await exchange(facade, created, visitor, "/delete", "deleted it");
    expect(botTexts(afterDelete)).toEqual(["Welcome, Nina!", "echo: hello there", "final", "deleted it"]);

    const conversation = await inboxConversation(facade, created, visitor);
    const first = seen.map((u) => ("message" in u ? u.message : undefined)).find((m) => m?.text === "/start")!;
    expect(first.chat).toMatchObject({ id: conversation.number, type: "private", first_name: "Nina" });
    expect(first.from).toMatchObject({ id: conversation.contact.number, is_bot: false, first_name: "Nina" });

    bot.stop();
    await polling;
    // This library does not confirm its last batch when it stops (Telegram would redeliver
    // it too); what matters is that the aborted long poll left no poller behind.
    const left = (await pendingNative(facade, created)) as { update_id: number }[];
    expect(left.every((u) => u.update_id >= seen.at(-1)!.update_id)).toBe(true);
  });

  test("Telegram errors reach the library as TelegramApiError", async () => {
    const created = await facade.newBot("Ntba Errors");
    const bot = new Bot(created.token, { apiRoot: facade.url });
    const error = await bot.api.sendMessage({ chat_id: 424_242, text: "nobody" }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(TelegramApiError);
    expect((error as TelegramApiError).errorCode).toBe(400);
    expect((error as TelegramApiError).description).toBe("Bad Request: chat not found");
  });
});
