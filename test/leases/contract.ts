// The Leases contract, run against every implementation (leases.test.ts). Real time, since
// the JetStream lease TTL is enforced by the server's clock.
import { afterEach, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import type { Leases } from "../../src/leases/leases.ts";

export type OpenLeases = (ttlMs: number) => Promise<Leases>;

/** Short enough for a test, long enough to be well above the server's expiry granularity. */
export const TEST_TTL_MS = 1000;
/** Server-side expiry runs on its own timer: a lease may outlive its TTL by this much. */
const EXPIRY_SLACK_MS = 2500;
/** Even an early expiry may not come sooner than this fraction of the TTL. */
const EARLIEST_EXPIRY_FRACTION = 0.8;

const key = () => randomUUID();

export function leasesContract(name: string, open: OpenLeases): void {
  describe(`leases contract: ${name}`, () => {
    const opened: Leases[] = [];
    const openLeases = async () => {
      const l = await open(TEST_TTL_MS);
      opened.push(l);
      return l;
    };
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((l) => l.close()));
    });

    test("acquire takes a free key; holder() names the holder", async () => {
      const leases = await openLeases();
      const k = key();
      expect(await leases.holder(k)).toBeUndefined();
      expect(await leases.acquire(k, "a")).toBe(true);
      expect(await leases.holder(k)).toBe("a");
      expect(await leases.acquire(k, "b")).toBe(false);
      expect(await leases.acquire(k, "a")).toBe(true); // already held: renews
      expect(await leases.holder(k)).toBe("a");
    });

    test("exactly one of many racing holders wins", async () => {
      const leases = await openLeases();
      const k = key();
      const holders = Array.from({ length: 10 }, (_, i) => `worker-${i}`);
      const won = await Promise.all(holders.map((h) => leases.acquire(k, h)));
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await leases.holder(k)).toBe(holders[won.indexOf(true)]!);
    });

    test("renew keeps the lease past its TTL; others cannot take it meanwhile", async () => {
      const leases = await openLeases();
      const k = key();
      expect(await leases.acquire(k, "a")).toBe(true);
      const until = Date.now() + 2.5 * TEST_TTL_MS;
      while (Date.now() < until) {
        await Bun.sleep(TEST_TTL_MS / 4);
        expect(await leases.renew(k, "a")).toBe(true);
        expect(await leases.acquire(k, "b")).toBe(false);
      }
      expect(await leases.holder(k)).toBe("a");
    });

    test("renew by a non-holder, or of a free key, is false and takes nothing", async () => {
      const leases = await openLeases();
      const k = key();
      expect(await leases.renew(k, "a")).toBe(false);
      expect(await leases.holder(k)).toBeUndefined();
      await leases.acquire(k, "a");
      expect(await leases.renew(k, "b")).toBe(false);
      expect(await leases.holder(k)).toBe("a");
    });

    test("release frees the key for another holder; a non-holder's release does nothing", async () => {
      const leases = await openLeases();
      const k = key();
      await leases.acquire(k, "a");
      await leases.release(k, "b");
      expect(await leases.holder(k)).toBe("a");
      await leases.release(k, "a");
      expect(await leases.holder(k)).toBeUndefined();
      expect(await leases.renew(k, "a")).toBe(false);
      expect(await leases.acquire(k, "b")).toBe(true);
      expect(await leases.holder(k)).toBe("b");
      await leases.release(k, "nobody-else");
      await leases.release(key(), "a"); // a key never held
    });

    test("an expired lease can be taken over; the old holder then loses renew", async () => {
      const leases = await openLeases();
      const k = key();
      const start = Date.now();
      expect(await leases.acquire(k, "a")).toBe(true);
      await Bun.sleep(TEST_TTL_MS / 2);
      expect(await leases.acquire(k, "b")).toBe(false);
      let tookAt = 0;
      while (Date.now() - start < TEST_TTL_MS + EXPIRY_SLACK_MS) {
        if (await leases.acquire(k, "b")) {
          tookAt = Date.now();
          break;
        }
        await Bun.sleep(50);
      }
      expect(tookAt).toBeGreaterThan(0);
      expect(tookAt - start).toBeGreaterThanOrEqual(TEST_TTL_MS * EARLIEST_EXPIRY_FRACTION);
      expect(await leases.holder(k)).toBe("b");
      expect(await leases.renew(k, "a")).toBe(false);
      expect(await leases.acquire(k, "a")).toBe(false);
      expect(await leases.holder(k)).toBe("b");
    });

    test("a lease that lapsed unclaimed cannot be renewed, only acquired again", async () => {
      const leases = await openLeases();
      const k = key();
      await leases.acquire(k, "a");
      const deadline = Date.now() + TEST_TTL_MS + EXPIRY_SLACK_MS;
      while ((await leases.holder(k)) !== undefined && Date.now() < deadline) await Bun.sleep(50);
      expect(await leases.holder(k)).toBeUndefined();
      expect(await leases.renew(k, "a")).toBe(false);
      expect(await leases.acquire(k, "a")).toBe(true);
    });

    test("keys outside the KV key alphabet are refused", async () => {
      const leases = await openLeases();
      for (const bad of ["", "a b", "a*", "a>", ".a", "a."]) {
        await expect(leases.acquire(bad, "a")).rejects.toThrow(/invalid lease key/);
      }
      expect(await leases.acquire(`webhook.${key()}`, "a")).toBe(true);
    });
  });
}
