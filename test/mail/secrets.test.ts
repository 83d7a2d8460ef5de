// Mail server passwords are write-only: stored sealed, never in an API response, never in a
// log line, even when a connection fails. The "test connection" operation says what failed.
import { expect, test, beforeAll, afterAll } from "bun:test";
import { Writable } from "node:stream";
import { createApp } from "../../src/http/app.ts";
import { createLogger } from "../../src/logger.ts";
import { openPlatform, type Platform } from "../../src/platform.ts";
import { composeServices, type Services } from "../../src/services.ts";
import { findChannel } from "../../src/db/channels.ts";
import { startMailWorker, type MailWorker } from "../../src/workers/mail.ts";
import { createTestBot, registerUser, sharedDb, testClient, testConfig, type Client, type TestUser } from "../support/harness.ts";
import { FAST_MAIL, until } from "./support.ts";
import { describeMail, freePort, hasDovecot, startDovecot, startSmtpSink, type Dovecot, type SmtpSink } from "./servers.ts";

const lines: string[] = [];
let platform: Platform;
let services: Services;
let client: Client;
let alice: TestUser;
let dovecot: Dovecot;
let smtp: SmtpSink;
let worker: MailWorker;
const mine = new Set<string>();
const SMTP_USER = "mailer";
const SMTP_PASSWORD = "smtp-Secret-Pass-4711";

beforeAll(async () => {
  if (!hasDovecot) return;
  // Everything this platform logs, at the most talkative level, is kept to be searched.
  const config = testConfig({ logLevel: "trace" });
  const sink = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  platform = await openPlatform(config, createLogger(config, sink), { db: await sharedDb(), migrate: false, relayIntervalMs: 0 });
  services = composeServices(platform);
  const app = createApp(services);
  client = await testClient();
  // Requests go to the logging platform's app; the helper client only lends its request shape.
  client = { ...client, app, platform, services, request: (method, path, options) => requestOn(app, method, path, options) } as Client;
  client.get = (path, token) => client.request("GET", path, { token });
  client.post = (path, body, token) => client.request("POST", path, { body, token });
  client.patch = (path, body, token) => client.request("PATCH", path, { body, token });
  alice = await registerUser(client);
  [dovecot, smtp] = await Promise.all([startDovecot(), startSmtpSink({ user: SMTP_USER, password: SMTP_PASSWORD })]);
  worker = await startMailWorker(services, { ...FAST_MAIL, accept: (id) => mine.has(id) });
}, 30_000);

afterAll(async () => {
  if (!hasDovecot) return;
  await worker.stop();
  await Promise.all([dovecot.stop(), smtp.stop()]);
  await platform.close();
}, 30_000);

