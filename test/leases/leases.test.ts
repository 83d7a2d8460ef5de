// The leases contract against the in-process leases always, and JetStream KV when NATS_URL is set.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomUUID } from "node:crypto";
import { jetStreamLeases } from "../../src/leases/jetstream.ts";
import { memoryLeases } from "../../src/leases/memory.ts";
import { connectNats, type NatsConnection } from "../../src/nats.ts";
import { leasesContract, TEST_TTL_MS } from "./contract.ts";

/** A bucket of its own: the production bucket keeps the production TTL. */
const TEST_BUCKET = "TEST_LEASES";

leasesContract("memory", async (ttlMs) => memoryLeases({ ttlMs }));

describe("memory leases with an injected clock", () => {
  test("expire exactly at the TTL", async () => {
    let t = 1_000_000;
    const leases = memoryLeases({ ttlMs: 100, now: () => t });
    expect(await leases.acquire("k", "a")).toBe(true);
    t += 99;
    expect(await leases.acquire("k", "b")).toBe(false);
    expect(await leases.renew("k", "a")).toBe(true); // now good until t + 100
    t += 99;
    expect(await leases.holder("k")).toBe("a");
    t += 1;
    expect(await leases.holder("k")).toBeUndefined();
    expect(await leases.renew("k", "a")).toBe(false);
    expect(await leases.acquire("k", "b")).toBe(true);
  });
});

const natsUrl = process.env.NATS_URL;
if (natsUrl) {
  let nc: NatsConnection;
  beforeAll(async () => {
    nc = await connectNats(natsUrl, "leases-test");
  });
  afterAll(async () => {
    await nc.close();
  });
  leasesContract("jetstream", async (ttlMs) => jetStreamLeases(nc, { ttlMs, bucket: TEST_BUCKET }));

  describe("jetstream leases across processes", () => {
    // Each "process" has its own connection and its own Leases instance.
    const processes = async (n: number) => Promise.all(Array.from({ length: n }, async (_, i) => {
      const conn = await connectNats(natsUrl, `leases-test-${i}`);
      const leases = await jetStreamLeases(conn, { ttlMs: TEST_TTL_MS, bucket: TEST_BUCKET });
      return { leases, async stop() { await leases.close(); await conn.close(); } };
    }));

    test("exactly one of ten processes wins a race, and only it can renew", async () => {
      const ps = await processes(10);
      try {
        const k = randomUUID();
        const won = await Promise.all(ps.map((p, i) => p.leases.acquire(k, `process-${i}`)));
        expect(won.filter(Boolean)).toHaveLength(1);
        const winner = won.indexOf(true);
        const renewed = await Promise.all(ps.map((p, i) => p.leases.renew(k, `process-${i}`)));
        expect(renewed.map((r, i) => r === (i === winner))).toEqual(renewed.map(() => true));
      } finally {
        await Promise.all(ps.map((p) => p.stop()));
      }
    });

    test("a graceful close hands the lease over at once", async () => {
      const [a, b] = await processes(2);
      try {
        const k = randomUUID();
        expect(await a!.leases.acquire(k, "a")).toBe(true);
        expect(await b!.leases.acquire(k, "b")).toBe(false);
        await a!.stop();
        expect(await b!.leases.acquire(k, "b")).toBe(true);
      } finally {
        await Promise.all([a!.stop(), b!.stop()]); // stopping twice is harmless
      }
    });

    test("a bucket made under another TTL is brought to the configured one", async () => {
      const bucket = "TEST_LEASES_RETTL";
      const first = await jetStreamLeases(nc, { ttlMs: 5000, bucket });
      await first.close();
      const second = await jetStreamLeases(nc, { ttlMs: TEST_TTL_MS, bucket });
      await second.close();
      const status = await (await nc.jetstream().views.kv(bucket, { bindOnly: true })).status();
      expect(status.ttl).toBe(TEST_TTL_MS);
    });
  });
}
