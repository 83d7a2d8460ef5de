// The client side of bench/delivery.ts: a bot parks get-updates, a sender POSTs a message,
// and each side is timed from the POST. Run as its own process by default (a real bot and a
// real sender are other processes): a client sharing the server's event loop reads its
// answer only once the server has finished whatever else that loop turn holds (the batch's
// log append, the bus events), which is the server's work, not the delivery's latency.
//   bun bench/delivery-client.ts '<ClientOptions as JSON>'   (prints ClientResult as JSON)

export interface ClientOptions {
  runs: number;
  /** Unmeasured rounds of each long poll (naive, product) before its measured runs. */
  warmup: number;
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
  /**
   * The same, each after the idle pause a product round has before its POST: what the machine
   * adds when its cores have slept (a microVM that halts an idle vCPU at once returns to cold caches).
   */
  pacedBaseline: number[];
  /** The naive long poll: POST → its parked poll's answer received. */
  naivePoll: number[];
  /** POST → the parked poll's answer received. */
  delivery: number[];
  /** POST → its own acknowledgement received. */
  acknowledged: number[];
  /** The product's first rounds after its start (the warm-up's, at most `runs` of them): POST → the parked poll's answer. */
  coldDelivery: number[];
}

/** Why: lets a poll park before the POST (confirming the previous batch takes a few round trips). */
const PARK_MS = 25;

export async function runClient({ runs, warmup, server, bare, bot }: ClientOptions): Promise<ClientResult> {
  const bareRound = async () => {
    const started = performance.now();
    await fetch(`${bare}/commit`).then((r) => r.text());
    await fetch(`${bare}/`).then((r) => r.text());
    return performance.now() - started;
  };
  const baseline: number[] = [];
  for (let i = 0; i < runs; i++) baseline.push(await bareRound());
  const pacedBareRound = async () => {
    await Bun.sleep(PARK_MS);
    return bareRound();
  };
  // Paced and timed exactly like the product's rounds below.
  const naiveRound = async (i: number) => {
    const poll = fetch(`${bare}/naive-poll`).then((r) => r.json());
    await Bun.sleep(PARK_MS);
    const started = performance.now();
    const post = fetch(`${bare}/naive-message`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ chat_id: `c${i % 20}`, text: `m${i}` }),
    }).then((r) => r.json());
    await poll;
    const took = performance.now() - started;
    await post;
    return took;
  };
  let offset = 0;
  // Timed from the POST, not from the poll: parking the poll first is not part of delivery.
  // Each side is timed on its own: when the bot has the update, and when the sender has its
  // acknowledgement (which waits until the update is durable in the log as well).
  const productRound = async (i: number) => {
    const poll = fetch(`${server}/api/bots/${bot.id}/get-updates?timeout=10&offset=${offset}`, {
      headers: { authorization: `Bearer ${bot.token}` },
    }).then((r) => r.json() as Promise<any>);
    await Bun.sleep(PARK_MS);
    const started = performance.now();
    let acknowledged = NaN;
    const post = fetch(`${server}/api/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bot_id: bot.id, chat_id: `c${i % 20}`, text: `m${i}` }),
    }).then(async (r) => {
      const answer = (await r.json()) as any;
      acknowledged = performance.now() - started;
      return answer;
    });
    const got = await poll;
    const delivered = performance.now() - started;
    if (!(await post).ok) throw new Error("POST /api/messages failed");
    offset = got.result[got.result.length - 1].update_id + 1;
    return { delivered, acknowledged };
  };
  // Each path warms up before it is measured, as a server that has been serving does: the
  // product's first few hundred messages after its start run slower (0.1-0.8 ms at the median,
  // its code not yet compiled by the JIT's later tiers and its caches not yet filled), the
  // naive path's far less (its code is a few lines). coldDelivery keeps the product's first rounds.
  for (let i = 0; i < warmup; i++) await naiveRound(i);
  const coldDelivery: number[] = [];
  for (let i = 0; i < warmup; i++) {
    const { delivered } = await productRound(i);
    if (i < runs) coldDelivery.push(delivered);
  }
  // Measured in turns, a round of each at a time: this machine's speed moves between minutes (the
  // naive long poll's median 1.94 to 3.15 ms in invocations minutes apart, docs/decisions.md
  // round 34), and blocks measured half a minute apart put any such move into the ratio.
  const pacedBaseline: number[] = [];
  const naivePoll: number[] = [];
  const delivery: number[] = [];
  const acknowledged: number[] = [];
  for (let i = 0; i < runs; i++) {
    pacedBaseline.push(await pacedBareRound());
    naivePoll.push(await naiveRound(warmup + i));
    const round = await productRound(warmup + i);
    delivery.push(round.delivered);
    acknowledged.push(round.acknowledged);
  }
  return { baseline, pacedBaseline, naivePoll, delivery, acknowledged, coldDelivery };
}

if (import.meta.main) {
  const result = await runClient(JSON.parse(process.argv[2]!) as ClientOptions);
  process.stdout.write(JSON.stringify(result));
}
