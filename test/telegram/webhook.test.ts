// Webhook mode of the Telegram-compatible facade: setWebhook through
// the facade makes the webhook worker POST Telegram-shaped updates, getUpdates answers 409
// meanwhile, and a receiver's answer naming a `method` is executed as the bot ("webhook
// reply"). Telegraf, unchanged but for its API root, runs a bot in webhook mode.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Telegraf } from "telegraf";
import { message } from "telegraf/filters";
import type { Update } from "telegraf/types";
import { MODE } from "../support/harness.ts";
import { startReceiver, testWorker, until, type Receiver } from "../delivery/support.ts";
import type { WebhookWorker } from "../../src/workers/webhook.ts";
import {
  botTexts, exchange, inboxConversation, newVisitor, say, startFacade, waitForHistory, type Facade, type FacadeBot,
} from "./support.ts";

/** A whole conversation through the worker on a busy 2-core machine. */
const SLOW_MS = 60_000;
setDefaultTimeout(SLOW_MS);
/** How long to watch for a repeat that must not come (the test worker retries within 50..400 ms). */
const NO_RETRY_WATCH_MS = 1500;
const SECRET = "webhook_secret-1";

let facade: Facade;
let receiver: Receiver;
let worker: WebhookWorker;
/** The bots this file's worker delivers for (the test database is shared with other files). */
const mine = new Set<string>();

beforeAll(async () => {
  facade = await startFacade();
  receiver = startReceiver();
  worker = await testWorker(facade.server.services, mine);
});
afterAll(async () => {
  await worker.stop();
  receiver.stop();
  await facade.stop();
}, SLOW_MS);

const tg = (bot: FacadeBot, method: string, params: Record<string, unknown> = {}) => facade.call("POST", `/bot${bot.token}/${method}`, params);

async function webhookBot(name: string): Promise<FacadeBot> {
  const bot = await facade.newBot(name);
  mine.add(bot.id);
  return bot;
}

const receivedOn = (path: string) => receiver.received.filter((r) => r.path === path);

describe(`Telegram webhook mode (${MODE})`, () => {
  test("setWebhook: Telegram-shaped updates with the secret header, getUpdates 409, deleteWebhook back to polling", async () => {
    const bot = await webhookBot("Webhook Shapes");
    const path = `/shapes-${bot.id}`;
    const set = await tg(bot, "setWebhook", {
      url: `${receiver.url}${path}`, secret_token: SECRET, max_connections: "5", allowed_updates: ["message", "callback_query"],
    });
    expect(set).toEqual({ status: 200, body: { ok: true, result: true, description: "Webhook was set" } });
    expect((await tg(bot, "getWebhookInfo")).body.result).toEqual({
      url: `${receiver.url}${path}`, has_custom_certificate: false, pending_update_count: 0, max_connections: 5, allowed_updates: ["message", "callback_query"],
    });
    expect(await tg(bot, "getUpdates")).toEqual({
      status: 409,
      body: { ok: false, error_code: 409, description: "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first" },
    });

    const visitor = newVisitor("Wanda");
    const before = Math.floor(Date.now() / 1000);
    await say(facade, bot, visitor, "/start now");
    const [request] = await until("the update", () => receivedOn(path).length > 0 && receivedOn(path));
    const conversation = await inboxConversation(facade, bot, visitor);
    expect(request!.headers.get("x-telegram-bot-api-secret-token")).toBe(SECRET);
    const update = request!.body;
    expect(update).toEqual({
      update_id: expect.any(Number),
      message: {
        message_id: expect.any(Number),
        from: { id: conversation.contact.number, is_bot: false, first_name: "Wanda" },
        chat: { id: conversation.number, type: "private", first_name: "Wanda", channel: "web" },
        date: expect.any(Number),
        text: "/start now",
        entities: [{ type: "bot_command", offset: 0, length: 6 }],
      },
    });
    expect(update.message.date).toBeGreaterThanOrEqual(before - 1);

    // The same webhook set natively: native shapes again (the chat named by its chat_id string).
    const native = await facade.call("POST", `/api/bots/${bot.id}/set-webhook`, { url: `${receiver.url}${path}` }, bot.token);
    expect(native.status).toBe(200);
    await say(facade, bot, visitor, "native now");
    const nativeUpdate = await until("the native update", () => receivedOn(path).find((r) => r.body.message?.text === "native now"));
    expect(nativeUpdate.body.message.chat.id).toBe(visitor.chatId);
    expect(typeof nativeUpdate.body.message.message_id).toBe("string");
    // Delivery is at least once: the receiver's 200 is recorded a moment after it answers, and
    // an update not yet recorded is offered again to getUpdates. Like a careful bot, switch
    // only once the webhook reports nothing pending.
    await until("the native update recorded as delivered", async () =>
      (await tg(bot, "getWebhookInfo")).body.result.pending_update_count === 0);

    expect((await tg(bot, "deleteWebhook")).body).toEqual({ ok: true, result: true, description: "Webhook was deleted" });
    await say(facade, bot, visitor, "polling again");
    const polled = await tg(bot, "getUpdates", { timeout: 5 });
    expect(polled.status).toBe(200);
    expect(polled.body.result.map((u: any) => u.message.text)).toEqual(["polling again"]);
    expect(polled.body.result[0].message.chat.id).toBe(conversation.number);
    expect(receivedOn(path).some((r) => r.body.message?.text === "polling again")).toBe(false);
  });

  test("a webhook reply is executed as the bot; a failing one is recorded, not retried, and the update counts as delivered", async () => {
    const bot = await webhookBot("Webhook Replies");
    const path = `/replies-${bot.id}`;
    receiver.behave((req) => {
      if (req.path !== path) return new Response("ok");
      const chat = req.body.message.chat.id;
      switch (req.body.message.text) {
        case "json":
          return Response.json({ method: "sendMessage", chat_id: chat, text: "replied with JSON" });
        case "form":
          return new Response(`method=SENDMESSAGE&chat_id=${chat}&text=${encodeURIComponent("replied with a form")}`, {
            headers: { "content-type": "application/x-www-form-urlencoded" },
          });
        case "bad":
          return Response.json({ method: "sendMessage", chat_id: 987654321, text: "nowhere" });
        default:
          return Response.json({ ok: true });
      }
    });
    expect((await tg(bot, "setWebhook", { url: `${receiver.url}${path}` })).body.result).toBe(true);
    const visitor = newVisitor("Rita");
    await exchange(facade, bot, visitor, "json", "replied with JSON");
    await exchange(facade, bot, visitor, "form", "replied with a form");
    await say(facade, bot, visitor, "bad");
    await say(facade, bot, visitor, "plain");
    await until("both updates", () => receivedOn(path).some((r) => r.body.message.text === "plain"));

    const deliveries = async () => (await facade.call("GET", `/api/bots/${bot.id}/deliveries`, undefined, bot.userToken)).body.result;
    const failed = await until("the failed reply in the delivery log", async () =>
      (await deliveries()).find((a: any) => a.error !== null));
    expect(failed).toMatchObject({ kind: "webhook", status_code: 200, error: "webhook reply sendMessage: Bad Request: chat not found" });
    await Bun.sleep(NO_RETRY_WATCH_MS);
    expect(receivedOn(path).filter((r) => r.body.message.text === "bad")).toHaveLength(1);
    expect((await deliveries()).filter((a: any) => a.error !== null)).toHaveLength(1);
    expect((await tg(bot, "getWebhookInfo")).body.result).toMatchObject({ pending_update_count: 0 });
    expect((await tg(bot, "getWebhookInfo")).body.result.last_error_message).toBeUndefined();
    expect(await tg(bot, "deleteWebhook")).toMatchObject({ status: 200 });
  });
});

