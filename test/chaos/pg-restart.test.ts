// Scenario 3: `pg_ctl restart -m fast` under load. Every connection is cut at once;
// the web process must survive it (postgres.js used to throw from a setImmediate and kill the
// process), answer 503 meanwhile, reconnect by itself and lose nothing it acknowledged.
import { expect } from "bun:test";
import {
  assertClean, chaosTest, crashProblems, createBot, Load, migrate, PrivateNats, PrivatePostgres, Reader, ReadyWatch, slowProblems,
  useCleanup, verdict, waitFor, webProcess,
} from "./support.ts";

useCleanup();

const SLOW_MS = 10_000;
/** The process recovers by itself "within seconds" once the dependency is back. */
const RECOVERY_MS = 15_000;

chaosTest("PostgreSQL restart under load: the web process survives, no acknowledged message lost", async () => {
  const pg = new PrivatePostgres("pg-restart");
  const nats = new PrivateNats("pg-restart");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("pg-restart", services);
  const web = await webProcess("pg-restart.web", services).up();
  const urls = () => [web.url];
  const bot = await createBot(web.url);

  const load = new Load({ urls, bot, senders: 48, chatsPerSender: 2, messages: 1500, pauseMs: 200, requestTimeoutMs: 15_000, giveUpIf: () => !web.alive, deadlineMs: 60_000 });
  const reader = new Reader(urls, bot).start();
  // Dense samples: the restart takes about half a second.
  const ready = new ReadyWatch(web.url, 50);
  const sending = load.start();

  await waitFor("a third of the load acknowledged", () => load.acked.size >= load.planned / 3, 30_000);
  const ackedBefore = load.acked.size;
  const restartAt = Date.now();
  await pg.restart();
  const restartedAt = Date.now();

  await sending;
  await reader.drain(load, 30_000);
  await Bun.sleep(500);
  await ready.stop();

  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems, ...crashProblems([web]), ...slowProblems(load.attempts, SLOW_MS)];
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  const backAt = ready.samples.find((s) => s.at > restartedAt && s.status === 200)?.at;
  const last = ready.samples.at(-1)?.status;
  if (backAt && backAt - restartedAt > RECOVERY_MS) problems.push(`/readyz took ${backAt - restartedAt} ms to answer 200 again (bound ${RECOVERY_MS} ms)`);
  if (!backAt || last !== 200) problems.push(`/readyz after the restart: ${backAt ? `200 at +${backAt - restartedAt} ms but last sample ${last}` : "never 200"}`);
  // Best effort: the outage is shorter than some sampling gaps, so a missing 503 is only reported.
  const during = ready.between(restartAt, restartedAt + 1000);
  const saw503 = during.includes(503);
  const sendsDuring = load.attempts.filter((a) => a.at >= restartAt && a.at <= restartedAt + 2000);
  assertClean(problems, `${v.summary}\nPostgreSQL restart took ${restartedAt - restartAt} ms at ${ackedBefore} acked; ` +
    `/readyz during it: ${saw503 ? "503 seen" : "no 503 seen"} (${during.length} samples: ${[...new Set(during)].join(", ")}), ` +
    `200 again ${backAt ? `${backAt - restartedAt} ms` : "never"} after; sends around it: ${[...new Set(sendsDuring.map((a) => a.status || a.error))].join(", ")}`,
  [web.log, ...web.exits.map((e) => e.log)]);
  expect(problems).toEqual([]);
}, { timeoutMs: 150_000, services: true });
