// node-telegram-bot-api 0.67, the API most existing bots are written against (installed as
// node-telegram-bot-api-classic beside the 2.x rewrite), unchanged but for baseApiUrl,
// runs an echo bot in long-polling mode against the facade: /start, echo, edit, delete.
// It sends every call as an urlencoded form through the `request` library.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import TelegramBot from "node-telegram-bot-api-classic";
import { MODE } from "../support/harness.ts";
import { botTexts, exchange, inboxConversation, newVisitor, startFacade, waitForHistory, type Facade } from "./support.ts";

/** A whole conversation with a polling bot on a busy 2-core machine. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);
/** The library's long-poll timeout (seconds); stopPolling cancels the poll in flight. */
const POLL_TIMEOUT_SECONDS = 30;

let facade: Facade;
beforeAll(async () => {
  facade = await startFacade();
});
afterAll(() => facade.stop(), SLOW_MS);

function echoBot(token: string, baseApiUrl: string, seen: TelegramBot.Message[], errors: Error[]) {
  const bot = new TelegramBot(token, { baseApiUrl, polling: { autoStart: false, params: { timeout: POLL_TIMEOUT_SECONDS } } });
  const report = (err: Error) => void errors.push(err);
  bot.on("polling_error", report);
  bot.on("message", (msg) => {
    seen.push(msg);
    const chat = msg.chat.id;
    const text = msg.text ?? "";
    const handle = async () => {
      if (text === "/start") {
        await bot.sendMessage(chat, `Welcome, ${msg.from?.first_name}!`);
      } else if (text === "/edit") {
        const draft = await bot.sendMessage(chat, "draft", { reply_markup: { inline_keyboard: [[{ text: "Go", callback_data: "go" }]] } });
        await bot.editMessageText("final", { chat_id: chat, message_id: draft.message_id });
      } else if (text === "/delete") {
        const doomed = await bot.sendMessage(chat, "temporary");
        await bot.deleteMessage(chat, doomed.message_id);
        await bot.sendMessage(chat, "deleted it");
      } else {
        await bot.sendMessage(chat, `echo: ${text}`);
      }
    };
    handle().catch(report);
  });
  return bot;
}

describe(`node-telegram-bot-api 0.x long polling (${MODE})`, () => {
  test("an echo bot answers /start and text, edits and deletes its messages, and stops", async () => {
    const created = await facade.newBot("Ntba Classic Echo");
    const seen: TelegramBot.Message[] = [];
    const errors: Error[] = [];
    const bot = echoBot(created.token, facade.url, seen, errors);
    expect(await bot.getMe()).toMatchObject({ id: created.number, is_bot: true, username: created.username });
    // startPolling's promise settles with the first poll (a 30 s wait when nothing comes); errors go to polling_error.
    void bot.startPolling();
    try {
      const visitor = newVisitor("Olga");
      await exchange(facade, created, visitor, "/start", "Welcome, Olga!");
      await exchange(facade, created, visitor, "hello there", "echo: hello there");

      await exchange(facade, created, visitor, "/edit", "final");
      const afterEdit = await waitForHistory(facade, created, visitor, (m) => botTexts(m).includes("final"));
      expect(botTexts(afterEdit)).not.toContain("draft");

      const afterDelete = await exchange(facade, created, visitor, "/delete", "deleted it");
      expect(botTexts(afterDelete)).toEqual(["Welcome, Olga!", "echo: hello there", "final", "deleted it"]);

      const conversation = await inboxConversation(facade, created, visitor);
      const first = seen.find((m) => m.text === "/start")!;
      expect(first.chat).toMatchObject({ id: conversation.number, type: "private", first_name: "Olga" });
      expect(first.from).toMatchObject({ id: conversation.contact.number, is_bot: false, first_name: "Olga" });
      expect(errors).toEqual([]);
    } finally {
      await bot.stopPolling({ cancel: true, reason: "test over" });
    }
  });
});