/** A Telegraf bot served by node:http on a free port, recording what it answered each webhook request with. */
async function telegrafWebhook(bot: Telegraf, path: string, secretToken: string) {
  const answers: string[] = [];
  const callback = bot.webhookCallback(path, { secretToken });
  const server: Server = createServer((req, res) => {
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] === "string") answers.push(args[0]);
      return end(...args);
    }) as typeof res.end;
    void callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return { url, answers, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe(`Telegraf in webhook mode (${MODE})`, () => {
  test("answers /start and text, and its default webhook reply deletes a message", async () => {
    const created = await webhookBot("Telegraf Webhook");
    const bot = new Telegraf(created.token, { telegram: { apiRoot: facade.url } });
    expect(bot.telegram.webhookReply).toBe(true);
    const seen: Update[] = [];
    bot.use((ctx, next) => {
      seen.push(ctx.update);
      return next();
    });
    bot.start((ctx) => ctx.reply(`Welcome, ${ctx.from.first_name}!`));
    bot.command("delete", async (ctx) => {
      const doomed = await ctx.reply("temporary");
      // deleteMessage is one of the methods Telegraf answers the webhook request with.
      await ctx.deleteMessage(doomed.message_id);
    });
    bot.on(message("text"), (ctx) => ctx.reply(`echo: ${ctx.message.text}`));

    const hook = await telegrafWebhook(bot, `/telegraf/${created.id}`, SECRET);
    try {
      expect(await bot.telegram.setWebhook(hook.url, { secret_token: SECRET })).toBe(true);
      expect((await bot.telegram.getWebhookInfo()).url).toBe(hook.url);

      const visitor = newVisitor("Theo");
      await exchange(facade, created, visitor, "/start", "Welcome, Theo!");
      await exchange(facade, created, visitor, "hello there", "echo: hello there");
      await say(facade, created, visitor, "/delete");
      await waitForHistory(facade, created, visitor, () => hook.answers.some((a) => a.includes("deleteMessage")));
      const after = await waitForHistory(facade, created, visitor, (m) => !botTexts(m).includes("temporary"));
      expect(botTexts(after)).toEqual(["Welcome, Theo!", "echo: hello there"]);
      const reply = JSON.parse(hook.answers.find((a) => a.includes("deleteMessage"))!);
      expect(reply).toMatchObject({ method: "deleteMessage", message_id: expect.any(Number) });

      const conversation = await inboxConversation(facade, created, visitor);
      const first = seen.map((u) => ("message" in u ? u.message : undefined)).find((m) => m && "text" in m && m.text === "/start")!;
      expect(first.chat).toMatchObject({ id: conversation.number, type: "private", first_name: "Theo" });
      expect(first.from).toMatchObject({ id: conversation.contact.number, is_bot: false, first_name: "Theo" });
    } finally {
      await bot.telegram.deleteWebhook();
      await hook.close();
    }
    expect((await tg(created, "getUpdates")).status).toBe(200);
  });
});
