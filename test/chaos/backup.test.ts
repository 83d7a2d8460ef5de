// Backups (README "Backups"): `npm run backup` taken while the deployment serves under load,
// the deployment lost, `npm run restore` into an empty one. The restored deployment serves;
// its bot resumes get-updates with every message acknowledged before the backup started and
// nothing it had confirmed before it; the widget history is intact; uploaded files download.
// Both modes: the embedded all-in-one on DATA_DIR, and production on private PostgreSQL + NATS.
import { expect } from "bun:test";
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import {
  BUN, chaosTest, createBot, embeddedProcess, identify, Load, migrate, PG_BIN, PrivateNats, PrivatePostgres, productEnv, Reader, ROOT, tempDir,
  useCleanup, waitFor, webProcess, type Bot, type WebProc,
} from "./support.ts";

useCleanup();

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function cli(script: "backup" | "restore", file: string, env: Record<string, string>): Promise<string> {
  const proc = Bun.spawn([BUN, `src/${script}.ts`, file], { cwd: ROOT, env: productEnv(env), stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${script} exited with ${code}: ${out}\n${err}`);
  return out.trim();
}

async function upload(base: string, bot: Bot, bytes: Buffer, name: string): Promise<{ url: string; sha: string }> {
  const data = new FormData();
  data.append("file", new Blob([new Uint8Array(bytes)]), name);
  const res = await fetch(`${base}/api/bots/${bot.id}/upload-file`, { method: "POST", body: data, headers: { authorization: `Bearer ${bot.token}` } });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
  return { url: body.result.url, sha: sha256(bytes) };
}

async function history(base: string, bot: Bot, chat: string): Promise<string[]> {
  const res = await fetch(`${base}/api/messages?bot_id=${bot.id}&chat_id=${encodeURIComponent(chat)}&limit=100`);
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`history: ${res.status} ${JSON.stringify(body)}`);
  return body.result.map((m: any) => m.text);
}

interface Deployment {
  /** The live deployment, serving under load, to back up. */
  original: WebProc;
  /** Backs it up (the CLI with its env). */
  backup(file: string): Promise<string>;
  /** Restores into a new empty deployment and starts it. */
  restore(file: string): Promise<{ restored: WebProc; said: string }>;
}

async function scenario(name: string, deployment: Deployment): Promise<void> {
  const a = deployment.original;
  const bot = await createBot(a.url);
  const urlsA = () => [a.url];

  // Before the backup: a web chat (the widget's history), files, and updates the bot confirmed.
  const before = new Load({ urls: urlsA, bot, senders: 2, chatsPerSender: 2, messages: 40, pauseMs: 0, deadlineMs: 30_000, channel: "web" });
  const readerA = new Reader(urlsA, bot, 1).start();
  await before.start();
  await readerA.drain(before, 20_000);
  expect(before.acked.size).toBe(before.planned);
  const files = await Promise.all([0, 1, 2].map((i) => upload(a.url, bot, randomBytes(200_000 + i), `file-${i}.bin`)));
  const widgetChat = `chaos-${before.run}-0`;
  const widgetHistory = await history(a.url, bot, widgetChat);
  expect(widgetHistory.length).toBe(before.perChat);

  // Bounded load that spans the backup; nobody reads it before the backup.
  const during = new Load({ urls: urlsA, bot, senders: 4, chatsPerSender: 2, messages: 400, pauseMs: 15, deadlineMs: 60_000 });
  const sending = during.start();
  await waitFor("100 messages acknowledged under load", () => during.acked.size >= 100, 60_000);
  const backupStartedAt = Date.now();
  const file = join(tempDir(`${name}-backup`), "backup.tar.gz");
  const backupSaid = await deployment.backup(file);
  const backupMs = Date.now() - backupStartedAt;
  await sending;
  const ackedBefore = [...during.acked].filter(([, m]) => m.at < backupStartedAt).map(([key]) => key);
  const ackedDuring = [...during.acked].filter(([, m]) => m.at >= backupStartedAt && m.at <= backupStartedAt + backupMs).length;
  await a.kill("SIGTERM");

  const { restored: b, said } = await deployment.restore(file);
  const urlsB = () => [b.url];
  const readerB = new Reader(urlsB, bot, 1).start();
  const after = new Load({ urls: urlsB, bot, senders: 1, chatsPerSender: 1, messages: 5, pauseMs: 0, deadlineMs: 20_000 });
  await after.start();
  const wanted = [...ackedBefore, ...after.acked.keys()];
  await waitFor("every message acknowledged before the backup, and new ones, through get-updates", () => wanted.every((k) => readerB.has(k)), 30_000).catch(() => {});
  await Bun.sleep(1500);
  await readerB.stop();

  const seen = new Map<number, number>();
  for (const d of readerB.deliveries) seen.set(d.update_id, (seen.get(d.update_id) ?? 0) + 1);
  const keysOnce = new Map<string, Set<number>>();
  for (const d of readerB.deliveries) keysOnce.set(d.key, (keysOnce.get(d.key) ?? new Set()).add(d.update_id));
  const problems: string[] = [];
  const lost = wanted.filter((k) => !readerB.has(k));
  if (lost.length) problems.push(`${lost.length} message(s) acknowledged before the backup (or after the restore) missing from get-updates: ${lost.slice(0, 10).join(", ")}`);
  const confirmedAgain = readerB.deliveries.filter((d) => before.acked.has(d.key));
  if (confirmedAgain.length) problems.push(`${confirmedAgain.length} update(s) confirmed before the backup delivered again`);
  const repeated = [...seen].filter(([, n]) => n > 1);
  if (repeated.length) problems.push(`${repeated.length} update_id(s) delivered twice`);
  const twice = [...keysOnce].filter(([, ids]) => ids.size > 1);
  if (twice.length) problems.push(`${twice.length} message(s) delivered as two updates`);
  if (!readerB.deliveries.every((d) => identify({ message: { metadata: { client_message_id: d.key } } }))) problems.push("an unidentifiable delivery");
  const historyAfter = await history(b.url, bot, widgetChat);
  if (JSON.stringify(historyAfter) !== JSON.stringify(widgetHistory)) problems.push(`widget history differs: ${JSON.stringify(historyAfter)} vs ${JSON.stringify(widgetHistory)}`);
  for (const f of files) {
    const link = new URL(f.url);
    const res = await fetch(`${b.url}${link.pathname}${link.search}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200 || sha256(bytes) !== f.sha) problems.push(`file ${link.pathname}: status ${res.status}, ${bytes.length} bytes`);
  }
  console.log(`${name}: ${backupSaid}\n${said}\nbackup took ${backupMs} ms under load; ${ackedBefore.length} acked before it, ${ackedDuring} while it ran, ${during.acked.size} in all; ` +
    `restored deployment delivered ${readerB.deliveries.length} update(s)`);
  expect(problems).toEqual([]);
  expect(ackedBefore.length).toBeGreaterThanOrEqual(100);
  await b.kill("SIGTERM");
}

