// The inbox shows, per outgoing message, how its channel callback went.
import { describe, expect, test } from "bun:test";
import { createTestBot } from "../support/harness.ts";
import { until, workerFixture } from "./support.ts";

const fx = workerFixture();

describe("delivery state in the inbox", () => {
  test("outgoing messages on a callback channel show pending → delivered or failed; others show none", async () => {
    const bot = await createTestBot(fx.client, fx.alice);
    fx.mine.add(bot.id);
    await fx.client.patch(`/api/bots/${bot.id}/channels`, { channel_type: "crm", config: { callback_url: `${fx.receiver.url}/inbox-state` } }, fx.alice.token);
    const chatId = `state-${crypto.randomUUID()}`;
    const accepted = (await fx.client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, channel: "crm", text: "hi" })).body.result;
    fx.receiver.behave((req) => new Response(null, { status: req.body?.message?.text === "refused" ? 410 : 200 }));
    const reply = await fx.client.post(`/api/inbox/${accepted.conversation_id}`, { text: "taken" }, fx.alice.token);
    expect(reply.body.result.delivery).toBe("pending");
    await fx.client.post(`/api/inbox/${accepted.conversation_id}`, { text: "refused" }, fx.alice.token);
    const messages = await until("both settled", async () => {
      const detail = (await fx.client.get(`/api/inbox/${accepted.conversation_id}`, fx.alice.token)).body.result;
      const out = detail.messages.filter((m: any) => m.direction === "out");
      return out.length === 2 && out.every((m: any) => m.delivery !== "pending" && m.delivery !== null) ? detail.messages : undefined;
    });
    expect(messages.map((m: any) => [m.text, m.delivery])).toEqual([["hi", null], ["taken", "delivered"], ["refused", "failed"]]);
  });
});
