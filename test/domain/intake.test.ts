// Group commit of incoming messages (actors/intake.ts): many senders, one bot, one writer;
// what the bot's backend sees must be exactly what a one-message-per-transaction server
// would show: every accepted message once, update_ids strictly increasing, each chat in order.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { IntakeActor, type IntakeDeps } from "../../src/actors/intake.ts";
import { IntakeCommitter } from "../../src/actors/intake-committer.ts";
import type { Db } from "../../src/db/driver.ts";
import type { AnalysedRows } from "../../src/db/intake-plans.ts";
import type { IncomingInput } from "../../src/actors/intake-plan.ts";
import { AppError, asBadInput } from "../../src/core/errors.ts";
import { findBotById, type DbBot } from "../../src/db/bots.ts";
import { recordingStatements, sentOnly } from "../support/recording-db.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot } from "../support/harness.ts";

let client: Client;
let bot: TestBot;

beforeAll(async () => {
  client = await testClient();
  bot = await createTestBot(client, await registerUser(client));
});
afterAll(() => client.platform.close());

/** Every pending update of the bot, paging with confirming offsets as a client does. */
async function drain(botId: string, token: string, expected: number): Promise<any[]> {
  const all: any[] = [];
  let offset = 0;
  for (let page = 0; all.length < expected && page < 1000; page++) {
    const res = await client.get(`/api/bots/${botId}/get-updates?timeout=0&limit=100&offset=${offset}`, token);
    expect(res.status).toBe(200);
    if (res.body.result.length === 0) break;
    all.push(...res.body.result);
    offset = res.body.result.at(-1).update_id + 1;
  }
  return all;
}

const input = (row: DbBot, chatId: string, text: string, clientMessageId: string | null, metadata: Record<string, unknown> = {}): IncomingInput => ({
  bot: row, channel: "custom_api", text, createdAt: new Date(), contactKey: `chat:${chatId}`,
  contact: { externalUserId: null, firstName: null, lastName: null, name: null, email: null, phone: null },
  fromId: null, metadata, clientMessageId,
});

/** An actor of our own over the platform's real dependencies, so a test controls what one batch holds. */
function ownActor(botId: string): IntakeActor {
  return new IntakeActor(client.wiring.intake satisfies IntakeDeps, botId);
}

