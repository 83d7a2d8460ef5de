// Units of webhook mode: what postJson keeps of a receiver's answer, and how an answer is
// read as a webhook reply (which answers are no reply at all, which are failures).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { MAX_WEBHOOK_REPLY_BYTES } from "../../src/delivery/webhook.ts";
import { postJson, type ResponseBody } from "../../src/delivery/http.ts";
import { telegramDelivery } from "../../src/telegram/delivery.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot } from "../support/harness.ts";
import { startReceiver, type Receiver } from "../delivery/support.ts";

const POLICY = { allowPrivate: true };
const json = (value: unknown): ResponseBody => ({ headers: { "content-type": "application/json" }, bytes: new TextEncoder().encode(JSON.stringify(value)) });

let client: Client;
let bot: TestBot;
let receiver: Receiver;
beforeAll(async () => {
  client = await testClient();
  bot = await createTestBot(client, await registerUser(client));
  receiver = startReceiver();
});
afterAll(() => receiver.stop());

describe("postJson keepBodyBytes", () => {
  test("a 2xx body is kept only when asked for, and only up to the limit", async () => {
    receiver.behave((req) => new Response(req.path === "/big" ? "x".repeat(MAX_WEBHOOK_REPLY_BYTES + 1) : '{"method":"getMe"}', {
      headers: { "content-type": "application/json" },
    }));
    const plain = await postJson(`${receiver.url}/small`, "{}", {}, { policy: POLICY });
    expect(plain).toMatchObject({ ok: true, status: 200 });
    expect(plain.body).toBeUndefined();
    const kept = await postJson(`${receiver.url}/small`, "{}", {}, { policy: POLICY, keepBodyBytes: MAX_WEBHOOK_REPLY_BYTES });
    expect(new TextDecoder().decode(kept.body!.bytes)).toBe('{"method":"getMe"}');
    expect(kept.body!.headers["content-type"]).toBe("application/json");
    const big = await postJson(`${receiver.url}/big`, "{}", {}, { policy: POLICY, keepBodyBytes: MAX_WEBHOOK_REPLY_BYTES });
    expect(big).toMatchObject({ ok: true, status: 200, bodyError: `answer body not read: answer larger than ${MAX_WEBHOOK_REPLY_BYTES} bytes` });
    expect(big.body).toBeUndefined();
  });
});

describe("webhook replies", () => {
  test("answers that name no method are no reply; failures come back in Telegram's words", async () => {
    const reply = telegramDelivery(client.wiring).reply;
    expect(await reply(bot.id, json({ ok: true }))).toBeUndefined();
    expect(await reply(bot.id, { headers: { "content-type": "text/plain" }, bytes: new TextEncoder().encode("ok") })).toBeUndefined();
    expect(await reply(bot.id, json({ method: "getMe" }))).toBeUndefined();
    expect(await reply(bot.id, json({ method: "noSuchMethod" }))).toBe("webhook reply noSuchMethod: Not Found: method not found");
    expect(await reply(bot.id, json({ method: "sendMessage", chat_id: 987654321, text: "x" }))).toBe("webhook reply sendMessage: Bad Request: chat not found");
    expect(await reply(bot.id, { headers: { "content-type": "application/json" }, bytes: new TextEncoder().encode("{oops") })).toBe(
      "webhook reply: Bad Request: can't parse JSON object: the request body is not valid JSON",
    );
    // A compressing receiver: fetch decodes the body, and the reply is read from the plain bytes.
    receiver.behave(() => new Response(gzipSync(JSON.stringify({ method: "deleteMessage", chat_id: 987654321, message_id: 1 })), {
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    }));
    const gzipped = await postJson(`${receiver.url}/gzip`, "{}", {}, { policy: POLICY, keepBodyBytes: MAX_WEBHOOK_REPLY_BYTES });
    expect(await reply(bot.id, gzipped.body!)).toBe("webhook reply deleteMessage: Bad Request: message to delete not found");
  });
});
