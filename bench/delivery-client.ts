// The client side of bench/delivery.ts: a bot parks get-updates, a sender POSTs a message,
// and each side is timed from the POST. Run as its own process by default (a real bot and a
// real sender are other processes): a client sharing the server's event loop reads its
// answer only once the server has finished whatever else that loop turn holds (the batch's
// log append, the bus events), which is the server's work, not the delivery's latency.
//   bun bench/delivery-client.ts '<ClientOptions as JSON>'   (prints ClientResult as JSON)

export interface ClientOptions {
  runs: number;
  /** The product's base URL. */
  server: string;
  /**
   * A bare server: GET / answers "ok"; GET /commit answers once a row is committed; GET /naive-poll
   * parks until POST /naive-message has committed its message.
   */
  bare: string;
  bot: { id: string; token: string };
}

export interface ClientResult {
  /** Two bare loopback HTTP round trips, one of them waiting for a committed insert. */
  baseline: number[];
  /** The naive long poll: POST → its parked poll's answer received. */
  naivePoll: number[];
  /** POST → the parked poll's answer received. */
  delivery: number[];
  /** POST → its own acknowledgement received. */
  acknowledged: number[];
}

/** Why: lets a poll park before the POST (confirming the previous batch takes a few round trips). */
const PARK_MS = 25;

export async function runClient({ runs, server, bare, bot }: ClientOptions): Promise<ClientResult> {
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fetch(`${bare}/commit`).then((r) => r.text());
    await fetch(`${bare}/`).then((r) => r.text());
    baseline.push(performance.now() - started);
  }
  // Paced and timed exactly like the product's runs below.
  const naivePoll: number[] = [];
  for (let i = 0; i < runs; i++) {
    const poll = fetch(`${bare}/naive-poll`).then((r) => r.json());
    await Bun.sleep(PARK_MS);
    const started = performance.now();
    const post = fetch(`${bare}/naive-message`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: `c${i % 20}`, text: `m${i}` }),
    }).then((r) => r.json());
    await poll;
    naivePoll.push(performance.now() - started);
    await post;
  }
  let offset = 0;
  // Timed from the POST, not from the poll: parking the poll first is not part of delivery.
  // Each side is timed on its own: when the bot has the update, and when the sender has its
  // acknowledgement (which waits until the update is durable in the log as well).
  const delivery: number[] = [];
  const acknowledged: number[] = [];
  for (let i = 0; i < runs; i++) {
    const poll = fetch(`${server}/api/bots/${bot.id}/get-updates?timeout=10&offset=${offset}`, {
      headers: { authorization: `Bearer ${bot.token}` },
    }).then((r) => r.json() as Promise<any>);
    await Bun.sleep(PARK_MS);
    const started = performance.now();
    const post = fetch(`${server}/api/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bot_id: bot.id, chat_id: `c${i % 20}`, text: `m${i}` }),
    }).then(async (r) => {
      const answer = (await r.json()) as any;
      acknowledged.push(performance.now() - started);
      return answer;
    });
    const got = await poll;
    delivery.push(performance.now() - started);
    if (!(await post).ok) throw new Error("POST /api/messages failed");
    offset = got.result[got.result.length - 1].update_id + 1;
  }
  return { baseline, naivePoll, delivery, acknowledged };
}

if (import.meta.main) {
  const result = await runClient(JSON.parse(process.argv[2]!) as ClientOptions);
  process.stdout.write(JSON.stringify(result));
}
