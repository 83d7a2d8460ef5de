// Scenario 5: the embedded all-in-one process (PGlite in DATA_DIR, in-process log,
// bus and leases) killed with -9 twice under load and restarted on the same DATA_DIR. The
// data directory must reopen each time and nothing acknowledged may be missing.
import { expect } from "bun:test";
import { assertClean, chaosTest, crashProblems, createBot, embeddedProcess, Load, Reader, tempDir, useCleanup, verdict, waitFor } from "./support.ts";

useCleanup();

chaosTest("embedded mode, kill -9 twice under load: no acknowledged message lost, the data dir reopens", async () => {
  const dataDir = tempDir("embedded");
  const app = embeddedProcess("embedded-kill.main", dataDir);
  // PGlite's first start (creating the database, migrating) is slow on a busy machine.
  await app.up(60_000);
  const urls = () => [app.url];
  const bot = await createBot(app.url);

  const load = new Load({ urls, bot, senders: 24, chatsPerSender: 2, messages: 1200, pauseMs: 50, deadlineMs: 70_000, channel: "web" });
  const reader = new Reader(urls, bot).start();
  const sending = load.start();

  const kills: string[] = [];
  for (const fraction of [1 / 3, 2 / 3]) {
    const mark = load.planned * fraction;
    await waitFor(`${Math.round(mark)} messages acknowledged`, () => load.acked.size >= mark, 40_000);
    const killedAt = load.acked.size;
    const started = Date.now();
    await app.kill("SIGKILL");
    await app.up(60_000);
    kills.push(`killed at ${killedAt} acked, serving again after ${Date.now() - started} ms at ${load.acked.size} acked`);
  }

  await sending;
  await reader.drain(load, 30_000);

  // A clean stop and start after the crashes: the directory must still open, with the history in it.
  await app.kill("SIGTERM");
  await app.up(60_000);
  const chat = 0;
  const res = await fetch(`${app.url}/api/messages?bot_id=${bot.id}&chat_id=chaos-${load.run}-${chat}&channel=web&limit=200`);
  const history = ((await res.json()) as any).result as Array<{ text: string }> | undefined;
  const expectedInChat = [...load.acked.values()].filter((m) => m.chat === chat).length;

  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems, ...crashProblems([app])];
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  if (res.status !== 200 || (history?.length ?? 0) < expectedInChat) {
    problems.push(`after a clean restart, chat ${chat}'s history has ${history?.length ?? 0} of ${expectedInChat} acknowledged messages (status ${res.status})`);
  }
  assertClean(problems, `${v.summary}\n${kills.join("\n")}`, app.exits.map((e) => e.log).concat(app.log));
  expect(problems).toEqual([]);
}, { timeoutMs: 150_000, services: false });
