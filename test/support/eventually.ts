// The one way tests wait for something asynchronous (a bus delivery, a worker's scan, a
// push): poll `probe` until it yields a value (anything but undefined, null or false), or
// fail naming what never happened.

export async function eventually<T>(
  what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}
