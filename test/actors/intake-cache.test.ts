import { expect, test } from "bun:test";
import { Recent } from "../../src/actors/intake-cache.ts";

test("a Recent map keeps the most recently used keys: past its limit and an eighth it forgets the oldest, down to the limit", () => {
  const recent = new Recent<number>(8);
  for (let i = 0; i < 9; i++) recent.set(`k${i}`, i);
  // k0 read again: now the most recent.
  expect(recent.get("k0")).toBe(0);
  recent.set("k9", 9);
  expect(recent.size).toBe(8);
  // The two least recently used (k1, k2) went; k0, read last, stayed.
  expect(recent.get("k1")).toBeUndefined();
  expect(recent.get("k2")).toBeUndefined();
  expect(recent.get("k0")).toBe(0);
  for (const k of ["k3", "k4", "k5", "k6", "k7", "k8", "k9"]) expect(recent.get(k)).toBeDefined();
});

test("a Recent map never holds more than its limit and an eighth, whatever is inserted", () => {
  const recent = new Recent<number>(64);
  for (let i = 0; i < 10_000; i++) {
    recent.set(`k${i % 500}`, i);
    expect(recent.size).toBeLessThanOrEqual(72);
  }
  // The last 64 inserted are all there.
  for (let i = 10_000 - 64; i < 10_000; i++) expect(recent.get(`k${i % 500}`)).toBe(i);
});
