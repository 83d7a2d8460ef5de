// NATS_REPLICAS=3 on a 3-node JetStream cluster. Two `web` processes and a `webhook`
// process run with R3 streams and buckets; under load the node leading the update stream is
// killed (kill -9) and restarted, once, or four times in a row (each time whichever node leads
// then, once the cluster reports every replica current again: one failure at a time). No
// acknowledged message may be lost, through get-updates or the webhook, and delivery must go on
// while a node is away. A bot uploads files all the while; every acknowledged upload must
// download with the same bytes from both web processes.
import { expect } from "bun:test";
import { connect } from "nats";
import { Uploads } from "./uploads.ts";
import {
  assertClean, chaosTest, crashProblems, createBot, FlakyReceiver, Load, migrate, NatsCluster, onCleanup, PrivatePostgres, Reader,
  setWebhook, useCleanup, verdict, waitFor, webhookInfo, webProcess, WebhookProc,
} from "./support.ts";

useCleanup();


/** How long the node stays dead: long enough for leaders to move and clients to reconnect. */
const NODE_DOWN_MS = 8000;

interface Scenario {
  name: string;
  kills: number;
  /** Per bot: enough that the load outlasts the kills. */
  messages: number;
  pauseMs: number;
  downMs: number;
}

chaosTest("NATS_REPLICAS=3: kill -9 of the update stream's leader under load loses no acknowledged message", () =>
  killLeaders({ name: "nats-cluster", kills: 1, messages: 480, pauseMs: 60, downMs: NODE_DOWN_MS }), { timeoutMs: 200_000, services: true });

// Before round 37 a scratch version of it lost 25–395 acknowledged updates per run (a scan's
// consumer placed on a replica still catching up answered past messages the leader held:
// src/updates/jetstream-index.ts). Then 10 of 12 runs passed: in the others Debian's NATS 2.9.10
// numbered messages after a leader's kill otherwise than its predecessor had acknowledged them,
// and lost some (docs/decisions.md round 37). Since the kept outbox brings those back
// (src/outbox/repair.ts, rounds 38–39) it passed 15 of 15 runs (three beside a CPU burner): in CI.
chaosTest("NATS_REPLICAS=3: four kills -9 in a row, each of the node leading then, lose no acknowledged message", () =>
  killLeaders({ name: "nats-cluster-4", kills: 4, messages: 3000, pauseMs: 200, downMs: 4000 }), { timeoutMs: 300_000, services: true });

