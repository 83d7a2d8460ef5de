// Experiment (not committed): under continuous publishing through a leader kill, (1) does any
// acknowledged sequence read 404 from a leader before it reads ok, (2) is any acknowledged message missing at the end?
import { connect, ErrorCode } from "nats";
import { NatsCluster } from "../test/chaos/services.ts";
import { waitFor } from "../test/chaos/support.ts";

const cluster = new NatsCluster("lagexp");
await cluster.start();
const servers = cluster.url.split(",");
const admin = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
await waitFor("js ready", async () => {
  try { const jsm = await admin.jetstreamManager({ timeout: 2000 }); await jsm.streams.add({ name: "LAG", subjects: ["lag.>"], num_replicas: 3 }); return true; } catch { return false; }
}, 30000);
const jsm = await admin.jetstreamManager({ timeout: 2000, checkAPI: false });
const pubs = await Promise.all(servers.map((s) => connect({ servers: [s], maxReconnectAttempts: -1, reconnectTimeWait: 100 })));
const cycles = Number(process.argv[2] ?? 6);
const acked = new Map<number, string>(); // seq -> payload
let lag404 = 0;
for (let c = 0; c < cycles; c++) {
  let leader = "";
  await waitFor("a leader", async () => { try { leader = (await jsm.streams.info("LAG")).cluster?.leader ?? ""; return leader !== ""; } catch { return false; } }, 60000);
  const others = pubs.filter((_, i) => cluster.nodes[i]!.name !== leader);
  let stop = false, n = 0;
  const loops = others.map(async (nc, k) => {
    const js = nc.jetstream({ timeout: 3000 });
    while (!stop) {
      await Promise.all(Array.from({ length: 10 }, () => {
        const body = `${c}:${k}:${n++}`;
        return js.publish("lag.a", new TextEncoder().encode(body)).then((a) => { if (!a.duplicate) acked.set(a.seq, body); }).catch(() => {});
      }));
    }
  });
  await Bun.sleep(1500);
  await cluster.node(leader).proc.kill("SIGKILL");
  const killAcked = Math.max(...acked.keys());
  // Read the last 200 acknowledged sequences over and over from a surviving node's leader.
  const readJsm = await others[0]!.jetstreamManager({ timeout: 500, checkAPI: false });
  const firstOk = new Map<number, number>();
  const saw404 = new Map<number, number>();
  const t0 = Date.now();
  const reads: Promise<void>[] = [];
  while (Date.now() - t0 < 9000) {
    const window = [...acked.keys()].filter((s) => s > killAcked - 200 && !firstOk.has(s)).slice(-50);
    for (const seq of window) {
      reads.push(readJsm.streams.getMessage("LAG", { seq }).then(() => { if (!firstOk.has(seq)) firstOk.set(seq, Date.now() - t0); }, (err) => {
        if ((err as { code?: string }).code === ErrorCode.JetStream404NoMessages && !firstOk.has(seq) && !saw404.has(seq)) saw404.set(seq, Date.now() - t0);
      }));
    }
    await Bun.sleep(5);
  }
  await Promise.all(reads);
  stop = true;
  await Promise.all(loops);
  const lagged = [...saw404.entries()].filter(([s]) => firstOk.has(s));
  lag404 += lagged.length;
  console.log(`cycle ${c}: killed ${leader}; acked ${acked.size}; 404 then ok: ${lagged.length} ${JSON.stringify(lagged.slice(0, 5).map(([s, t]) => [s, t, firstOk.get(s)]))}; 404 never ok: ${[...saw404.keys()].filter((s) => !firstOk.has(s)).length}`);
  await cluster.restart(leader);
  await Bun.sleep(5000);
}
// Every acknowledged message still there?
let leader = "";
await waitFor("a leader", async () => { try { leader = (await jsm.streams.info("LAG")).cluster?.leader ?? ""; return leader !== ""; } catch { return false; } }, 60000);
const seen = new Set<string>();
const c = await jsm.consumers.add("LAG", { ack_policy: "none" as never, mem_storage: true });
const js = admin.jetstream({ timeout: 5000 });
const info = await jsm.consumers.info("LAG", c.name);
let left = info.num_pending;
while (left > 0) {
  const got = js.fetch("LAG", c.name, { batch: Math.min(left, 5000), expires: 5000 });
  let k = 0;
  for await (const m of got) { seen.add(new TextDecoder().decode(m.data)); k++; }
  if (k === 0) break;
  left -= k;
}
const missing = [...acked.values()].filter((b) => !seen.has(b));
console.log(`acked ${acked.size}, stored distinct ${seen.size}, acked missing ${missing.length} ${missing.slice(0, 5)}; lag 404s ${lag404}`);
for (const nc of pubs) await nc.close();
await admin.close();
for (const n of cluster.nodes) await n.proc.kill("SIGKILL").catch(() => {});
process.exit(0);
