// The webhook worker against real HTTP receivers: order per chat with parallel chats,
// retries with the error visible meanwhile, timeouts, 410 Gone, and the delivery log.
import { describe, expect, test } from "bun:test";
import { createTestBot, type TestBot } from "../support/harness.ts";
import { FAST, incoming, until, workerFixture } from "./support.ts";

const fx = workerFixture();

async function hookedBot(path: string, settings: Record<string, unknown> = {}): Promise<TestBot> {
  const bot = await createTestBot(fx.client, fx.alice);
  fx.mine.add(bot.id);
  const res = await fx.client.post(`/api/bots/${bot.id}/set-webhook`, { url: `${fx.receiver.url}${path}`, ...settings }, bot.token);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return bot;
}

const at = (path: string) => fx.receiver.received.filter((r) => r.path === path);
const info = async (bot: TestBot) => (await fx.client.get(`/api/bots/${bot.id}/get-webhook-info`, bot.token)).body.result;

describe("webhook delivery", () => {
  test("every update arrives in order per chat (once, unless an attempt failed), chats in parallel, with the secret headers", async () => {
    const path = "/order";
    fx.receiver.behave(async (req) => {
      if (req.path === path) await Bun.sleep(20 + Math.random() * 30);
      return new Response("ok");
    });
    const bot = await hookedBot(path, { secret_token: "top_secret-1", max_connections: 4 });
    const chats = Array.from({ length: 6 }, (_, i) => `order-${i}-${crypto.randomUUID()}`);
    const sent = new Map<string, string[]>(chats.map((c) => [c, []]));
    for (let round = 0; round < 8; round++) {
      await Promise.all(chats.map(async (c) => {
        const text = `${c} #${round}`;
        await incoming(fx.client, bot, c, text);
        sent.get(c)!.push(text);
      }));
    }
    await until("all 48 updates", () => new Set(at(path).map((r) => r.body.update_id)).size === 48);
    await until("confirmed", async () => (await info(bot)).pending_update_count === 0);
    const got = at(path);
    // At least once: a copy beyond the first is only ever the retry of an attempt that failed
    // (on a loaded machine, a timeout); none here means exactly once, in order.
    const attempts = await until("every attempt logged", async () => {
      const log = (await fx.client.get(`/api/bots/${bot.id}/deliveries?limit=200`, fx.alice.token)).body.result;
      return log.length === got.length ? log : undefined;
    });
    expect(got.length - 48).toBe(attempts.filter((a: any) => a.error).length);
    for (const c of chats) {
      const firsts = [...new Set(got.filter((r) => r.body.message.chat.id === c).map((r) => r.body.message.text))];
      expect(firsts).toEqual(sent.get(c)!);
    }
    expect(got[0]!.headers.get("x-bot-api-secret-token")).toBe("top_secret-1");
    expect(got[0]!.headers.get("x-telegram-bot-api-secret-token")).toBe("top_secret-1");
    expect(got[0]!.headers.get("content-type")).toContain("application/json");
    expect(fx.receiver.maxInFlight.get(path)).toBeGreaterThan(1);
    expect(fx.receiver.maxInFlight.get(path)).toBeLessThanOrEqual(4);
  });

  test("a receiver failing the first 3 attempts gets every update in order; get-webhook-info shows the error meanwhile", async () => {
    const path = "/flaky";
    let failures = 0;
    let seenError: any;
    const bot = await hookedBot(path);
    // Three failures, then the fourth attempt waits until the error has been seen through the API.
    fx.receiver.behave(async (req) => {
      if (req.path !== path) return new Response("ok");
      if (failures < 3) {
        failures++;
        return new Response("database is down", { status: 500 });
      }
      await until("the error in get-webhook-info", () => seenError);
      return new Response("ok");
    });
    const chatId = `flaky-${crypto.randomUUID()}`;
    for (const text of ["a", "b", "c", "d"]) await incoming(fx.client, bot, chatId, text);
    seenError = await until("last_error_message", async () => {
      const current = await info(bot);
      return current.last_error_message ? current : undefined;
    });
    expect(seenError.last_error_message).toContain("HTTP 500");
    expect(seenError.last_error_message).toContain("database is down");
    expect(seenError.last_error_date).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(seenError.pending_update_count).toBe(4);
    await until("all four delivered", () => new Set(at(path).map((r) => r.body.update_id)).size === 4);
    const texts = at(path).map((r) => r.body.message.text);
    expect(texts).toEqual(["a", "a", "a", "a", "b", "c", "d"]);
    await until("confirmed", async () => (await info(bot)).pending_update_count === 0);
  });

  test("Retry-After is honoured", async () => {
    const path = "/retry-after";
    fx.receiver.behave((req, nth) =>
      req.path === path && nth === 1 ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } }) : new Response("ok"),
    );
    const bot = await hookedBot(path);
    await incoming(fx.client, bot, `ra-${crypto.randomUUID()}`, "hello");
    await until("delivered after the wait", () => at(path).length === 2);
    const [first, second] = at(path);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
  });

  test("a slow receiver hits the timeout and is retried", async () => {
    const path = "/slow";
    fx.receiver.behave(async (req, nth) => {
      if (req.path === path && nth === 1) await Bun.sleep(FAST.timeoutMs! + 2000);
      return new Response("ok");
    });
    const bot = await hookedBot(path);
    await incoming(fx.client, bot, `slow-${crypto.randomUUID()}`, "patience");
    await until("the retry", () => at(path).length >= 2);
    expect(at(path).map((r) => r.body.message.text)).toEqual(["patience", "patience"]);
    const current = await until("the timeout recorded", async () => {
      const i = await info(bot);
      return i.last_error_message ? i : undefined;
    });
    expect(current.last_error_message).toContain(`timed out after ${FAST.timeoutMs} ms`);
  });

  test("410 Gone removes the webhook and records why; the bot polls again and nothing is lost", async () => {
    const path = "/gone";
    fx.receiver.behave((req) => (req.path === path ? new Response("no such bot here", { status: 410 }) : new Response("ok")));
    const bot = await hookedBot(path);
    await incoming(fx.client, bot, `gone-${crypto.randomUUID()}`, "anyone there?");
    const after = await until("webhook removed", async () => {
      const i = await info(bot);
      return i.url === "" ? i : undefined;
    });
    expect(after.last_error_message).toContain("HTTP 410");
    expect(after.last_error_message).toContain("webhook removed");
    expect(after.pending_update_count).toBe(1);
    expect(at(path)).toHaveLength(1);
    expect((await fx.client.get(`/api/bots/${bot.id}`, fx.alice.token)).body.result.webhook_url).toBeNull();
    const polled = await fx.client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(polled.status).toBe(200);
    expect(polled.body.result.map((u: any) => u.message.text)).toEqual(["anyone there?"]);
    await Bun.sleep(500);
    expect(at(path)).toHaveLength(1);
  });

  test("allowed_updates filters what is sent; operator replies arrive as operator_message", async () => {
    const path = "/allowed";
    const bot = await hookedBot(path, { allowed_updates: ["operator_message"] });
    const accepted = await incoming(fx.client, bot, `allowed-${crypto.randomUUID()}`, "skipped");
    await fx.client.post(`/api/inbox/${accepted.conversation_id}`, { text: "operator here" }, fx.alice.token);
    await until("the operator message", () => at(path).length === 1);
    expect(at(path)[0]!.body.operator_message.text).toBe("operator here");
    await until("both confirmed", async () => (await info(bot)).pending_update_count === 0);
  });

  test("delete-webhook stops delivery; updates then wait for get-updates", async () => {
    const path = "/deleted";
    const bot = await hookedBot(path);
    const chatId = `deleted-${crypto.randomUUID()}`;
    await incoming(fx.client, bot, chatId, "first");
    await until("first delivered and confirmed", async () => at(path).length === 1 && (await info(bot)).pending_update_count === 0);
    await fx.client.post(`/api/bots/${bot.id}/delete-webhook`, undefined, bot.token);
    await until("worker let go", () => !fx.worker.holds("webhook", bot.id));
    await incoming(fx.client, bot, chatId, "second");
    await Bun.sleep(500);
    expect(at(path)).toHaveLength(1);
    const polled = await fx.client.get(`/api/bots/${bot.id}/get-updates?timeout=0`, bot.token);
    expect(polled.body.result.map((u: any) => u.message.text)).toEqual(["second"]);
  });

  test("the delivery log lists attempts newest first with status, latency and error", async () => {
    const path = "/logged";
    fx.receiver.behave((req, nth) => (req.path === path && nth === 1 ? new Response("nope", { status: 503 }) : new Response("ok")));
    const bot = await hookedBot(path);
    await incoming(fx.client, bot, `logged-${crypto.randomUUID()}`, "log me");
    const log = await until("two attempts logged", async () => {
      const res = await fx.client.get(`/api/bots/${bot.id}/deliveries`, fx.alice.token);
      return res.body.result.length === 2 ? res.body.result : undefined;
    });
    expect(log[0]).toMatchObject({ kind: "webhook", status_code: 200, error: null, url: `${fx.receiver.url}${path}`, message_id: null });
    expect(log[1]).toMatchObject({ kind: "webhook", status_code: 503, error: "HTTP 503: nope" });
    expect(log[0].update_id).toBe(log[1].update_id);
    expect(log[0].latency_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(log[0].attempted_at)).toBeGreaterThanOrEqual(Date.parse(log[1].attempted_at));
    expect((await fx.client.get(`/api/bots/${bot.id}/deliveries?limit=1`, fx.alice.token)).body.result).toHaveLength(1);
  });
});
