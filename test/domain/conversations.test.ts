// The conversation write path called directly, without HTTP: each use case is the actor's
// transaction followed by the dispatch of its effects (events on the bus, updates in the log).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findBotById, type DbBot } from "../../src/db/bots.ts";
import { findConversationByChat } from "../../src/db/conversations.ts";
import { deleteFromBot, editFromBot, replyAsOperator, sendFromBot, setStatusAndNote, takeIn } from "../../src/domain/conversations.ts";
import type { IncomingInput } from "../../src/actors/intake-plan.ts";
import { createTestBot, registerUser, testClient, type Client } from "../support/harness.ts";

let client: Client;
let bot: DbBot;
const seen: { subject: string; data: any }[] = [];
let unsubscribe: () => void;

beforeAll(async () => {
  client = await testClient();
  const user = await registerUser(client);
  bot = (await findBotById(client.platform.db, (await createTestBot(client, user)).id))!;
  unsubscribe = client.platform.bus.subscribe(`events.${user.id}.>`, (data, subject) => seen.push({ subject, data }));
  await client.platform.bus.flush();
});
afterAll(() => unsubscribe());

const incoming = (chatId: string, clientMessageId: string | null): IncomingInput => ({
  bot, channel: "custom_api", text: "hello", createdAt: new Date(), contactKey: `chat:${chatId}`,
  contact: { externalUserId: null, firstName: "Ann", lastName: null, name: "Ann", email: null, phone: null },
  fromId: null, metadata: {}, clientMessageId,
});

const kindsFor = async (chatId: string) => {
  await Bun.sleep(50);
  return seen.filter((e) => e.data.conversation?.chat_id === chatId).map((e) => e.data.kind);
};

describe("domain/conversations", () => {
  test("intake stores once per client_message_id; the repeat dispatches nothing new", async () => {
    const first = await takeIn(client.wiring, "d-intake", incoming("d-intake", "c-1"));
    const again = await takeIn(client.wiring, "d-intake", incoming("d-intake", "c-1"));
    expect(first.repeated).toBe(false);
    expect(again.repeated).toBe(true);
    expect(again.message.id).toBe(first.message.id);
    expect(await kindsFor("d-intake")).toEqual(["conversation_created", "message_created"]);
  });

  test("the bot's send, edit and delete each dispatch their event", async () => {
    await takeIn(client.wiring, "d-bot", incoming("d-bot", null));
    const { message, conversation } = await sendFromBot(client.wiring, bot, "d-bot", { text: "first", entities: null }, null);
    const edited = await editFromBot(client.wiring, bot, conversation, message, { text: "second", entities: null }, null);
    expect(edited.text).toBe("second");
    expect(edited.edited_at).not.toBeNull();
    await deleteFromBot(client.wiring, bot, conversation, edited);
    expect(await kindsFor("d-bot")).toEqual([
      "conversation_created", "message_created", "message_created", "conversation_updated", "message_updated", "message_deleted",
    ]);
  });

  test("operator reply and status/note go through the same path", async () => {
    await takeIn(client.wiring, "d-op", incoming("d-op", null));
    const row = (await findConversationByChat(client.platform.db, bot.id, "d-op"))!;
    const reply = await replyAsOperator(client.wiring, row, "on it");
    expect(reply.message.sender).toBe("operator");
    expect(reply.conversation.status).toBe("open");
    const { conversation } = await setStatusAndNote(client.wiring, reply.conversation, "closed", "done");
    expect(conversation.status).toBe("closed");
    expect(conversation.operator_note).toBe("done");
    expect(await kindsFor("d-op")).toEqual([
      "conversation_created", "message_created", "message_created", "conversation_updated", "conversation_updated",
    ]);
  });
});
