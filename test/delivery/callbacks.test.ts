// Channel callbacks: outgoing messages on a channel with a callback_url are POSTed there,
// signed, retried, and their delivery state is kept per message.
import { createHmac } from "node:crypto";
import { describe, expect, test } from "bun:test";
import { createTestBot, type TestBot } from "../support/harness.ts";
import { testWorker, until, workerFixture } from "./support.ts";

const fx = workerFixture();
const SECRET = "callback-secret-123";

async function callbackBot(path: string, channel = "custom_api", secret: string | null = SECRET): Promise<TestBot> {
  const bot = await createTestBot(fx.client, fx.alice);
  fx.mine.add(bot.id);
  const config: Record<string, string> = { callback_url: `${fx.receiver.url}${path}` };
  if (secret) config.secret = secret;
  const res = await fx.client.patch(`/api/bots/${bot.id}/channels`, { channel_type: channel, config }, fx.alice.token);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return bot;
}

async function conversationOn(bot: TestBot, channel: string) {
  const chatId = `cb-${crypto.randomUUID()}`;
  const res = await fx.client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hello", channel, user: { id: "u1" } });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return { chatId, conversationId: res.body.result.conversation_id as string };
}

const send = async (bot: TestBot, chatId: string, text: string) => {
  const res = await fx.client.post(`/api/bots/${bot.id}/send-message`, { chat_id: chatId, text }, bot.token);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.result;
};
const at = (path: string) => fx.receiver.received.filter((r) => r.path === path);
const states = async (bot: TestBot) => (await fx.client.get(`/api/bots/${bot.id}/callback-deliveries`, fx.alice.token)).body.result as any[];

describe("channel callbacks", () => {
  test("bot and operator replies are POSTed signed, in order; incoming messages are not", async () => {
    const path = "/cb-signed";
    const bot = await callbackBot(path);
    const { chatId, conversationId } = await conversationOn(bot, "custom_api");
    await send(bot, chatId, "bot reply 1");
    await fx.client.post(`/api/inbox/${conversationId}`, { text: "operator reply" }, fx.alice.token);
    await send(bot, chatId, "bot reply 2");
    await until("three callbacks", () => at(path).length === 3);
    const got = at(path);
    expect(got.map((r) => r.body.message.text)).toEqual(["bot reply 1", "operator reply", "bot reply 2"]);
    expect(got.map((r) => r.body.message.sender)).toEqual(["bot", "operator", "bot"]);
    for (const r of got) {
      expect(r.body).toMatchObject({ event: "message_created", bot_id: bot.id, conversation: { id: conversationId, chat_id: chatId, channel: "custom_api" } });
      expect(r.headers.get("x-delivery-id")).toBe(r.body.message.id);
      const timestamp = r.headers.get("x-signature-timestamp")!;
      expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
      const expected = createHmac("sha256", SECRET).update(`${timestamp}.${r.raw}`).digest("hex");
      expect(r.headers.get("x-signature")).toBe(`sha256=${expected}`);
    }
    const delivered = await until("states delivered", async () => {
      const s = await states(bot);
      return s.length === 3 && s.every((d) => d.state === "delivered") ? s : undefined;
    });
    expect(delivered.map((d) => d.message_id).reverse()).toEqual(got.map((r) => r.body.message.id));
  });

  test("a failing receiver is retried until it takes the message; the state goes pending → delivered", async () => {
    const path = "/cb-flaky";
    let failures = 0;
    let seenPending = false;
    fx.receiver.behave(async (req) => {
      if (req.path !== path) return new Response("ok");
      if (failures < 2) {
        failures++;
        return new Response("busy", { status: 503 });
      }
      await until("pending seen", () => seenPending);
      return new Response("ok");
    });
    const bot = await callbackBot(path, "crm");
    const { chatId } = await conversationOn(bot, "crm");
    const message = await send(bot, chatId, "retry me");
    const pending = await until("a failed attempt recorded", async () => {
      const s = await states(bot);
      return s[0]?.attempts >= 1 ? s[0] : undefined;
    });
    expect(pending).toMatchObject({ state: "pending", last_status: 503, last_error: "HTTP 503: busy" });
    expect(pending.next_attempt_at).toBeString();
    seenPending = true;
    const done = await until("delivered", async () => {
      const s = await states(bot);
      return s[0]?.state === "delivered" ? s[0] : undefined;
    });
    expect(done).toMatchObject({ attempts: 3, last_status: 200, last_error: null, next_attempt_at: null });
    expect(at(path).map((r) => r.body.message.text)).toEqual(["retry me", "retry me", "retry me"]);
    expect(at(path)[0]!.body.message.message_id).toBe(message.message_id);
    const log = await until("three attempts logged", async () => {
      const res = await fx.client.get(`/api/bots/${bot.id}/deliveries`, fx.alice.token);
      return res.body.result.length === 3 ? res.body.result : undefined;
    });
    expect(log.map((a: any) => [a.kind, a.status_code])).toEqual([["callback", 200], ["callback", 503], ["callback", 503]]);
    expect(log[0].message_id).toBe(done.message_id);
  });

  test("410 marks the message failed and is not retried; without a secret nothing is signed", async () => {
    const path = "/cb-gone";
    fx.receiver.behave((req) => (req.path === path ? new Response("unknown chat", { status: 410 }) : new Response("ok")));
    const bot = await callbackBot(path, "mobile_app", null);
    const { chatId } = await conversationOn(bot, "mobile_app");
    await send(bot, chatId, "to nobody");
    const failed = await until("failed", async () => {
      const s = await states(bot);
      return s[0]?.state === "failed" ? s[0] : undefined;
    });
    expect(failed).toMatchObject({ attempts: 1, last_status: 410 });
    expect(at(path)[0]!.headers.get("x-signature")).toBeNull();
    await Bun.sleep(500);
    expect(at(path)).toHaveLength(1);
  });

  test("channels without a callback_url, and the widget, get no callbacks", async () => {
    const bot = await createTestBot(fx.client, fx.alice);
    fx.mine.add(bot.id);
    const { chatId } = await conversationOn(bot, "custom_api");
    await send(bot, chatId, "no callback configured");
    await Bun.sleep(500);
    expect(await states(bot)).toEqual([]);
  });

  test("a message whose event was lost is found by the worker's scan", async () => {
    const path = "/cb-missed";
    const bot = await callbackBot(path, "email");
    const { chatId } = await conversationOn(bot, "email");
    // Stop listening for events, as if the bus dropped them; the periodic scan still finds the message.
    await fx.worker.stop();
    await send(bot, chatId, "found later");
    fx.worker = await testWorker(fx.client.services, fx.mine);
    await until("delivered by the scan", () => at(path).length === 1);
    expect(at(path)[0]!.body.message.text).toBe("found later");
  });
});
