// A power cut of the machine running a lone NATS server. JetStream acknowledges an append once
// it has written it, and flushes its files to disk every two minutes (NATS's sync_interval,
// which Debian's 2.9.10 cannot change), so what a power cut takes is the store's unflushed
// tail. Simulated: the store is copied while NATS is paused (the disk at the last flush), the
// load goes on, NATS is killed and comes back on the copy. The bot's backend is offline across
// the cut (it reads only afterwards), as one restarting or behind on a backlog would be.
//
// Opt-in (CHAOS_POWER_CUT=1): it reproduces a loss the README states (Outages): the updates
// acknowledged after the copy are gone from the log and their outbox rows were deleted when
// they were acknowledged, so nothing brings them back (docs/decisions.md round 38: 300 of 928 lost
// in its first run, update ids 343–642). It belongs in CI once the outbox keeps a published update until the log
// can no longer lose it.
import { expect, test } from "bun:test";
import { cp, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  assertClean, chaosTest, crashProblems, createBot, Load, migrate, PrivateNats, PrivatePostgres, Reader, useCleanup, verdict, waitFor,
  webProcess,
} from "./support.ts";

useCleanup();

const powerCut = process.env.CHAOS_POWER_CUT ? chaosTest : (name: string) => test.skip(`${name} (CHAOS_POWER_CUT=1)`, () => {});

powerCut("a power cut of a lone NATS server (its unflushed tail lost) loses no acknowledged message", async () => {
  const pg = new PrivatePostgres("nats-power-cut");
  const nats = new PrivateNats("nats-power-cut");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("nats-power-cut", services);
  const web = await webProcess("nats-power-cut.web", services).up();
  const urls = () => [web.url];
  const bot = await createBot(web.url);
  const load = new Load({ urls, bot, senders: 16, chatsPerSender: 2, messages: 900, pauseMs: 50, requestTimeoutMs: 15_000, giveUpIf: () => !web.alive, deadlineMs: 90_000 });
  const sending = load.start();

  await waitFor("a third of the load acknowledged", () => load.acked.size >= load.planned / 3, 60_000);
  const store = join(nats.dir, "js");
  const flushed = join(nats.dir, "flushed");
  // Paused while copied, so the copy is a whole store: the disk as the last flush left it.
  const pid = nats.proc.child!.pid;
  process.kill(pid, "SIGSTOP");
  try {
    await cp(store, flushed, { recursive: true });
  } finally {
    process.kill(pid, "SIGCONT");
  }
  const ackedAtFlush = load.acked.size;
  await waitFor("two thirds of the load acknowledged", () => load.acked.size >= (2 * load.planned) / 3, 60_000);
  const ackedAtCut = load.acked.size;
  await nats.proc.kill("SIGKILL");
  await rm(store, { recursive: true, force: true });
  await rename(flushed, store);
  await nats.start();

  await sending;
  const reader = new Reader(urls, bot).start();
  await reader.drain(load, 30_000);
  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems, ...crashProblems([web])];
  assertClean(problems, `${v.summary}\n${ackedAtFlush} acknowledged when the store was copied, ${ackedAtCut} when the power went`,
    [web.log, nats.proc.log]);
  expect(problems).toEqual([]);
}, { timeoutMs: 240_000, services: true });
