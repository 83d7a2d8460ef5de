// Does a stream leader just elected answer a read before it has applied what its predecessor
// acknowledged? (NATS fixed such answers in 2.11, nats-server#6485; Debian ships 2.9.10.) The
// update log's readers settle the log before passing a gap because of it (docs/decisions.md
// round 35); this measures whether the NATS on this machine shows it at all.
//
// A private three-node cluster (the chaos suite's), an R3 stream, two connections publishing
// pipelined batches to the leader without pause; the leader is killed (kill -9), and the last 200
// sequences acknowledged before the kill are read from a surviving node every 5 ms until each
// answers. Printed per kill: sequences answered 404 before they were answered with the message
// (the lag), and 404s never followed by the message. At the end, every acknowledged message is
// looked for in the stream. Bounded: 1.5 s of publishing and 9 s of reading per kill.
//   bun bench/nats-leader-lag.ts [--kills 6]
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import { AckPolicy, connect, ErrorCode, type NatsConnection } from "nats";
import { NatsCluster } from "../test/chaos/services.ts";
import { waitFor } from "../test/chaos/support.ts";
import { numberArg } from "./stats.ts";

const KILLS = numberArg("kills", 6);
const text = new TextDecoder();
const utf8 = new TextEncoder();

const cluster = new NatsCluster("nats-leader-lag");
await cluster.start();
const servers = cluster.url.split(",");
const admin = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
await waitFor("an R3 stream placed", async () => {
  try {
    await (await admin.jetstreamManager({ timeout: 2000 })).streams.add({ name: "LAG", subjects: ["lag.>"], num_replicas: 3 });
    return true;
  } catch {
    return false;
  }
}, 30_000);
const jsm = await admin.jetstreamManager({ timeout: 2000, checkAPI: false });
const perNode: NatsConnection[] = await Promise.all(servers.map((s) => connect({ servers: [s], maxReconnectAttempts: -1, reconnectTimeWait: 100 })));
const acked = new Map<number, string>();
const leaderNow = async () => {
  let leader = "";
  await waitFor("a stream leader", async () => {
    leader = (await jsm.streams.info("LAG").catch(() => undefined))?.cluster?.leader ?? "";
    return leader !== "";
  }, 60_000);
  return leader;
};

let lagged = 0;
for (let kill = 0; kill < KILLS; kill++) {
  const leader = await leaderNow();
  const survivors = perNode.filter((_, i) => cluster.nodes[i]!.name !== leader);
  let publishing = true;
  let n = 0;
  const publishers = survivors.map(async (nc, k) => {
    const js = nc.jetstream({ timeout: 3000 });
    while (publishing) {
      await Promise.all(Array.from({ length: 10 }, () => {
        const body = `${kill}:${k}:${n++}`;
        return js.publish("lag.a", utf8.encode(body)).then((a) => void (a.duplicate || acked.set(a.seq, body)), () => undefined);
      }));
    }
  });
  await Bun.sleep(1500);
  await cluster.node(leader).proc.kill("SIGKILL");
  const lastAcked = Math.max(...acked.keys());
  const reader = await survivors[0]!.jetstreamManager({ timeout: 500, checkAPI: false });
  const answered = new Map<number, number>();
  const notFound = new Map<number, number>();
  const reads: Promise<void>[] = [];
  const killedAt = Date.now();
  while (Date.now() - killedAt < 9000) {
    for (const seq of [...acked.keys()].filter((s) => s > lastAcked - 200 && !answered.has(s)).slice(-50)) {
      reads.push(reader.streams.getMessage("LAG", { seq }).then(
        () => void (answered.has(seq) || answered.set(seq, Date.now() - killedAt)),
        (err) => {
          if ((err as { code?: string }).code === ErrorCode.JetStream404NoMessages && !answered.has(seq) && !notFound.has(seq)) notFound.set(seq, Date.now() - killedAt);
        },
      ));
    }
    await Bun.sleep(5);
  }
  await Promise.all(reads);
  publishing = false;
  await Promise.all(publishers);
  const late = [...notFound.keys()].filter((s) => answered.has(s));
  lagged += late.length;
  const first = Math.min(...answered.values());
  console.log(`kill ${kill + 1}: ${leader} (the leader); first answer ${Number.isFinite(first) ? `${first} ms` : "none"} after the kill; ` +
    `404 before the message: ${late.length}; 404 and never the message: ${notFound.size - late.length}`);
  await cluster.restart(leader);
  await Bun.sleep(5000);
}

await leaderNow();
const consumer = await jsm.consumers.add("LAG", { ack_policy: AckPolicy.None, mem_storage: true });
const stored = new Set<string>();
for (let left = consumer.num_pending; left > 0;) {
  let got = 0;
  for await (const m of admin.jetstream({ timeout: 5000 }).fetch("LAG", consumer.name, { batch: Math.min(left, 5000), expires: 5000 })) {
    stored.add(text.decode(m.data));
    got++;
  }
  if (got === 0) break;
  left -= got;
}
const missing = [...acked.values()].filter((body) => !stored.has(body)).length;
console.log(`${KILLS} kills: ${lagged} acknowledged sequence(s) answered 404 before the message; ${acked.size} acknowledged, ${missing} missing at the end`);

for (const nc of perNode) await nc.close();
await admin.close();
for (const node of cluster.nodes) await node.proc.kill("SIGKILL");
const storeDir = cluster.nodes[0]!.proc.argv[cluster.nodes[0]!.proc.argv.indexOf("-sd") + 1]!;
rmSync(dirname(storeDir), { recursive: true, force: true });
process.exit(0);
