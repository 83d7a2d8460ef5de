// A worker taking over a bot with a backlog reads it in one go: on JetStream the first read's
// scan brings every body along, while later reads would fetch each body with a request of its
// own. Order per chat and exactly-once (with a receiver that never fails) still hold.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { LogUpdate } from "../../src/updates/log.ts";
import { createTestBot, registerUser, testClient, type Client, type TestUser } from "../support/harness.ts";
import { arrivals, incoming, startReceiver, testWorker, until, type Receiver } from "./support.ts";

/** More than one get-updates page (100), less than the worker's buffer (1000). */
const BACKLOG = 250;
const CHATS = 3;

describe("a webhook backlog", () => {
  let client: Client;
  let alice: TestUser;
  let receiver: Receiver;
  beforeAll(async () => {
    client = await testClient();
    alice = await registerUser(client);
    receiver = startReceiver();
  });
  afterAll(async () => {
    receiver.stop();
    await client.platform.close();
  });

  test("is read in one go when the worker starts, and delivered in order per chat, once", async () => {
    const bot = await createTestBot(client, alice);
    await client.post(`/api/bots/${bot.id}/set-webhook`, { url: `${receiver.url}/backlog` }, bot.token);
    const sent = new Map<string, number>();
    for (let i = 0; i < BACKLOG; i += CHATS) {
      await Promise.all(Array.from({ length: Math.min(CHATS, BACKLOG - i) }, (_, c) => incoming(client, bot, `backlog-${c}`, `m${i + c}`)));
    }
    const log = client.platform.updates;
    const read = log.read;
    const answered: number[] = [];
    log.read = async (botId, from, limit): Promise<LogUpdate[]> => {
      const got = await read(botId, from, limit);
      if (botId === bot.id && got.length > 0) answered.push(got.length);
      return got;
    };
    const worker = await testWorker(client.services, new Set([bot.id]));
    try {
      await until(`all ${BACKLOG} updates`, () => receiver.received.filter((r) => r.path === "/backlog").length >= BACKLOG, 30_000);
      expect(answered).toEqual([BACKLOG]);
      const got = receiver.received.filter((r) => r.path === "/backlog");
      expect(got.length).toBe(BACKLOG);
      for (const ids of arrivals(got).values()) expect(ids).toEqual([...ids].sort((a, b) => a - b));
    } finally {
      await worker.stop();
      log.read = read;
    }
  });
});