async function killLeaders(scenario: Scenario): Promise<void> {
  const { name } = scenario;
  const pg = new PrivatePostgres(name);
  const cluster = new NatsCluster(name);
  await Promise.all([pg.start(), cluster.start()]);
  const admin = await connect({ servers: cluster.url.split(","), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  onCleanup(() => admin.close());
  // Ready when an R3 stream can be placed: JetStream answers as soon as the meta leader is
  // elected, but placement needs all three peers known to it ("no suitable peers for
  // placement" failed a web process's start-up once in CI).
  const r3Placeable = async () => {
    try {
      const jsm = await admin.jetstreamManager({ timeout: 2000 });
      await jsm.streams.add({ name: "READY_PROBE", subjects: ["ready.probe"], num_replicas: 3 });
      await jsm.streams.delete("READY_PROBE");
      return true;
    } catch {
      return false;
    }
  };
  await waitFor("JetStream cluster ready for R3 streams", r3Placeable, 30_000);

  const services = { databaseUrl: pg.url, natsUrl: cluster.url };
  const r3 = { NATS_REPLICAS: "3" };
  await migrate(name, services);
  // CHAOS_WEB_LOG_LEVEL=debug logs every purge of the update stream (what a loss's reading needs).
  const webEnv = { ...r3, LOG_LEVEL: process.env.CHAOS_WEB_LOG_LEVEL ?? "info" };
  const a = webProcess(`${name}.web-a`, services, webEnv);
  const b = webProcess(`${name}.web-b`, services, webEnv);
  await Promise.all([a.up(), b.up()]);
  const worker = await new WebhookProc(`${name}.webhook`, services, { ...r3, LOG_LEVEL: process.env.CHAOS_WEBHOOK_LOG_LEVEL ?? "info" }).up();
  const urls = () => [a.url, b.url];

  const polled = await createBot(a.url);
  const hooked = await createBot(b.url);
  const receiver = new FlakyReceiver({ failRate: 0, hangRate: 0, hangMs: 0, maxFailuresPerUpdate: 0 });
  onCleanup(() => receiver.stop());
  await setWebhook(a.url, hooked, receiver.url, 8);

  // Every stream and bucket the processes made is replicated three times.
  const jsm = await admin.jetstreamManager();
  const replicas: Record<string, number> = {};
  for await (const s of jsm.streams.list()) replicas[s.config.name] = s.config.num_replicas;
  expect(Object.keys(replicas)).toEqual(expect.arrayContaining(["UPDATES", "KV_UPDATES_CONFIRMED", "KV_LEASES", "OBJ_FILES"]));
  expect(Object.entries(replicas).filter(([, n]) => n !== 3)).toEqual([]);

  // The victim: the update stream's leader, made to lead the files bucket too before the load
  // starts, so uploads meet the leader's loss (a step-down hands leadership to another node
  // at random: a few tries land it on the victim).
  const updatesLeader = async () => (await jsm.streams.info("UPDATES")).cluster?.leader;
  let leader = await updatesLeader();
  if (!leader) throw new Error("the UPDATES stream names no leader");
  let filesLeader = (await jsm.streams.info("OBJ_FILES")).cluster?.leader;
  for (let i = 0; i < 12 && filesLeader !== leader; i++) {
    await admin.request("$JS.API.STREAM.LEADER.STEPDOWN.OBJ_FILES", undefined, { timeout: 5000 }).catch(() => undefined);
    await Bun.sleep(500);
    filesLeader = (await jsm.streams.info("OBJ_FILES")).cluster?.leader;
  }
  const loads = [polled, hooked].map((bot) => new Load({ urls, bot, senders: 12, chatsPerSender: 2, messages: scenario.messages, pauseMs: scenario.pauseMs, requestTimeoutMs: 15_000, deadlineMs: 150_000 }));
  const reader = new Reader(urls, polled).start();
  const sending = Promise.all(loads.map((l) => l.start()));
  let loadEnded = false;
  void sending.finally(() => (loadEnded = true));
  const uploads = new Uploads(urls, polled).start();

  await waitFor("a third of the load acknowledged", () => loads.every((l) => l.acked.size >= l.planned / 3), 40_000);
  const uploadedBefore = uploads.acked.length;
  leader = (await updatesLeader()) ?? leader;
  filesLeader = (await jsm.streams.info("OBJ_FILES")).cluster?.leader;
  const killed: string[] = [];
  let deliveredWhileDown = 0;
  for (let k = 0; k < scenario.kills; k++) {
    if (k > 0) {
      // One failure at a time: the restarted node is a current replica of every stream again,
      // and the meta group places R3 streams (a kill before that once left it without a leader
      // for 12 s: a second failure, not what R3 promises to survive).
      await waitFor("the cluster whole again", async () => (await Promise.all(Object.keys(replicas).map(async (name) => {
        const info = await jsm.streams.info(name).catch(() => undefined);
        const peers = info?.cluster?.replicas ?? [];
        return !!info?.cluster?.leader && peers.length === 2 && peers.every((r) => r.current);
      }))).every(Boolean) && await r3Placeable(), 60_000);
      leader = (await updatesLeader()) ?? leader;
    }
    if (loadEnded) throw new Error(`the load ended before kill ${k + 1} of ${scenario.kills}: make it longer`);
    const downBefore = reader.deliveries.length + receiver.delivered.length;
    const killedAt = Date.now();
    killed.push(leader);
    await cluster.node(leader).proc.kill("SIGKILL");
    // Delivery goes on while the node is away (the other two hold a quorum).
    await waitFor("deliveries while a node is down", () => reader.deliveries.length + receiver.delivered.length > downBefore + 20, scenario.downMs + 20_000);
    deliveredWhileDown += reader.deliveries.length + receiver.delivered.length - downBefore;
    await Bun.sleep(Math.max(0, scenario.downMs - (Date.now() - killedAt)));
    await cluster.restart(leader);
  }

  await sending;
  // Uploads go on until a few have been acknowledged since the kill (the load may end first).
  await waitFor("uploads acknowledged after the kill", () => uploads.acked.length - uploadedBefore >= 5, 30_000).catch(() => undefined);
  await uploads.stop();
  await Promise.all([reader.drain(loads[0]!, 40_000), receiver.drain(loads[1]!, 40_000)]);

  /** Where the lost messages are: in the stream (a reader's problem) or not (a publisher's). */
  async function diagnose(): Promise<string[]> {
    const out: string[] = [];
    try {
      const info = await jsm.streams.info("UPDATES", { subjects_filter: ">" });
      out.push(`UPDATES stream now: ${JSON.stringify(info.state.subjects)}; leader ${info.cluster?.leader}, replicas ${JSON.stringify(info.cluster?.replicas?.map((r) => [r.name, r.current, r.lag]))}`);
    } catch (err) {
      out.push(`stream info failed: ${err}`);
    }
    out.push(`get-webhook-info: ${await webhookInfo(a.url, hooked)}`);
    for (const url of urls()) {
      const res = await fetch(`${url}/api/bots/${polled.id}/get-updates?timeout=0&limit=100&offset=-100`, { headers: { authorization: `Bearer ${polled.token}` } });
      const body = (await res.json()) as any;
      out.push(`${url} tail now: ${res.status} ${(body.result ?? []).length} update(s), last ${JSON.stringify(body.result?.at(-1)?.update_id)}; reader's last ${reader.deliveries.at(-1)?.update_id}`);
    }
    return out;
  }

  const polledVerdict = verdict(loads[0]!, reader.deliveries, reader.attempts);
  const hookedVerdict = verdict(loads[1]!, receiver.delivered, [], true);
  const problems = [
    ...polledVerdict.problems.map((p) => `get-updates: ${p}`),
    ...hookedVerdict.problems.map((p) => `webhook: ${p}`),
    ...crashProblems([a, b, worker]),
    ...(await uploads.lost()).map((p) => `upload: ${p}`),
  ];
  if (uploads.acked.length - uploadedBefore < 5) problems.push(`only ${uploads.acked.length - uploadedBefore} upload(s) acknowledged after the kill`);
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  if (problems.length) problems.push(...(await diagnose()));
  assertClean(problems, `get-updates: ${polledVerdict.summary}\nwebhook: ${hookedVerdict.summary}\n` +
    `killed NATS ${killed.join(", ")} (each the UPDATES leader then; FILES led by ${filesLeader} at the first) for ${scenario.downMs} ms each; ${deliveredWhileDown} deliveries while down\n` +
    `uploads: ${uploads.acked.length} acknowledged (${uploads.acked.length - uploadedBefore} after the kill), each downloaded from both web processes; ${uploads.refused.length} refused`,
  [a.log, b.log, worker.log, ...cluster.nodes.flatMap((n) => [n.proc.log, ...n.proc.exits.map((e) => e.log)])]);
  expect(problems).toEqual([]);
}
