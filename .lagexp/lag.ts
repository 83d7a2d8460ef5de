// Experiment (not committed): does a new R3 stream leader answer MSG.GET 404 for a sequence its predecessor acknowledged?
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
let cycles = Number(process.argv[2] ?? 6);
const results: string[] = [];
for (let c = 0; c < cycles; c++) {
  let leader = "";
  await waitFor("a leader", async () => { try { leader = (await jsm.streams.info("LAG")).cluster?.leader ?? ""; return leader !== ""; } catch { return false; } }, 30000);
  const victim = cluster.node(leader);
  const others = pubs.filter((_, i) => cluster.nodes[i]!.name !== leader);
  let maxAcked = 0, stop = false;
  const loops = others.map(async (nc) => {
    const js = nc.jetstream({ timeout: 2000 });
    while (!stop) {
      const batch = Array.from({ length: 20 }, () => js.publish("lag.a", new Uint8Array(100)).then((a) => { if (!stop) maxAcked = Math.max(maxAcked, a.seq); }).catch(() => {}));
      await Promise.all(batch);
    }
  });
  await Bun.sleep(1500);
  const ackedAtKill = maxAcked;
  await victim.proc.kill("SIGKILL");
  stop = true;
  const t0 = Date.now();
  const seen: string[] = [];
  let ok = false;
  const readJsm = await others[0]!.jetstreamManager({ timeout: 300, checkAPI: false });
  const answers: string[] = [];
  const inflight: Promise<void>[] = [];
  while (Date.now() - t0 < 12000 && !ok) {
    const sent = Date.now() - t0;
    inflight.push(readJsm.streams.getMessage("LAG", { seq: ackedAtKill }).then(() => { ok = true; answers.push(`ok(sent ${sent})@${Date.now() - t0}`); }, (err) => {
      const code = (err as { code?: string }).code;
      if (code === ErrorCode.JetStream404NoMessages) answers.push(`404(sent ${sent})@${Date.now() - t0}`);
    }));
    await Bun.sleep(1);
  }
  await Promise.all(inflight);
  answers.sort((a, b) => Number(a.split("@")[1]) - Number(b.split("@")[1]));
  seen.push(...answers.slice(0, 6), `(${answers.length} answers)`);
  await Promise.all(loops);
  const newLeader = (await jsm.streams.info("LAG").catch(() => undefined))?.cluster?.leader;
  results.push(`cycle ${c}: killed ${leader}, acked up to seq ${ackedAtKill}; reads of it: ${seen.join(", ")}; new leader ${newLeader}; found ${ok}`);
  console.log(results.at(-1));
  await cluster.restart(leader);
  await Bun.sleep(4000);
}
for (const nc of pubs) await nc.close();
await admin.close();
for (const n of cluster.nodes) await n.proc.kill("SIGKILL").catch(() => {});
process.exit(0);
