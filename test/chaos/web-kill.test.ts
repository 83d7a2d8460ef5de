// Issue 10, scenario 1: two `web` processes under 48-way load, kill -9 of one mid-run and a
// restart. The restarted process's outbox relay and the surviving process publish the same
// bot at once: that is where acknowledged messages used to go missing.
import { expect } from "bun:test";
import {
  assertClean, chaosTest, createBot, Load, migrate, PrivateNats, PrivatePostgres, Reader, useCleanup, verdict, waitFor, webProcess,
} from "./support.ts";

useCleanup();

chaosTest("kill -9 of one of two web processes under 48-way load: no acknowledged message lost", async () => {
  const pg = new PrivatePostgres();
  const nats = new PrivateNats();
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate(services);
  const a = webProcess("web-kill.web-a", services);
  const b = webProcess("web-kill.web-b", services);
  await Promise.all([a.up(), b.up()]);
  const urls = () => [a.url, b.url];
  const bot = await createBot(a.url);

  const load = new Load({ urls, bot, senders: 48, chatsPerSender: 2, messages: 2000, pauseMs: 300, deadlineMs: 60_000 });
  const reader = new Reader(urls, bot).start();
  const sending = load.start();

  await waitFor("a third of the load acknowledged", () => load.acked.size >= load.planned / 3, 40_000);
  const killedAt = load.acked.size;
  await a.kill("SIGKILL");
  await Bun.sleep(1000);
  await a.up();
  const restartedAt = load.acked.size;

  await sending;
  await reader.drain(load, 30_000);

  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems];
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  for (const p of [a, b]) for (const e of p.crashes) problems.push(`${e.name} exited by itself (code ${e.code}, signal ${e.signal}); log ${e.log}`);
  assertClean(problems, `${v.summary}\nkilled web-a at ${killedAt} acked, back at ${restartedAt}`, [a.log, b.log, ...a.exits.map((e) => e.log)]);
  expect(problems).toEqual([]);
}, { timeoutMs: 150_000, services: true });
