// Get-updates passes on the JSON an update was stored as when it has it (production: the log's
// own bytes, or the committed batch's outbox row), instead of cleaning, checking and encoding it
// again. Whichever way a poll is answered, a bot must read exactly what the Update schema
// describes: no field the schema leaves out, none missing, the envelope and headers as before.
import { beforeAll, describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { Update } from "../../src/http/runtime/model.ts";
import { botWithChat, drain, KEYBOARD, native, press, world, type World } from "../bots/support.ts";
import { MODE, type TestResponse } from "../support/harness.ts";

let w: World;
beforeAll(async () => {
  w = await world();
});

/** The answer as a bot reads it: a {ok, result} envelope of Updates that hold nothing the schema does not describe. */
function expectSchemaAnswer(res: TestResponse): any[] {
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  expect(res.headers.get("x-request-id")).toBeString();
  expect(Object.keys(res.body).sort()).toEqual(["ok", "result"]);
  expect(res.body.ok).toBe(true);
  for (const update of res.body.result) {
    expect(Value.Errors(Update, update).First()).toBeUndefined();
    expect(Value.Clean(Update, structuredClone(update))).toEqual(update);
  }
  return res.body.result;
}

describe(`get-updates answers (${MODE})`, () => {
  test("a message, an operator's reply and a button press read back exactly as the Update schema describes them", async () => {
    const chat = await botWithChat(w);
    const sent = await native(w, chat.bot, "send-message", { chat_id: chat.chatId, text: "Pick *one*", parse_mode: "Markdown", reply_markup: KEYBOARD });
    expect(sent.status).toBe(200);
    const said = await w.client.post("/api/messages", {
      bot_id: chat.bot.id, chat_id: chat.chatId, channel: "web", text: "/start go",
      user: { id: `u-${chat.chatId}`, first_name: "Vera", last_name: "Lind", email: "vera@example.com" },
      metadata: { page_url: "https://shop.example.com/pricing", client_message_id: crypto.randomUUID() },
    });
    expect(said.status).toBe(200);
    expect((await w.client.post(`/api/inbox/${chat.conversationId}`, { text: "an operator here" }, w.user.token)).status).toBe(200);
    expect((await press(w, chat.bot, chat.chatId, sent.body.result.message_id, "yes")).status).toBe(200);

    const got = expectSchemaAnswer(await w.client.get(`/api/bots/${chat.bot.id}/get-updates?timeout=0`, chat.bot.token));
    expect(got.map((u) => Object.keys(u).filter((k) => k !== "update_id"))).toEqual([["message"], ["operator_message"], ["callback_query"]]);
    expect(got[0].message).toMatchObject({
      text: "/start go", entities: [{ type: "bot_command", offset: 0, length: 6 }],
      from: { first_name: "Vera", last_name: "Lind" }, metadata: { page_url: "https://shop.example.com/pricing" },
    });
    expect(got[2].callback_query).toMatchObject({ data: "yes", message: { text: "Pick one", reply_markup: KEYBOARD } });
    expect(got.map((u) => u.update_id)).toEqual([got[0].update_id, got[0].update_id + 1, got[0].update_id + 2]);
  });

  test("a parked poll answered by the message that arrives reads it as the schema describes it, and a later read the same", async () => {
    const chat = await botWithChat(w);
    const parked = w.client.get(`/api/bots/${chat.bot.id}/get-updates?timeout=5`, chat.bot.token);
    await Bun.sleep(50);
    const said = await w.client.post("/api/messages", { bot_id: chat.bot.id, chat_id: chat.chatId, channel: "web", text: "are you there?", user: { id: `u-${chat.chatId}`, first_name: "Vera" } });
    expect(said.status).toBe(200);
    const woken = expectSchemaAnswer(await parked);
    expect(woken).toHaveLength(1);
    expect(woken[0].message).toMatchObject({ message_id: said.body.result.message_id, text: "are you there?" });
    // Not confirmed: the next read returns the same update, from the log this time.
    const again = expectSchemaAnswer(await w.client.get(`/api/bots/${chat.bot.id}/get-updates?timeout=0`, chat.bot.token));
    expect(again).toEqual(woken);
    await drain(w, chat.bot);
  });
});