async function requestOn(app: ReturnType<typeof createApp>, method: string, path: string, options: { body?: unknown; token?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const res = await app.handle(new Request(`http://test.local${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }));
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {}
  return { status: res.status, headers: res.headers, body };
}

const config = (imap: Record<string, unknown> = {}, smtpOverride: Record<string, unknown> = {}) => ({
  imap: { host: "127.0.0.1", port: dovecot.port, tls: false, user: dovecot.user, password: dovecot.password, ...imap },
  smtp: { host: "127.0.0.1", port: smtp.port, tls: "none", user: SMTP_USER, password: SMTP_PASSWORD, from_address: "support@shop.example", ...smtpOverride },
});

const patchEmail = (botId: string, cfg: unknown) => client.patch(`/api/bots/${botId}/channels`, { channel_type: "email", config: cfg }, alice.token);
const testConnection = async (botId: string) => (await client.post(`/api/bots/${botId}/channels/email/test`, undefined, alice.token)).body;

describeMail("mail secrets and the connection test", () => {
  test("passwords are sealed at rest, shown only as password_set, and kept when a form saves without them", async () => {
    const bot = await createTestBot(client, alice);
    const saved = await patchEmail(bot.id, config());
    expect(saved.status).toBe(200);
    const raw = JSON.stringify(saved.body);
    expect(raw).not.toContain(dovecot.password);
    expect(raw).not.toContain(SMTP_PASSWORD);
    expect(raw).not.toContain("password_sealed");
    expect(saved.body.result.config.imap).toMatchObject({ user: dovecot.user, password_set: true });
    expect(saved.body.result.config.smtp).toMatchObject({ user: SMTP_USER, password_set: true });
    const listed = JSON.stringify((await client.get(`/api/bots/${bot.id}/channels`, alice.token)).body);
    expect(listed).not.toContain(dovecot.password);
    expect(listed).not.toContain(SMTP_PASSWORD);
    const stored = JSON.stringify((await findChannel(platform.db, bot.id, "email"))!.config);
    expect(stored).not.toContain(dovecot.password);
    expect(stored).not.toContain(SMTP_PASSWORD);
    // The cabinet saves what it read (password_set, no password): the passwords stay.
    const again = await patchEmail(bot.id, saved.body.result.config);
    expect(again.body.result.config.imap.password_set).toBe(true);
    expect(await testConnection(bot.id)).toEqual({ ok: true, result: { imap: { ok: true }, smtp: { ok: true } } });
    // null removes the mailbox (PATCH merges keys); the SMTP side and its password stay.
    const removed = await patchEmail(bot.id, { imap: null });
    expect(removed.status).toBe(200);
    expect(removed.body.result.config.imap).toBeUndefined();
    expect(removed.body.result.config.smtp.password_set).toBe(true);
  }, 30_000);

  test("the connection test says in plain words what failed: login, DNS, TLS, connection", async () => {
    const bot = await createTestBot(client, alice);
    await patchEmail(bot.id, config({ password: "wrong-imap-password" }, { password: "wrong-smtp-password" }));
    const login = (await testConnection(bot.id)).result;
    expect(login.imap).toEqual({ ok: false, error: "login: the server refused the user name or password" });
    expect(login.smtp).toEqual({ ok: false, error: "login: the server refused the user name or password" });

    await patchEmail(bot.id, config({ host: "no-such-host.invalid" }, { host: "no-such-host.invalid" }));
    const dns = (await testConnection(bot.id)).result;
    expect(dns.imap.error).toBe("DNS: the host name no-such-host.invalid was not found");
    expect(dns.smtp.error).toBe("DNS: the host name no-such-host.invalid was not found");

    // TLS spoken to a plain-text port.
    await patchEmail(bot.id, config({ tls: true }, { tls: "implicit" }));
    const tls = (await testConnection(bot.id)).result;
    expect(tls.imap.error).toStartWith("TLS: ");
    expect(tls.smtp.error).toStartWith("TLS: ");

    const closed = freePort();
    await patchEmail(bot.id, config({ port: closed }, { port: closed }));
    const refused = (await testConnection(bot.id)).result;
    expect(refused.imap.error).toBe(`connection: 127.0.0.1:${closed} refused the connection; check the port`);
    expect(refused.smtp.error).toBe(`connection: 127.0.0.1:${closed} refused the connection; check the port`);
  }, 60_000);

  test("a mailbox with a wrong password logs the failure, never a password", async () => {
    const bot = await createTestBot(client, alice);
    mine.add(bot.id);
    await patchEmail(bot.id, config({ password: "Wrong-Imap-Pass-0815" }));
    await until("the failed login logged", () => lines.some((l) => l.includes("mailbox connection failed") && l.includes("login:")));
    const log = lines.join("");
    for (const secret of [dovecot.password, SMTP_PASSWORD, "Wrong-Imap-Pass-0815", "wrong-imap-password", "wrong-smtp-password"]) {
      expect(log).not.toContain(secret);
    }
    expect(log.length).toBeGreaterThan(0);
  }, 30_000);

  test("mail servers on private addresses are refused unless ALLOW_PRIVATE_WEBHOOKS", async () => {
    const strict = await testClient({ allowPrivateWebhooks: false });
    const owner = await registerUser(strict);
    const bot = await createTestBot(strict, owner);
    const res = await strict.patch(`/api/bots/${bot.id}/channels`, { channel_type: "email", config: config() }, owner.token);
    expect(res.status).toBe(400);
    expect(res.body.ok).toBe(false);
    expect(res.body.error).toContain("config.imap.host");
    expect(res.body.error).toContain("loopback");
    expect(JSON.stringify(res.body)).not.toContain(dovecot.password);
  });

  test("a bad config is a 400 naming the field", async () => {
    const bot = await createTestBot(client, alice);
    const res = await patchEmail(bot.id, { smtp: { host: "127.0.0.1", port: 25, tls: "sometimes", from_address: "a@b.example" } });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("config.smtp.tls");
    const noPort = await patchEmail(bot.id, { imap: { host: "127.0.0.1", tls: false, user: "u", password: "p" } });
    expect(noPort.status).toBe(400);
    expect(noPort.body.error).toContain("config.imap.port");
  });
});
