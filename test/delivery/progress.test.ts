// DeliveryProgress on its own, against the platform's database and update log: what one
// holder delivered past the confirmed prefix is what the next one skips, the rows go once a
// confirm passes them, and a crash writes nothing more.
import { beforeAll, describe, expect, test } from "bun:test";
import { findDeliveredRange } from "../../src/db/webhooks.ts";
import { DeliveryProgress, PROGRESS_DELAY_MS } from "../../src/delivery/progress.ts";
import { createTestBot, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";
import { until } from "./support.ts";

let client: Client;
let alice: TestUser;

beforeAll(async () => {
  client = await testClient();
  alice = await registerUser(client);
});

/** A bot whose log holds update_ids 1..count (appended directly: no webhook, no worker). */
async function botWithLog(count: number): Promise<string> {
  const bot = await createTestBot(client, alice);
  for (let id = 1; id <= count; id++) await client.platform.updates.append(bot.id, { update_id: id, payload: { update_id: id } });
  return bot.id;
}

const progressOf = (botId: string) => {
  const { db, updates, logger } = client.platform;
  return new DeliveryProgress({ db, log: updates, logger }, botId);
};
const range = (botId: string) => findDeliveredRange(client.platform.db, botId);
const skippedByNext = async (botId: string) => {
  const next = progressOf(botId);
  await next.load();
  return [...(await next.deliveredEarlier(await client.platform.updates.read(botId, 0, 100)))].sort((a, b) => a - b);
};

describe("webhook delivery progress", () => {
  test("delivered past a stuck update: the next holder skips exactly those; a confirm past them deletes them", async () => {
    const botId = await botWithLog(10);
    const first = progressOf(botId);
    // Update 1 is stuck: 2, 3 and 5 are delivered beyond it.
    for (const id of [2, 3, 5]) first.delivered(id, 1);
    await until("recorded", async () => (await range(botId)).highest === 5);
    await first.close(true);
    expect(await skippedByNext(botId)).toEqual([2, 3, 5]);

    const second = progressOf(botId);
    await second.load();
    second.delivered(1, 4);
    second.delivered(4, 6);
    await until("confirmed", async () => (await client.platform.updates.pendingCount(botId)) === 5);
    await until("rows below the watermark deleted", async () => (await range(botId)).highest === null);
    await second.close(true);
    expect(await skippedByNext(botId)).toEqual([]);
  });

  test("a graceful close writes what is pending at once; a crash writes nothing more", async () => {
    const graceful = await botWithLog(3);
    const p = progressOf(graceful);
    p.delivered(2, 1);
    await p.close(true);
    expect(await range(graceful)).toEqual({ lowest: 2, highest: 2 });

    const crashed = await botWithLog(3);
    const q = progressOf(crashed);
    q.delivered(2, 1);
    await q.close(false);
    await Bun.sleep(PROGRESS_DELAY_MS * 4);
    expect(await range(crashed)).toEqual({ lowest: null, highest: null });
  });
});
