// The outbox rule (docs/design.md §2): a committed message whose update never reached the log (the
// process died between commit and publish) is republished by the relay, exactly once.
import { describe, expect, test } from "bun:test";
import { IntakeActor } from "../../src/actors/intake.ts";
import { IntakeCommitter } from "../../src/actors/intake-committer.ts";
import type { CommittedUpdate } from "../../src/core/events.ts";
import { findBotById } from "../../src/db/bots.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot } from "../support/harness.ts";

async function clientWithBot(): Promise<{ client: Client; bot: TestBot }> {
  const client = await testClient();
  return { client, bot: await createTestBot(client, await registerUser(client)) };
}

/** Commits an incoming message as a request would, then "crashes": its update is never published. */
async function commitUnpublished(client: Client, bot: TestBot, chatId: string, text: string, clientMessageId: string | null = null) {
  const row = (await findBotById(client.platform.db, bot.id))!;
  const updates: CommittedUpdate[] = [];
  const crashing = new IntakeActor({
    committer: new IntakeCommitter({ db: client.platform.db }),
    publishUpdates: async (_botId, list) => {
      updates.push(...list.map(({ botId, updateId }) => ({ botId, updateId })));
      throw new Error("the process died before publishing");
    },
    forgetPublished: () => {},
    publishEvents: () => {},
    turnBetweenBatches: client.platform.db.kind === "pglite",
  }, bot.id);
  const { accepted } = crashing.submit({
    chatId,
    input: {
      bot: row, channel: "custom_api", text, createdAt: new Date(), contactKey: `chat:${chatId}`,
      contact: { externalUserId: null, firstName: null, lastName: null, name: null, email: null, phone: null },
      fromId: null, metadata: clientMessageId ? { client_message_id: clientMessageId } : {}, clientMessageId,
    },
  });
  await expect(accepted).rejects.toThrow("the process died before publishing");
  const [message] = await client.platform.db.query<{ message_id: number }>(
    `select message_id from messages where bot_id = $1 order by message_id desc limit 1`, [bot.id],
  );
  return { messageId: Number(message!.message_id), effects: { events: [], updates } };
}

