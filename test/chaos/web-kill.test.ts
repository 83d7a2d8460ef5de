// Scenario 1: two `web` processes under 48-way load; kill -9 of one mid-run and a
// restart, then the same for the other. The restarted process's outbox relay and the surviving process publish the same
// bot at once: that is where acknowledged messages used to go missing.
import { expect } from "bun:test";
import {
  assertClean, chaosTest, crashProblems, createBot, Load, migrate, PrivateNats, PrivatePostgres, Reader, useCleanup, verdict, waitFor, webProcess,
} from "./support.ts";

useCleanup();

chaosTest("kill -9 of one of two web processes under 48-way load: no acknowledged message lost", async () => {
  const pg = new PrivatePostgres("web-kill");
  const nats = new PrivateNats("web-kill");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("web-kill", services);
  const a = webProcess("web-kill.web-a", services);
  const b = webProcess("web-kill.web-b", services);
  await Promise.all([a.up(), b.up()]);
  const urls = () => [a.url, b.url];
  const bot = await createBot(a.url);

  // Full speed: the losses came from the relay racing a busy publisher, so pressure matters.
  const load = new Load({ urls, bot, senders: 48, chatsPerSender: 2, messages: 2500, pauseMs: 0, deadlineMs: 60_000 });
  const reader = new Reader(urls, bot).start();
  const sending = load.start();

  // Each web process is killed once, at a third and at two thirds of the load: every restart
  // runs the start-up relay while the other process is publishing the same bot.
  const kills: string[] = [];
  for (const [i, victim] of [a, b].entries()) {
    const mark = (load.planned * (i + 1)) / 3;
    await waitFor(`${Math.round(mark)} messages acknowledged`, () => load.acked.size >= mark, 40_000);
    const killedAt = load.acked.size;
    await victim.kill("SIGKILL");
    await Bun.sleep(1000);
    await victim.up();
    kills.push(`${victim.name} killed at ${killedAt} acked, serving again at ${load.acked.size}`);
  }

  await sending;
  await reader.drain(load, 30_000);

  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems];
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  problems.push(...crashProblems([a, b]));
  assertClean(problems, `${v.summary}\n${kills.join("\n")}`, [...a.exits, ...b.exits].map((e) => e.log).concat(a.log, b.log));
  expect(problems).toEqual([]);
}, { timeoutMs: 150_000, services: true });
