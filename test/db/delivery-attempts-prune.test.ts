// The delivery log's housekeeping: attempts older than the retention go, and so do those
// beyond each bot's latest N, whatever their age (a flood cannot grow the table for a week).
import { expect, test } from "bun:test";
import { insertAttempts, pruneAttempts, type NewAttempt } from "../../src/db/webhooks.ts";
import { createTestBot, registerUser, testClient } from "../support/harness.ts";

test("pruneAttempts keeps each bot's latest N and nothing older than the cutoff", async () => {
  const client = await testClient();
  try {
    const owner = await registerUser(client);
    const [busy, quiet] = [await createTestBot(client, owner), await createTestBot(client, owner)];
    const db = client.platform.db;
    const now = Date.now();
    const attempt = (botId: string, i: number, ageMs: number): NewAttempt => ({
      bot_id: botId, kind: "webhook", update_id: i, message_id: null, url: "https://example.com/hook", status_code: 500, latency_ms: 3, error: `e${i}`,
      attempted_at: new Date(now - ageMs).toISOString(),
    });
    await insertAttempts(db, Array.from({ length: 12 }, (_, i) => attempt(busy.id, i + 1, 1000)));
    await insertAttempts(db, [attempt(quiet.id, 1, 10 * 86_400_000), attempt(quiet.id, 2, 1000)]);
    await pruneAttempts(db, new Date(now - 7 * 86_400_000), 5);
    const left = async (botId: string) =>
      (await db.query<{ update_id: number }>(`select update_id from delivery_attempts where bot_id = $1 order by id`, [botId])).map((r) => Number(r.update_id));
    expect(await left(busy.id)).toEqual([8, 9, 10, 11, 12]);
    expect(await left(quiet.id)).toEqual([2]);
  } finally {
    await client.platform.close();
  }
});