describe("outbox relay", () => {
  test("an update committed but never published appears exactly once after a restart", async () => {
    const { client, bot } = await clientWithBot();
    const { messageId } = await commitUnpublished(client, bot, "crash-chat", "survives the crash");
    const before = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(before.body.result).toEqual([]);

    const restarted = await testClient(); // opening a platform runs the relay before serving
    const after = await restarted.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(after.body.result.map((u: any) => u.message.text)).toEqual(["survives the crash"]);
    expect(after.body.result[0].message.message_id).toBe(String(messageId));

    // A second relay (another process, or a late retry) must not produce a repeat.
    await restarted.platform.outbox.relay.runOnce(0);
    const again = await restarted.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(again.body.result).toHaveLength(1);
    await restarted.platform.close();
    await client.platform.close();
  });

  test("updates committed out of publish order are still all delivered in update_id order", async () => {
    const { client, bot } = await clientWithBot();
    const commit = (chatId: string, text: string) => commitUnpublished(client, bot, chatId, text);
    const first = await commit("a", "first");
    const second = await commit("b", "second");
    // The second request finishes first; the first one's publish is still on its way.
    await client.platform.outbox.dispatch(second.effects);
    const got = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(got.body.result.map((u: any) => u.message.text)).toEqual(["first", "second"]);
    const lastId = got.body.result[1].update_id;
    await client.get(`/api/bots/${bot.id}/get-updates?timeout=0&offset=${lastId + 1}`, bot.token);
    await client.platform.outbox.dispatch(first.effects); // the late publish must not resurrect a confirmed update
    const after = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(after.body.result).toEqual([]);
    await client.platform.close();
  });

  test("the relay publishes a bot's left-behind rows in update_id order, not in transaction start order", async () => {
    const { client, bot } = await clientWithBot();
    const commit = (chatId: string, text: string) => commitUnpublished(client, bot, chatId, text);
    // Both commits are left unpublished (a crash); the second one's transaction started
    // earlier (created_at is the transaction's start), so only it looks stale to the relay.
    const first = await commit("a", "first");
    const second = await commit("b", "second");
    const [firstId, secondId] = [first.effects.updates[0]!.updateId, second.effects.updates[0]!.updateId];
    await client.platform.db.query(`update outbox set created_at = now() - interval '1 hour' where bot_id = $1 and update_id = $2`, [bot.id, secondId]);
    await client.platform.outbox.relay.runOnce();
    // A reader that saw only the second and confirmed past it would lose the first for good.
    const got = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(got.body.result.map((u: any) => u.update_id)).toEqual([firstId, secondId]);
    await client.platform.close();
  });

  test("a repeated client_message_id is acknowledged only once its update is in the log", async () => {
    const { client, bot } = await clientWithBot();
    // The first attempt committed and its process died before publishing.
    await commitUnpublished(client, bot, "retry-chat", "sent once", "m-1");
    const repeat = await client.post("/api/messages", { bot_id: bot.id, chat_id: "retry-chat", text: "sent once", metadata: { client_message_id: "m-1" } });
    expect(repeat.status).toBe(200);
    const got = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(got.body.result.map((u: any) => u.message.text)).toEqual(["sent once"]);
    await client.platform.close();
  });

  test("the relay's update is the one the request would have published: built from the stored message, sender and chat", async () => {
    const { client, bot } = await clientWithBot();
    await commitUnpublished(client, bot, "same-chat", "left behind");
    await client.platform.outbox.relay.runOnce(0);
    const sent = await client.post("/api/messages", { bot_id: bot.id, chat_id: "same-chat", text: "sent" });
    expect(sent.status).toBe(200);
    const got = (await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token)).body.result;
    expect(got.map((u: any) => u.message.text)).toEqual(["left behind", "sent"]);
    const [relayed, direct] = got;
    expect(relayed).toEqual({
      ...direct, update_id: direct.update_id - 1,
      message: { ...direct.message, message_id: String(Number(direct.message.message_id) - 1), date: relayed.message.date, text: "left behind" },
    });
    await client.platform.close();
  });

  test("erasing a contact removes its left-behind updates: nothing of theirs is left for the relay", async () => {
    const client = await testClient();
    const owner = await registerUser(client);
    const bot = await createTestBot(client, owner);
    await commitUnpublished(client, bot, "erased-visitor", "never to be relayed");
    const [contact] = await client.platform.db.query<{ id: string }>(`select contact_id as id from messages where bot_id = $1`, [bot.id]);
    expect((await client.post(`/api/contacts/${contact!.id}/erase`, undefined, owner.token)).status).toBe(200);
    const [left] = await client.platform.db.query<{ n: number }>(`select count(*)::int as n from outbox where bot_id = $1`, [bot.id]);
    expect(left!.n).toBe(0);
    await client.platform.close();
  });

  test("a left-behind update whose message is gone is dropped: the next one is delivered and the outbox is emptied", async () => {
    const { client, bot } = await clientWithBot();
    await commitUnpublished(client, bot, "erased-chat", "erased before the relay");
    await commitUnpublished(client, bot, "kept-chat", "kept");
    await client.platform.db.query(`delete from messages where bot_id = $1 and text = $2`, [bot.id, "erased before the relay"]);
    await client.platform.outbox.relay.runOnce(0);
    const got = await client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(got.body.result.map((u: any) => u.message.text)).toEqual(["kept"]);
    const [left] = await client.platform.db.query<{ n: number }>(`select count(*)::int as n from outbox where bot_id = $1`, [bot.id]);
    expect(left!.n).toBe(0);
    await client.platform.close();
  });
});