/** A committer of our own over the platform's database, counting the transactions it opens. */
function countingCommitter(): { committer: IntakeCommitter; transactions: () => number } {
  const db = client.platform.db;
  let count = 0;
  const counting = new Proxy(db, {
    get(target, key) {
      if (key === "transactionCommitBehind") return (fn: Parameters<Db["transactionCommitBehind"]>[0]) => (count++, target.transactionCommitBehind(fn));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { committer: new IntakeCommitter({ db: counting, logInTransaction: client.platform.outbox.logInTransaction }), transactions: () => count };
}

/**
 * A committer over the platform's database whose first transaction does not finish (its
 * statements and COMMIT are sent, its answer held) until `releaseFirst`. `inFlight`: as
 * INTAKE_TRANSACTIONS sets it (the default when omitted).
 */
function committerHoldingFirst(inFlight?: number): { committer: IntakeCommitter; started: () => number; releaseFirst: () => void } {
  const db = client.platform.db;
  let count = 0;
  let releaseFirst = () => {};
  const held = new Promise<void>((resolve) => (releaseFirst = resolve));
  const holding = new Proxy(db, {
    get(target, key) {
      if (key === "transactionCommitBehind") {
        return <T>(fn: (tx: Parameters<Parameters<Db["transactionCommitBehind"]>[0]>[0]) => Promise<{ last: Promise<T> }>) =>
          target.transactionCommitBehind(async (tx) => {
            const nth = ++count;
            const { last } = await fn(tx);
            return { last: nth === 1 ? held.then(() => last) : last };
          });
      }
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { committer: new IntakeCommitter({ db: holding, logInTransaction: client.platform.outbox.logInTransaction, inFlight }), started: () => count, releaseFirst };
}

/** Whether `done` held within `ms`. */
async function until(done: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(5)) if (done()) return true;
  return done();
}

describe("group commit", () => {
  test("64 concurrent senders across 200 chats: every accepted message once, ids increasing, each chat in order", async () => {
    const SENDERS = 64;
    const PER_SENDER = 10;
    const chats = Array.from({ length: 200 }, (_, i) => `gc-${i}`);
    // Each sender owns chats i, i+64, i+128 (…) and sends to them in turn: its own sends to one chat are ordered.
    const accepted: string[] = [];
    await Promise.all(Array.from({ length: SENDERS }, async (_, s) => {
      const mine = chats.filter((_, i) => i % SENDERS === s);
      for (let n = 0; n < PER_SENDER; n++) {
        const chat = mine[n % mine.length]!;
        const res = await client.post("/api/messages", { bot_id: bot.id, chat_id: chat, text: `${chat}#${n}` });
        expect(res.status).toBe(200);
        accepted.push(`${chat}#${n}`);
      }
    }));
    const updates = await drain(bot.id, bot.token, accepted.length);
    const texts = updates.map((u) => u.message.text);
    expect(texts.length).toBe(accepted.length);
    expect(new Set(texts).size).toBe(texts.length);
    expect(new Set(texts)).toEqual(new Set(accepted));
    for (let i = 1; i < updates.length; i++) expect(updates[i].update_id).toBeGreaterThan(updates[i - 1].update_id);
    const lastSeen = new Map<string, number>();
    for (const text of texts) {
      const [chat, n] = text.split("#");
      expect(Number(n)).toBeGreaterThan(lastSeen.get(chat) ?? -1);
      lastSeen.set(chat, Number(n));
    }
  });

  test("20 repeats of one client_message_id in one batch make one message, and every request gets it", async () => {
    const other = await createTestBot(client, await registerUser(client));
    const row = (await findBotById(client.platform.db, other.id))!;
    const actor = ownActor(other.id);
    // Submitted in one tick: one batch.
    const answers = await Promise.all(Array.from({ length: 20 }, () => actor.submit({ chatId: "twins", input: input(row, "twins", "once", "same-id") }).accepted));
    await actor.onStop();
    expect(new Set(answers.map((a) => a.message.id)).size).toBe(1);
    expect(answers.filter((a) => !a.repeated)).toHaveLength(1);
    const updates = await drain(other.id, other.token, 1);
    expect(updates.map((u) => u.message.text)).toEqual(["once"]);
  });

  test("a row the database refuses fails only its own request (400); its batch neighbours commit", async () => {
    const other = await createTestBot(client, await registerUser(client));
    const row = (await findBotById(client.platform.db, other.id))!;
    const actor = ownActor(other.id);
    // jsonb cannot hold \u0000: validation stops this at the HTTP edge; here it reaches the database.
    const bad = input(row, "b", "refused", null, { note: "a\u0000b" });
    const results = await Promise.allSettled([
      actor.submit({ chatId: "a", input: input(row, "a", "first", null) }).accepted,
      actor.submit({ chatId: "b", input: bad }).accepted,
      actor.submit({ chatId: "c", input: input(row, "c", "third", null) }).accepted,
    ]);
    await actor.onStop();
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    const reason = asBadInput((results[1] as PromiseRejectedResult).reason);
    expect(reason).toBeInstanceOf(AppError);
    expect((reason as AppError).status).toBe(400);
    const updates = await drain(other.id, other.token, 2);
    expect(updates.map((u) => u.message.text)).toEqual(["first", "third"]);
  });

  test("several bots' batches share one transaction, each bot's updates its own and in order; a row refused for one bot fails only that request", async () => {
    const owner = await registerUser(client);
    const bots = await Promise.all([1, 2, 3].map((n) => createTestBot(client, owner, `shared ${n}`)));
    const rows = await Promise.all(bots.map(async (b) => (await findBotById(client.platform.db, b.id))!));
    const { committer, transactions } = countingCommitter();
    const actors = bots.map((b) => new IntakeActor({ ...client.wiring.intake, committer }, b.id));
    const sendAll = (texts: (bot: number) => IncomingInput[]) =>
      Promise.allSettled(actors.flatMap((actor, i) => texts(i).map((item) => actor.submit({ chatId: String(item.metadata.chat), input: item }).accepted)));
    const message = (i: number, chat: string, text: string, metadata: Record<string, unknown> = {}) => input(rows[i]!, chat, text, null, { chat, ...metadata });

    // Handed over in one tick: one transaction for the three bots.
    const first = await sendAll((i) => [message(i, "x", `${i}:1`), message(i, "y", `${i}:2`)]);
    expect({ statuses: first.map((r) => r.status), transactions: transactions() }).toEqual({ statuses: Array(6).fill("fulfilled"), transactions: 1 });

    // jsonb cannot hold \u0000: the shared transaction fails, each bot is retried alone, then the bad bot message by message.
    const second = await sendAll((i) => [message(i, "x", `${i}:3`, i === 1 ? { note: "a\u0000b" } : {}), message(i, "y", `${i}:4`)]);
    await Promise.all(actors.map((a) => a.onStop()));
    expect(second.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled", "fulfilled", "fulfilled"]);
    expect(((asBadInput((second[2] as PromiseRejectedResult).reason)) as AppError).status).toBe(400);

    const seen = await Promise.all(bots.map((b) => drain(b.id, b.token, 4)));
    expect(seen.map((updates) => updates.map((u) => u.message.text))).toEqual([["0:1", "0:2", "0:3", "0:4"], ["1:1", "1:2", "1:4"], ["2:1", "2:2", "2:3", "2:4"]]);
    for (const updates of seen) expect(updates.map((u) => u.update_id)).toEqual(updates.map((_, n) => updates[0].update_id + n));
  });

  test("two actors of one bot sharing the committer never number their rows in one transaction", async () => {
    const other = await createTestBot(client, await registerUser(client));
    const row = (await findBotById(client.platform.db, other.id))!;
    const { committer, transactions } = countingCommitter();
    const [a, b] = [0, 1].map(() => new IntakeActor({ ...client.wiring.intake, committer }, other.id));
    const results = await Promise.allSettled([
      a!.submit({ chatId: "a", input: input(row, "a", "from a", null) }).accepted,
      b!.submit({ chatId: "b", input: input(row, "b", "from b", null) }).accepted,
    ]);
    await Promise.all([a!.onStop(), b!.onStop()]);
    // One transaction each: sharing one, both would take the same numbers, fail, and be retried alone (three).
    expect({ statuses: results.map((r) => r.status), transactions: transactions() }).toEqual({ statuses: ["fulfilled", "fulfilled"], transactions: 2 });
    const updates = await drain(other.id, other.token, 2);
    expect(updates.map((u) => u.message.text).sort()).toEqual(["from a", "from b"]);
  });

  /** Whether a second bot's transaction starts while the first one's answer is held; both must then commit. */
  async function secondStartsBesideFirst(inFlight: number | undefined, name: string): Promise<boolean> {
    const owner = await registerUser(client);
    const [first, second] = await Promise.all([1, 2].map((n) => createTestBot(client, owner, `${name} ${n}`)));
    const rows = await Promise.all([first!, second!].map(async (b) => (await findBotById(client.platform.db, b.id))!));
    const { committer, started, releaseFirst } = committerHoldingFirst(inFlight);
    const [a, b] = [first!, second!].map((bot) => new IntakeActor({ ...client.wiring.intake, committer }, bot.id));
    const one = a!.submit({ chatId: "a", input: input(rows[0]!, "a", "first bot", null) }).accepted;
    await until(() => started() === 1, 5_000);
    const two = b!.submit({ chatId: "b", input: input(rows[1]!, "b", "second bot", null) }).accepted;
    // The first transaction's answer is held back; the second starts beside it only where it may.
    const overlapped = await until(() => started() === 2, 500);
    releaseFirst();
    const results = await Promise.allSettled([one, two]);
    await Promise.all([a!.onStop(), b!.onStop()]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled"]);
    const seen = await Promise.all([first!, second!].map((bot) => drain(bot.id, bot.token, 1)));
    expect(seen.map((updates) => updates.map((u) => u.message.text))).toEqual([["first bot"], ["second bot"]]);
    return overlapped;
  }

  test("with INTAKE_TRANSACTIONS above 1 the next transaction looks up while the last one's writes and COMMIT are on their way (PostgreSQL; PGlite waits)", async () => {
    expect(await secondStartsBesideFirst(3, "overlap")).toBe(client.platform.db.kind === "postgres");
  });

  test("by default one transaction at a time: the next starts once the last one is answered", async () => {
    expect(await secondStartsBesideFirst(undefined, "one at a time")).toBe(false);
  });

  /** Statistics the look-ups' plans are never kept for, and any at all (never analysed counts as -1 rows). */
  const NEVER_ENOUGH: AnalysedRows = { rows: Number.MAX_SAFE_INTEGER, rowsPerBot: Number.MAX_SAFE_INTEGER };
  const ANY_AT_ALL: AnalysedRows = { rows: -1, rowsPerBot: -1 };

  /**
   * The statements a committer of our own sends in its transactions for one message, in the
   * order sent (recordingStatements); `answered` also gets their answers, in order.
   */
  async function statementsOfOneMessage(keptLookupPlanStatistics: AnalysedRows, chat: string, answered: string[] = []): Promise<string[]> {
    const row = (await findBotById(client.platform.db, bot.id))!;
    const events: string[] = [];
    const recording = recordingStatements(client.platform.db, events);
    const committer = new IntakeCommitter({ db: recording, logInTransaction: client.platform.outbox.logInTransaction, keptLookupPlanStatistics });
    const actor = new IntakeActor({ ...client.wiring.intake, committer }, bot.id);
    await actor.submit({ chatId: chat, input: input(row, chat, "hello", null) }).accepted;
    await actor.onStop();
    answered.push(...events);
    return sentOnly(events);
  }

  /** The order of the lock, the look-ups, the settings and the write among the statements sent. */
  function orderOf(sent: string[]): string {
    const parts = [
      ["lock", "select id, last_message_id"], ["look-ups", "select (select json_agg(t)"], ["settings", "select set_config('plan_cache_mode'"],
      ["settings", "begin; set local plan_cache_mode"], ["write", "with held as"],
    ] as const;
    return parts.map(([name, start]) => [name, sent.findIndex((text) => text.startsWith(start))] as const)
      .filter(([, at]) => at >= 0).sort((a, b) => a[1] - b[1]).map(([name]) => name).join(", ");
  }

  test("on both drivers the writes run on kept plans: the settings go out after the look-ups, before the write", async () => {
    // Statistics never large enough: the look-ups keep their custom plans.
    const sent = await statementsOfOneMessage(NEVER_ENOUGH, "kept-plans");
    expect({ sent, order: orderOf(sent) }).toEqual({ sent, order: "lock, look-ups, settings, write" });
  });

  test("on PostgreSQL the settings travel with the look-ups: sent before the look-ups' answer is back, not in front of the write", async () => {
    const events: string[] = [];
    await statementsOfOneMessage(NEVER_ENOUGH, "settings-with-look-ups", events);
    const settingsSent = events.findIndex((e) => e.startsWith("select set_config('plan_cache_mode'"));
    const lookUpsAnswered = events.findIndex((e) => e.startsWith("answered: select (select json_agg(t)"));
    expect({ events, settingsBeforeTheAnswer: settingsSent >= 0 && settingsSent < lookUpsAnswered })
      .toEqual({ events, settingsBeforeTheAnswer: client.platform.db.kind === "postgres" });
  });

  test("once the statistics allow it, the settings go out first: lock and look-ups on kept plans too (PostgreSQL; PGlite has none)", async () => {
    const sent = await statementsOfOneMessage(ANY_AT_ALL, "kept-plans-first");
    expect({ sent, order: orderOf(sent) })
      .toEqual({ sent, order: client.platform.db.kind === "postgres" ? "settings, lock, look-ups, write" : "lock, look-ups, settings, write" });
  });

  test("a rotated token is refused at once by another process", async () => {
    const owner = await registerUser(client);
    const other = await createTestBot(client, owner);
    const second = await testClient(); // another process: its own caches and bus connection
    try {
      expect((await second.get("/api/bot/get-me", other.token)).status).toBe(200);
      const rotated = await client.post(`/api/bots/${other.id}/token`, undefined, owner.token);
      expect(rotated.status).toBe(200);
      expect((await second.get("/api/bot/get-me", other.token)).status).toBe(401);
      expect((await second.get(`/api/bots/${other.id}/get-updates?timeout=0`, other.token)).status).toBe(401);
      expect((await second.get("/api/bot/get-me", rotated.body.result.token)).status).toBe(200);
    } finally {
      await second.platform.close();
    }
  });
});
