import { describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient } from "../support/harness.ts";

describe("events after commit", () => {
  test("ingest, reply and patch publish conversation and message events on events.<owner>.<kind>", async () => {
    const client = await testClient();
    const user = await registerUser(client);
    const bot = await createTestBot(client, user);
    const seen: { subject: string; data: any }[] = [];
    const unsubscribe = client.platform.bus.subscribe(`events.${user.id}.>`, (data, subject) => seen.push({ subject, data }));
    await client.platform.bus.flush();
    const accepted = (await client.post("/api/messages", { bot_id: bot.id, chat_id: "ev", text: "hello" })).body.result;
    await client.post("/api/messages", { bot_id: bot.id, chat_id: "ev", text: "again" });
    await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "reply" }, user.token);
    await client.patch(`/api/inbox/${accepted.conversation_id}`, { status: "closed" }, user.token);
    const deadline = Date.now() + 3000;
    while (seen.length < 6 && Date.now() < deadline) await Bun.sleep(20);
    unsubscribe();
    expect(seen.map((e) => e.subject.split(".").pop())).toEqual([
      "conversation_created", "message_created", "message_created", "message_created", "conversation_updated", "conversation_updated",
    ]);
    expect(seen[0]!.data.conversation).toMatchObject({ id: accepted.conversation_id, bot_id: bot.id, status: "new" });
    expect(seen[1]!.data.message).toMatchObject({ text: "hello", direction: "in" });
    expect(seen[3]!.data.message).toMatchObject({ text: "reply", sender: "operator" });
    expect(seen[4]!.data.conversation.status).toBe("open");
    expect(seen[5]!.data.conversation.status).toBe("closed");
    await client.platform.close();
  });
});
