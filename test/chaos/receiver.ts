// Chaos harness, the bot's webhook endpoint: answers 500 or hangs some of the time, and keeps
// every request so a lost message can be explained attempt by attempt.
import { identify, type Delivery, type Load } from "./traffic.ts";

export interface ReceiverOptions {
  failRate: number;
  hangRate: number;
  hangMs: number;
  /**
   * After this many failed attempts in a row for one update the receiver answers 2xx. Why: the
   * product backs off 1 s doubling per chat; without a bound, one unlucky update costs a minute
   * and the scenario outgrows its time budget without testing anything more.
   */
  maxFailuresPerUpdate: number;
}

/** A bot's webhook endpoint that answers 500 or hangs some of the time; keeps every 2xx it gave. */
export class FlakyReceiver {
  /** Deliveries answered 2xx, in the order they were answered. */
  readonly delivered: Delivery[] = [];
  readonly counts = { requests: 0, failed: 0, hung: 0, ok: 0 };
  /** Every request, for explaining a lost message: was it ever attempted, and when last. */
  readonly requests: Array<{ key?: string; update_id: number; at: number; answer: "ok" | "500" | "hang" }> = [];
  private readonly failures = new Map<number, number>();
  private readonly server: ReturnType<typeof Bun.serve>;

  constructor(readonly options: ReceiverOptions) {
    this.server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      idleTimeout: 0,
      fetch: async (req) => {
        const update = (await req.json()) as any;
        this.counts.requests++;
        const failed = this.failures.get(update.update_id) ?? 0;
        const roll = Math.random();
        const request = { key: identify(update)?.key, update_id: update.update_id as number, at: Date.now(), answer: "ok" as "ok" | "500" | "hang" };
        this.requests.push(request);
        if (failed < this.options.maxFailuresPerUpdate && roll < this.options.hangRate + this.options.failRate) {
          this.failures.set(update.update_id, failed + 1);
          if (roll < this.options.hangRate) {
            this.counts.hung++;
            request.answer = "hang";
            await Bun.sleep(this.options.hangMs);
          } else {
            this.counts.failed++;
            request.answer = "500";
          }
          return new Response("flaky", { status: 500 });
        }
        this.failures.delete(update.update_id);
        this.counts.ok++;
        const id = identify(update);
        if (id) this.delivered.push({ ...id, update_id: update.update_id, at: Date.now() });
        return Response.json({ ok: true });
      },
    });
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}/hook`;
  }

  async drain(load: Load, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const seen = new Set(this.delivered.map((d) => d.key));
      if ([...load.acked.keys()].every((k) => seen.has(k))) return;
      await Bun.sleep(250);
    }
  }

  /** What the receiver saw of the chats of these messages, seq by seq: answers and when, relative to `since`. */
  explain(keys: string[], since: number): string[] {
    const chats = [...new Set(keys.map((k) => k.replace(/:\d+$/, "")))].slice(0, 3);
    return chats.flatMap((chat) => {
      const seen = this.requests.filter((r) => r.key?.startsWith(`${chat}:`));
      const seqs = [...new Set(seen.map((r) => Number(r.key!.split(":").at(-1))))].sort((x, y) => x - y);
      const lines = seqs.map((seq) => {
        const mine = seen.filter((r) => r.key === `${chat}:${seq}`);
        return `  seq ${seq} (update ${mine[0]!.update_id}): ${mine.map((r) => `${r.answer}@${((r.at - since) / 1000).toFixed(1)}s`).join(" ")}`;
      });
      const missing = keys.filter((k) => k.startsWith(`${chat}:`) && !seen.some((r) => r.key === k));
      return [`chat ${chat}${missing.length ? ` (never requested: ${missing.join(", ")})` : ""}`, ...lines];
    });
  }

  stop(): void {
    this.server.stop(true);
  }
}
