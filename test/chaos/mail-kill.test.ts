// kill -9 of the process that reads a mailbox while 50 mails arrive: every mail appears in
// the inbox exactly once, after the killed process restarts and after another one takes the
// mailbox's lease over. Two mail processes; each is killed once, while it holds the lease.
import { expect } from "bun:test";
import { hasDovecot, startDovecot, type Dovecot } from "../mail/servers.ts";
import { rawMail } from "../mail/support.ts";
import { assertClean, chaosTest, crashProblems, MailProc, migrate, onCleanup, PrivateNats, PrivatePostgres, useCleanup, waitFor, webProcess } from "./support.ts";

useCleanup();

const MAILS = 50;
/** Why: spread over ~30 s, so mail keeps arriving through both takeovers (a lease lives 10 s). */
const MAIL_INTERVAL_MS = 600;

async function call(base: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

/** The Message-ID of every incoming message of the bot, repeats included. */
async function takenIn(base: string, token: string, botId: string): Promise<string[]> {
  const list = await call(base, "GET", `/api/inbox?bot_id=${botId}&limit=200`, undefined, token);
  const ids: string[] = [];
  for (const c of list.body?.result ?? []) {
    const detail = await call(base, "GET", `/api/inbox/${c.id}`, undefined, token);
    for (const m of detail.body?.result?.messages ?? []) if (m.direction === "in") ids.push(m.metadata.email.message_id);
  }
  return ids;
}

chaosTest("mail process kill -9 while 50 mails arrive: each appears exactly once after a restart and a takeover", async () => {
  if (!hasDovecot) {
    if (process.env.CI) throw new Error("dovecot-imapd is missing (.ci/run installs it)");
    return console.log("skipped: dovecot-imapd not installed");
  }
  const pg = new PrivatePostgres("mail-kill");
  const nats = new PrivateNats("mail-kill");
  let dovecot: Dovecot | undefined;
  onCleanup(() => dovecot?.stop());
  [dovecot] = await Promise.all([startDovecot(), pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("mail-kill", services);
  const [web, a] = await Promise.all([webProcess("mail-kill.web", services).up(), new MailProc("mail-kill.mail-a", services).up()]);
  const b = new MailProc("mail-kill.mail-b", services);

  const owner = await call(web.url, "POST", "/api/auth/register", { email: `mail-chaos-${Date.now()}@example.com`, password: "chaos-password-1" });
  const token = owner.body.result.token as string;
  const bot = (await call(web.url, "POST", "/api/bots", { name: "Mail chaos" }, token)).body.result;
  const box = dovecot.newMailbox();
  const patched = await call(web.url, "PATCH", `/api/bots/${bot.id}/channels`, {
    channel_type: "email",
    config: {
      imap: { host: "127.0.0.1", port: dovecot.port, tls: false, user: box.user, password: box.password },
      smtp: { host: "127.0.0.1", port: 9, tls: "none", from_address: "support@shop.example" },
    },
  }, token);
  expect(patched.status).toBe(200);

  const sent: string[] = [];
  const arriving = (async () => {
    for (let i = 1; i <= MAILS; i++) {
      const mail = rawMail({ from: `Customer ${i} <customer-${i}@customer.example>`, subject: `Mail ${i}`, text: `mail number ${i}` });
      await dovecot!.deliver(mail.raw, box.user);
      sent.push(mail.messageId);
      await Bun.sleep(MAIL_INTERVAL_MS);
    }
  })();
  let count = 0;
  const progress = async (atLeast: number, what: string, timeoutMs = 40_000) =>
    waitFor(what, async () => (count = (await takenIn(web.url, token, bot.id)).length) >= atLeast, timeoutMs, () => `${count} taken in\n${a.tail()}\n${b.tail()}`);

  // `a` is the only mail process at first, so it holds the mailbox; `b` stands by.
  await progress(5, "first mails taken in by a");
  await b.up();
  await progress(12, "a dozen mails");
  await a.kill("SIGKILL");
  const firstKill = count;
  // `b` takes the lease over once a's expires; a's restart comes after, as a standby.
  await progress(firstKill + 3, "mail taken in again after a was killed (b took over)");
  await a.up();
  await progress(32, "two thirds of the mails");
  await b.kill("SIGKILL");
  const secondKill = count;
  await progress(secondKill + 3, "mail taken in again after b was killed (a took over)");
  await b.up();
  await arriving;
  await progress(MAILS, "every mail", 60_000);
  await Bun.sleep(2000);

  const ids = await takenIn(web.url, token, bot.id);
  const problems: string[] = [];
  const seen = new Map<string, number>();
  for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
  const missing = sent.filter((id) => !seen.has(id));
  const doubled = [...seen].filter(([, n]) => n > 1);
  if (missing.length) problems.push(`${missing.length} mail(s) never taken in`);
  if (doubled.length) problems.push(`${doubled.length} mail(s) taken in more than once`);
  problems.push(...crashProblems([web, a, b]));
  assertClean(problems, `${ids.length} incoming messages for ${MAILS} mails; a killed at ${firstKill}, b killed at ${secondKill}`, [web.log, a.log, b.log]);
  expect(ids.sort()).toEqual([...sent].sort());
}, { timeoutMs: 180_000, services: true });