chaosTest("embedded: backup of a serving DATA_DIR under load, restore into an empty one", async () => {
  const dirA = tempDir("backup-a");
  const dirB = tempDir("backup-b");
  const a = await embeddedProcess("backup.embedded-a", dirA).up(60_000);
  await scenario("embedded", {
    original: a,
    backup: (file) => cli("backup", file, { DATA_DIR: dirA }),
    async restore(file) {
      const said = await cli("restore", file, { DATA_DIR: dirB });
      return { said, restored: await embeddedProcess("backup.embedded-b", dirB).up(60_000) };
    },
  });
}, { timeoutMs: 240_000, services: false });

chaosTest("production: pg_dump + update log + file store under load, restore into a new database and NATS_PREFIX", async () => {
  const pg = new PrivatePostgres("backup");
  const nats = new PrivateNats("backup");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("backup", services);
  const a = await webProcess("backup.web-a", services).up(60_000);
  const env = { DATABASE_URL: pg.url, NATS_URL: nats.url };
  const restoredUrl = pg.url.replace(/\/postgres$/, "/restored");
  await scenario("production", {
    original: a,
    backup: (file) => cli("backup", file, env),
    async restore(file) {
      const create = Bun.spawn([join(PG_BIN, "psql"), pg.url, "-qc", "create database restored"], { stdout: "pipe", stderr: "pipe" });
      if ((await create.exited) !== 0) throw new Error(`createdb: ${await new Response(create.stderr).text()}`);
      const target = { DATABASE_URL: restoredUrl, NATS_URL: nats.url, NATS_PREFIX: "restored" };
      const said = await cli("restore", file, target);
      return { said, restored: await webProcess("backup.web-b", { databaseUrl: restoredUrl, natsUrl: nats.url }, { NATS_PREFIX: "restored" }).up(60_000) };
    },
  });
}, { timeoutMs: 240_000, services: true });
