// The log's memory of bodies it has read: bounded in bytes (oldest out first), and never the body
// of another update stored under the same sequence (a stream made anew).
import { describe, expect, test } from "bun:test";
import { BodyCache } from "../../src/updates/body-cache.ts";

const bytes = (n: number, fill = 1) => new Uint8Array(n).fill(fill);

describe("update body cache", () => {
  test("keeps bodies within its byte bound, dropping the oldest first", () => {
    const cache = new BodyCache(250);
    cache.put(1, 10, bytes(100, 1));
    cache.put(2, 11, bytes(100, 2));
    expect(cache.get(1, 10)).toEqual(bytes(100, 1));
    cache.put(3, 12, bytes(100, 3));
    expect(cache.get(1, 10)).toBeUndefined();
    expect(cache.get(2, 11)).toEqual(bytes(100, 2));
    expect(cache.get(3, 12)).toEqual(bytes(100, 3));
    expect(cache.size).toBe(2);
    // Larger than the whole bound: not kept, and nothing else is pushed out for it.
    cache.put(4, 13, bytes(300));
    expect(cache.get(4, 13)).toBeUndefined();
    expect(cache.size).toBe(2);
  });

  test("a sequence holding another update is a miss, and its new body replaces the old", () => {
    const cache = new BodyCache(1000);
    cache.put(7, 1, bytes(10, 1));
    expect(cache.get(7, 2)).toBeUndefined();
    cache.put(7, 2, bytes(10, 2));
    expect(cache.get(7, 2)).toEqual(bytes(10, 2));
    expect(cache.get(7, 1)).toBeUndefined();
    expect(cache.size).toBe(1);
  });

  test("a body is copied out of the buffer it came in, and a dropped one is gone", () => {
    const cache = new BodyCache(1000);
    const buffer = bytes(64, 5);
    cache.put(1, 1, buffer.subarray(0, 8));
    buffer.fill(0);
    expect(cache.get(1, 1)).toEqual(bytes(8, 5));
    cache.drop(1);
    expect(cache.get(1, 1)).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
