// Rolling upgrade (README "Upgrades"): two `web` processes of the old version under retrying
// load; `release` of the new version applies a new migration while they serve; then each old
// process is taken out of the balancer, drained with SIGTERM and replaced by a new-version
// process. Only a retryable 503 (or 429) may fail a request; no acknowledged message is lost.
import { expect } from "bun:test";
import { cpSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  assertClean, chaosTest, crashProblems, createBot, Load, migrate, PrivateNats, PrivatePostgres, Reader, ROOT, tempDir, useCleanup, verdict, waitFor, webProcess,
  type WebProc,
} from "./support.ts";

useCleanup();

/**
 * The new release's migration: expand only, as the README asks (old processes keep running on
 * the new schema). A column with a default and a new table, both taking brief exclusive locks.
 */
const NEW_MIGRATION = `
alter table messages add column upgrade_probe text not null default 'new';
create table upgrade_probe (id bigint primary key, note text);
insert into upgrade_probe values (1, 'applied while the old version served');
`;

/** A copy of this checkout with one more migration: the "new version". */
function newVersion(): string {
  const dir = tempDir("upgrade-new");
  for (const part of ["src", "sql", "web", "package.json", "bunfig.toml", "tsconfig.json"]) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  writeFileSync(join(dir, "sql", "9999_rolling_upgrade_probe.sql"), NEW_MIGRATION);
  return dir;
}

chaosTest("rolling upgrade: release applies a new migration, web processes replaced one by one under load", async () => {
  const pg = new PrivatePostgres("upgrade");
  const nats = new PrivateNats("upgrade");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("upgrade", services);
  const next = newVersion();

  const serving: WebProc[] = [webProcess("upgrade.old-a", services), webProcess("upgrade.old-b", services)];
  await Promise.all(serving.map((p) => p.up()));
  const all = [...serving];
  // The load balancer: sends only to processes in rotation.
  const urls = () => serving.map((p) => p.url);
  const bot = await createBot(urls()[0]!);

  const load = new Load({ urls, bot, senders: 16, chatsPerSender: 2, messages: 3200, pauseMs: 150, deadlineMs: 120_000 });
  const reader = new Reader(urls, bot, 2).start();
  const sending = load.start();

  const steps: string[] = [];
  /** Each replacement must happen while messages are still being sent, or it proves nothing. */
  const underLoad: boolean[] = [];
  await waitFor("a quarter acknowledged", () => load.acked.size >= load.planned / 4, 40_000);
  await migrate("upgrade.new", services, next);
  steps.push(`release (new migration) applied at ${load.acked.size} acked`);

  for (const [i, old] of [...serving].entries()) {
    const replacement = webProcess(`upgrade.new-${i}`, services, {}, next);
    await replacement.up();
    serving.push(replacement);
    all.push(replacement);
    // Out of rotation first (its /readyz says 503 once draining), then drained.
    serving.splice(serving.indexOf(old), 1);
    await old.kill("SIGTERM", 15_000);
    underLoad.push(load.acked.size < load.planned);
    steps.push(`${old.name} drained and replaced by ${replacement.name} at ${load.acked.size} acked (exit ${old.exits.at(-1)?.code})`);
    await Bun.sleep(1500);
  }

  await sending;
  await reader.drain(load, 30_000);

  const v = verdict(load, reader.deliveries, reader.attempts);
  const problems = [...v.problems];
  const unanswered = load.attempts.filter((a) => a.status === 0);
  if (unanswered.length) problems.push(`${unanswered.length} send(s) got no answer (not a retryable 503): ${unanswered.slice(0, 5).map((a) => a.error).join(", ")}`);
  if (reader.belowOffset.length) problems.push(`get-updates returned ${reader.belowOffset.length} update(s) below the confirmed offset`);
  problems.push(...crashProblems(all));
  const drainedBadly = all.flatMap((p) => p.exits).filter((e) => e.code !== 0 && e.code !== null);
  if (drainedBadly.length) problems.push(`a drained process exited with ${drainedBadly.map((e) => e.code).join(", ")}`);
  assertClean(problems, `${v.summary}\n${steps.join("\n")}`, all.map((p) => p.log));
  expect(problems).toEqual([]);
  expect(load.acked.size).toBe(load.planned);
  expect(underLoad).toEqual([true, true]);
}, { timeoutMs: 180_000, services: true });
