// Scenario 2: NATS down for 20 s under load, then back on the same port and store.
// Meanwhile requests must fail fast as 503 (never 500, never hang), /readyz must say 503, and
// nothing acknowledged during or around the outage may be missing from the log afterwards.
import { expect } from "bun:test";
import {
  assertClean, chaosTest, crashProblems, createBot, Load, migrate, PrivateNats, PrivatePostgres, Reader, ReadyWatch, slowProblems,
  useCleanup, verdict, waitFor, webProcess,
} from "./support.ts";

useCleanup();

const OUTAGE_MS = 20_000;
/** No request waits longer than a few seconds for a dependency; 10 s is the line. */
const SLOW_MS = 10_000;
/** The process recovers by itself "within seconds" once the dependency is back. */
const RECOVERY_MS = 15_000;
/** Detecting a dead connection is not instant; /readyz has this long to turn 503. */
const READY_GRACE_MS = 3000;

chaosTest("NATS down 20 s under load: 503s, /readyz 503, no acknowledged message lost", async () => {
  const pg = new PrivatePostgres("nats-outage");
  const nats = new PrivateNats("nats-outage");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("nats-outage", services);
  const web = await webProcess("nats-outage.web", services).up();
  const urls = () => [web.url];
  const bot = await createBot(web.url);

  // The request timeout sits above SLOW_MS so that a slow answer is measured, not cut short.
  const load = new Load({ urls, bot, senders: 48, chatsPerSender: 2, messages: 1500, pauseMs: 300, requestTimeoutMs: 15_000, giveUpIf: () => !web.alive, deadlineMs: 75_000 });
  const reader = new Reader(urls, bot).start();
  const ready = new ReadyWatch(web.url);
  const sending = load.start();

  await waitFor("a quarter of the load acknowledged", () => load.acked.size >= load.planned / 4, 30_000);
  const downAt = Date.now();
  const ackedBefore = load.acked.size;
  await nats.stop();
  await Bun.sleep(OUTAGE_MS);
  const upAt = Date.now();
  await nats.start();
  const ackedDuring = load.acked.size - ackedBefore;

  await sending;
  await reader.drain(load, 30_000);
  // /readyz has had the whole drain to come back; a few more samples settle "after".
  await Bun.sleep(1000);
  await ready.stop();

  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems, ...crashProblems([web]), ...slowProblems(load.attempts, SLOW_MS)];
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  const whileDown = ready.between(downAt + READY_GRACE_MS, upAt);
  const notDown = whileDown.filter((s) => s !== 503);
  if (whileDown.length === 0 || notDown.length) {
    problems.push(`/readyz while NATS was down: ${notDown.length} of ${whileDown.length} samples were not 503 (${[...new Set(notDown)].join(", ")})`);
  }
  const backAt = ready.samples.find((s) => s.at > upAt && s.status === 200)?.at;
  const last = ready.samples.at(-1)?.status;
  if (backAt && backAt - upAt > RECOVERY_MS) problems.push(`/readyz took ${backAt - upAt} ms to answer 200 again (bound ${RECOVERY_MS} ms)`);
  if (!backAt || last !== 200) problems.push(`/readyz after NATS returned: ${backAt ? `200 at +${backAt - upAt} ms but last sample ${last}` : "never 200"}`);

  const during = load.attempts.filter((a) => a.at >= downAt && a.at <= upAt);
  const duringStatuses = [...new Set(during.map((a) => a.status || a.error))].join(", ");
  assertClean(problems, `${v.summary}\nNATS down for ${upAt - downAt} ms at ${ackedBefore} acked; ${ackedDuring} acked while down; ` +
    `send results while down: ${duringStatuses}; /readyz back to 200 ${backAt ? `${backAt - upAt} ms` : "never"} after`,
  [web.log, ...nats.proc.exits.map((e) => e.log), nats.proc.log]);
  expect(problems).toEqual([]);
}, { timeoutMs: 150_000, services: true });
