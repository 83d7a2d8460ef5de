// The UpdateLog contract, run against every implementation (update-log.test.ts).
import { afterEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { UPDATE_RETENTION_MS, type UpdateLog } from "../../src/updates/log.ts";

/** Opens a fresh instance over the same storage each call (a second call is a "restart"). */
export type OpenLog = (now: () => number) => Promise<UpdateLog>;

const HOUR_MS = 3600 * 1000;

/** A settable clock starting at a fixed instant so `date` is predictable. */
function clock(start = Date.now()) {
  const c = { t: start, now: () => c.t };
  return c;
}

const upd = (id: number, extra: Record<string, unknown> = {}) => ({ update_id: id, payload: { message: { text: `m${id}` }, ...extra } });
const ids = (us: { update_id: number }[]) => us.map((u) => u.update_id);

export function updateLogContract(name: string, open: OpenLog): void {
  describe(`update log contract: ${name}`, () => {
    const opened: UpdateLog[] = [];
    const openLog = async (now: () => number) => {
      const log = await open(now);
      opened.push(log);
      return log;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((l) => l.close()));
    });

    test("reads in update_id order whatever the append order, with payload and date", async () => {
      const c = clock();
      const log = await openLog(c.now);
      const bot = randomUUID();
      for (const id of [3, 1, 2]) await log.append(bot, upd(id));
      const got = await log.read(bot, 0, 10);
      expect(ids(got)).toEqual([1, 2, 3]);
      expect(got[0]!.payload).toEqual({ message: { text: "m1" } });
      expect(got[0]!.date).toBe(Math.floor(c.t / 1000));
    });

    test("read honours fromUpdateId and limit", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      for (let id = 1; id <= 5; id++) await log.append(bot, upd(id));
      expect(ids(await log.read(bot, 2, 2))).toEqual([2, 3]);
      expect(ids(await log.read(bot, 4, 100))).toEqual([4, 5]);
      expect(await log.read(bot, 6, 100)).toEqual([]);
      expect(await log.read(bot, 1, 0)).toEqual([]);
    });

    test("offset semantics: confirm forgets everything below, and never goes back", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      for (let id = 1; id <= 4; id++) await log.append(bot, upd(id));
      await log.confirm(bot, 3);
      expect(ids(await log.read(bot, 0, 10))).toEqual([3, 4]);
      expect(await log.pendingCount(bot)).toBe(2);
      await log.confirm(bot, 1); // an older offset: no effect
      expect(ids(await log.read(bot, 0, 10))).toEqual([3, 4]);
      await log.confirm(bot, 5);
      expect(await log.read(bot, 0, 10)).toEqual([]);
      expect(await log.pendingCount(bot)).toBe(0);
    });

    test("tail returns the last unconfirmed updates ascending (negative offset)", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      expect(await log.tail(bot, 3)).toEqual([]);
      for (let id = 1; id <= 5; id++) await log.append(bot, upd(id));
      expect(ids(await log.tail(bot, 2))).toEqual([4, 5]);
      expect(ids(await log.tail(bot, 10))).toEqual([1, 2, 3, 4, 5]);
      await log.confirm(bot, 3);
      expect(ids(await log.tail(bot, 10))).toEqual([3, 4, 5]);
      expect(await log.tail(bot, 0)).toEqual([]);
    });

    test("appending the same update again is a no-op", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      await log.append(bot, upd(1));
      await log.append(bot, upd(1, { again: true }));
      await log.append(bot, upd(2));
      await log.append(bot, upd(1));
      const got = await log.read(bot, 0, 10);
      expect(ids(got)).toEqual([1, 2]);
      expect(got[0]!.payload).toEqual({ message: { text: "m1" } });
      expect(await log.pendingCount(bot)).toBe(2);
    });

    test("an update appended again after it was confirmed does not come back", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      await log.append(bot, upd(1));
      await log.append(bot, upd(2));
      await log.confirm(bot, 2);
      await log.append(bot, upd(1)); // the outbox relay republishing after a crash
      expect(ids(await log.read(bot, 0, 10))).toEqual([2]);
      expect(ids(await log.tail(bot, 10))).toEqual([2]);
      expect(await log.pendingCount(bot)).toBe(1);
      await log.confirm(bot, 3);
      await log.append(bot, upd(2));
      await log.append(bot, upd(1));
      expect(await log.read(bot, 0, 10)).toEqual([]);
      expect(await log.pendingCount(bot)).toBe(0);
    });

    test("confirm may run before the update it covers is appended", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      await log.confirm(bot, 10);
      await log.append(bot, upd(9));
      await log.append(bot, upd(10));
      expect(ids(await log.read(bot, 0, 10))).toEqual([10]);
    });

    test("pendingCount counts unconfirmed updates once each", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      expect(await log.pendingCount(bot)).toBe(0);
      for (const id of [1, 2, 2, 3, 1]) await log.append(bot, upd(id));
      expect(await log.pendingCount(bot)).toBe(3);
      await log.confirm(bot, 2);
      expect(await log.pendingCount(bot)).toBe(2);
    });

    test("drop forgets everything pending, later updates still arrive", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      await log.drop(bot); // nothing to drop
      for (let id = 1; id <= 3; id++) await log.append(bot, upd(id));
      await log.drop(bot);
      expect(await log.read(bot, 0, 10)).toEqual([]);
      expect(await log.pendingCount(bot)).toBe(0);
      await log.append(bot, upd(2)); // a late repeat of a dropped one
      await log.append(bot, upd(4));
      expect(ids(await log.read(bot, 0, 10))).toEqual([4]);
    });

    test("unconfirmed updates expire after 24 h", async () => {
      const c = clock();
      const log = await openLog(c.now);
      const bot = randomUUID();
      await log.append(bot, upd(1));
      c.t += UPDATE_RETENTION_MS - HOUR_MS;
      await log.append(bot, upd(2));
      expect(ids(await log.read(bot, 0, 10))).toEqual([1, 2]);
      c.t += HOUR_MS; // update 1 is now exactly 24 h old
      expect(ids(await log.read(bot, 0, 10))).toEqual([2]);
      expect(ids(await log.tail(bot, 10))).toEqual([2]);
      expect(await log.pendingCount(bot)).toBe(1);
      await log.confirm(bot, 1); // purging alongside must not disturb update 2
      expect(ids(await log.read(bot, 0, 10))).toEqual([2]);
      c.t += UPDATE_RETENTION_MS;
      expect(await log.read(bot, 0, 10)).toEqual([]);
      expect(await log.pendingCount(bot)).toBe(0);
    });

    test("eraseChats removes every stored update of those chats, a press under their messages too, and only theirs", async () => {
      const log = await openLog(clock().now);
      const bot = randomUUID();
      const other = randomUUID();
      const inChat = (id: number, chat: string) => ({ update_id: id, payload: { message: { chat: { id: chat }, text: `m${id}` } } });
      const press = (id: number, chat: string) => ({ update_id: id, payload: { callback_query: { id: `q${id}`, message: { chat: { id: chat } } } } });
      await log.appendMany(bot, [inChat(1, "gone"), inChat(2, "kept"), press(3, "gone"), inChat(4, "gone")]);
      await log.append(bot, inChat(1, "gone"));
      await log.append(other, inChat(1, "gone"));
      expect(await log.eraseChats(bot, ["gone"])).toBeGreaterThanOrEqual(3);
      expect(ids(await log.read(bot, 0, 10))).toEqual([2]);
      expect(ids(await log.read(other, 0, 10))).toEqual([1]);
      expect(await log.eraseChats(bot, ["gone"])).toBe(0);
    });

    test("bots are isolated from each other", async () => {
      const log = await openLog(clock().now);
      const a = randomUUID();
      const b = randomUUID();
      for (let id = 1; id <= 3; id++) {
        await log.append(a, upd(id, { bot: "a" }));
        await log.append(b, upd(id, { bot: "b" }));
      }
      await log.confirm(a, 3);
      expect(ids(await log.read(a, 0, 10))).toEqual([3]);
      const fromB = await log.read(b, 0, 10);
      expect(ids(fromB)).toEqual([1, 2, 3]);
      expect(fromB.every((u) => u.payload.bot === "b")).toBe(true);
      await log.drop(b);
      expect(await log.pendingCount(b)).toBe(0);
      expect(await log.pendingCount(a)).toBe(1);
    });

    test("updates and confirmations survive closing and reopening the log", async () => {
      const c = clock();
      const bot = randomUUID();
      const first = await openLog(c.now);
      for (let id = 1; id <= 3; id++) await first.append(bot, upd(id));
      await first.close();
      const second = await openLog(c.now);
      expect(ids(await second.read(bot, 0, 10))).toEqual([1, 2, 3]);
      await second.confirm(bot, 2);
      await second.close();
      const third = await openLog(c.now);
      await third.append(bot, upd(1)); // relay after the restart
      expect(ids(await third.read(bot, 0, 10))).toEqual([2, 3]);
    });

    test("parallel appends, repeats included, read back once each in update_id order", async () => {
      const c = clock();
      const bot = randomUUID();
      const writers = [await openLog(c.now), await openLog(c.now)];
      const count = 60;
      const order = Array.from({ length: count }, (_, i) => i + 1).sort(() => Math.random() - 0.5);
      await Promise.all(order.flatMap((id) => [
        writers[0]!.append(bot, upd(id)),
        writers[1]!.append(bot, upd(id)),
      ]));
      const got = await writers[0]!.read(bot, 0, 1000);
      expect(ids(got)).toEqual(Array.from({ length: count }, (_, i) => i + 1));
      expect(await writers[1]!.pendingCount(bot)).toBe(count);
      // Readers that page with offsets see each update exactly once.
      const seen: number[] = [];
      for (let offset = 0; ;) {
        const page = await writers[1]!.read(bot, offset, 7);
        if (page.length === 0) break;
        seen.push(...ids(page));
        offset = page[page.length - 1]!.update_id + 1;
        await writers[1]!.confirm(bot, offset);
      }
      expect(seen).toEqual(Array.from({ length: count }, (_, i) => i + 1));
    });
  });
}
