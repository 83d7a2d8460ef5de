// Parked long polls per bot: the conflict rule already keeps one (a newer poll ends the older
// with 409, here or in another process), so they cannot pile up parked. What can pile up is
// polls queued in the bot's mailbox on their way to end each other: those are capped
// (MAX_QUEUED_POLLS_PER_BOT) with 429 and retry_after, in both envelopes.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_QUEUED_POLLS_PER_BOT, QUEUED_POLLS_RETRY_AFTER_SECONDS } from "../../src/actors/bot.ts";
import { botActor } from "../../src/domain/runtime.ts";
import { eventually } from "../support/eventually.ts";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;
let user: TestUser;

beforeAll(async () => {
  client = await testClient();
  user = await registerUser(client);
});

afterAll(async () => {
  await client.platform.close();
});

const poll = (c: Client, bot: TestBot, timeout: number) => c.get(`/api/bots/${bot.id}/get-updates?timeout=${timeout}`, bot.token);

const until = (check: () => boolean, ms = 10_000) => eventually("the condition", check, ms);

describe("parked polls per bot", () => {
  test("each newer poll ends the parked one at once: one parked poll per bot, whoever asks", async () => {
    const bot = await createTestBot(client, user);
    const ended: Array<{ status: number; ms: number }> = [];
    const polls = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      polls.push(poll(client, bot, 20).then((res) => {
        ended[i] = { status: res.status, ms: performance.now() - started };
        return res;
      }));
      // Parked before the next one arrives (the next then has something to end).
      await Bun.sleep(150);
    }
    await until(() => ended.filter(Boolean).length === 4);
    expect(ended.slice(0, 4).map((e) => e.status)).toEqual([409, 409, 409, 409]);
    // Each ended when its successor came, not at its 20 s timeout.
    for (const e of ended.slice(0, 4)) expect(e.ms).toBeLessThan(2000);
    expect(await client.post("/api/messages", { bot_id: bot.id, chat_id: "poll-cap", text: "for the last poller" })).toMatchObject({ status: 200 });
    const last = await polls[4]!;
    expect(last.status).toBe(200);
    expect(last.body.result.map((u: any) => u.message.text)).toEqual(["for the last poller"]);
  });

  test.skipIf(MODE !== "production")("a poll on another process ends the parked one too", async () => {
    const other = await testClient();
    try {
      const bot = await createTestBot(client, user);
      const started = performance.now();
      const older = poll(client, bot, 20);
      await Bun.sleep(300);
      const newer = poll(other, bot, 1);
      const olderRes = await older;
      expect(olderRes.status).toBe(409);
      expect(olderRes.body.error).toContain("terminated by other get-updates request");
      expect(performance.now() - started).toBeLessThan(5000);
      expect((await newer).status).toBe(200);
    } finally {
      await other.platform.close();
    }
  });
});

describe("polls queued behind each other", () => {
  test(`past ${MAX_QUEUED_POLLS_PER_BOT} queued polls of one bot: 429 with retry_after (native and Telegram envelopes)`, async () => {
    const bot = await createTestBot(client, user);
    // Hold the bot's mailbox, as a slow update log would: polls queue behind it.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const holding = botActor(client.wiring, bot.id).ask(() => held);
    const extra = 4;
    const early: Array<Awaited<ReturnType<typeof poll>>> = [];
    const polls = Array.from({ length: MAX_QUEUED_POLLS_PER_BOT + extra }, () =>
      poll(client, bot, 1).then((res) => {
        early.push(res);
        return res;
      }),
    );
    await until(() => early.length === extra);
    expect(early.map((r) => r.status)).toEqual(Array(extra).fill(429));
    const refused = early[0]!;
    expect(refused.body).toMatchObject({ ok: false, error_code: 429, retry_after: QUEUED_POLLS_RETRY_AFTER_SECONDS });
    expect(refused.headers.get("retry-after")).toBe(String(QUEUED_POLLS_RETRY_AFTER_SECONDS));

    const facade = await client.get(`/bot${bot.token}/getUpdates?timeout=1`);
    expect(facade.status).toBe(429);
    expect(facade.body).toMatchObject({ ok: false, error_code: 429, parameters: { retry_after: QUEUED_POLLS_RETRY_AFTER_SECONDS } });
    expect(facade.body.description).toStartWith("Too Many Requests");

    // Released, the queued polls end each other: all but the last 409, the last answers at its timeout.
    release();
    await holding;
    const answered = (await Promise.all(polls)).map((r) => r.status).filter((s) => s !== 429);
    expect(answered.sort()).toEqual([200, ...Array(MAX_QUEUED_POLLS_PER_BOT - 1).fill(409)]);
    // The cap counts polls on their way in, not ever: the bot polls normally again.
    expect((await poll(client, bot, 0)).status).toBe(200);
  });
});
