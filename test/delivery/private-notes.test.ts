// A private note is for the team only: it never reaches the visitor (widget history and
// stream), the bot (get-updates, webhooks, the Telegram facade) or a channel callback, while
// the operator reply written right after it does, so a leak would arrive first.
import { afterAll, describe, expect, test } from "bun:test";
import { createTestBot, MODE } from "../support/harness.ts";
import { openStream, type OpenStream } from "../web/sse.ts";
import { until, workerFixture } from "./support.ts";

const fx = workerFixture();
const streams: OpenStream[] = [];
afterAll(async () => {
  for (const s of streams) await s.close();
});

const note = async (conversationId: string, text: string) => {
  const res = await fx.client.post(`/api/inbox/${conversationId}/notes`, { text }, fx.alice.token);
  expect(res.status).toBe(200);
  expect(res.body.result).toMatchObject({ private: true, text, sender: "operator" });
  return res.body.result;
};
const reply = async (conversationId: string, text: string) =>
  expect((await fx.client.post(`/api/inbox/${conversationId}`, { text }, fx.alice.token)).status).toBe(200);

describe(`private notes stay inside the team (${MODE})`, () => {
  test("never in a webhook or a channel callback; the reply after it is", async () => {
    const bot = await createTestBot(fx.client, fx.alice, "Note webhook bot");
    fx.mine.add(bot.id);
    expect((await fx.client.post(`/api/bots/${bot.id}/set-webhook`, { url: `${fx.receiver.url}/notes-hook` }, bot.token)).status).toBe(200);
    const channel = await fx.client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "custom_api", config: { callback_url: `${fx.receiver.url}/notes-callback` } }, fx.alice.token);
    expect(channel.status).toBe(200);
    const chatId = `note-${crypto.randomUUID()}`;
    const sent = await fx.client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hello", channel: "custom_api", user: { id: "u1" } });
    const conversationId = sent.body.result.conversation_id;
    await note(conversationId, "SECRET-NOTE refund is fraud?");
    await reply(conversationId, "We are on it");
    const at = (path: string) => fx.receiver.received.filter((r) => r.path === path);
    await until("the reply's callback", () => at("/notes-callback").some((r) => r.body.message?.text === "We are on it"));
    await until("the reply's update", () => at("/notes-hook").some((r) => r.body.operator_message?.text === "We are on it"));
    const everything = JSON.stringify(fx.receiver.received.map((r) => r.raw));
    expect(everything).not.toContain("SECRET-NOTE");
    expect(at("/notes-callback").map((r) => r.body.message.text)).toEqual(["We are on it"]);
    expect(at("/notes-hook").map((r) => r.body.message?.text ?? r.body.operator_message?.text)).toEqual(["hello", "We are on it"]);
  });

  test("never in get-updates or the Telegram facade, and a bot cannot reach it by message_id", async () => {
    const bot = await createTestBot(fx.client, fx.alice, "Note poll bot");
    const chatId = `note-${crypto.randomUUID()}`;
    const sent = await fx.client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, text: "hi", channel: "custom_api" });
    const written = await note(sent.body.result.conversation_id, "SECRET-NOTE for members");
    await reply(sent.body.result.conversation_id, "visible reply");
    const polled = await fx.client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(JSON.stringify(polled.body)).not.toContain("SECRET-NOTE");
    expect(polled.body.result.map((u: any) => (u.message ?? u.operator_message).text)).toEqual(["hi", "visible reply"]);
    const facade = await fx.client.get(`/bot${bot.token}/getUpdates?timeout=0`);
    expect(facade.status).toBe(200);
    expect(JSON.stringify(facade.body)).not.toContain("SECRET-NOTE");
    const edit = await fx.client.post(`/api/bots/${bot.id}/edit-message-text`, { chat_id: chatId, message_id: written.message_id, text: "hijacked" }, bot.token);
    expect(edit.status).toBeGreaterThanOrEqual(400);
    const detail = await fx.client.get(`/api/inbox/${sent.body.result.conversation_id}`, fx.alice.token);
    expect(detail.body.result.messages.map((m: any) => [m.text, m.private])).toEqual([["hi", false], ["SECRET-NOTE for members", true], ["visible reply", false]]);
  });

  test("never in the widget's history or live stream", async () => {
    const bot = await createTestBot(fx.client, fx.alice, "Note widget bot");
    const chatId = `note-${crypto.randomUUID()}`;
    const sent = await fx.client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chatId, text: "hello widget" });
    const s = await openStream(fx.client.app, `/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chatId}&since=0`);
    streams.push(s);
    await s.next((f) => f.event === "message" && f.data.text === "hello widget");
    await note(sent.body.result.conversation_id, "SECRET-NOTE about the visitor");
    await reply(sent.body.result.conversation_id, "Hi from support");
    await s.next((f) => f.event === "message" && f.data.text === "Hi from support");
    expect(JSON.stringify(s.frames)).not.toContain("SECRET-NOTE");
    // A reconnect replays from the start: still no note.
    const again = await openStream(fx.client.app, `/api/messages/stream?widget_key=${bot.widget_key}&chat_id=${chatId}&since=0`);
    streams.push(again);
    await again.next((f) => f.event === "message" && f.data.text === "Hi from support");
    expect(JSON.stringify(again.frames)).not.toContain("SECRET-NOTE");
    const history = await fx.client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=${chatId}`);
    expect(history.body.result.map((m: any) => m.text)).toEqual(["hello widget", "Hi from support"]);
  });
});
