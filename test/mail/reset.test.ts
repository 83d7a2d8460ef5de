// Mail from the platform: password reset (single use, an hour, hashed at rest, no account
// enumeration by answer or timing, rate-limited) and invites mailed to the invitee.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { hashToken } from "../../src/secrets.ts";
import { createTestBot, registerUser, testClient, uniqueEmail, type Client, type TestUser } from "../support/harness.ts";
import { startSmtpSink, type SmtpSink } from "./servers.ts";
import { until } from "./support.ts";

// Registering hashes a password (argon2id): slow on a busy machine.
setDefaultTimeout(30_000);

let smtp: SmtpSink;
let client: Client;
const PUBLIC_URL = "https://inbox.shop.example";

beforeAll(async () => {
  smtp = await startSmtpSink();
  client = await testClient({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailFrom: "Shop Inbox <inbox@shop.example>", publicUrl: PUBLIC_URL });
});
afterAll(() => smtp.stop());

const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address.toLowerCase()));
const askReset = (email: string, c = client) => c.post("/api/auth/password-reset", { email });
const tokenIn = (text: string) => text.match(/#\/reset\?token=([A-Za-z0-9_-]+)/)?.[1];

async function resetMail(user: TestUser): Promise<string> {
  const before = mailsTo(user.email).length;
  expect((await askReset(user.email)).body).toEqual({ ok: true, result: { sent: true } });
  const mail = await until("the reset mail", () => mailsTo(user.email)[before]);
  return mail.parsed.text!;
}

describe("password reset by mail", () => {
  test("the mailed link sets a new password once; old tokens and the old password stop working", async () => {
    const user = await registerUser(client);
    const text = await resetMail(user);
    expect(text).toContain(`${PUBLIC_URL}/#/reset?token=`);
    const mail = mailsTo(user.email)[0]!;
    expect(mail.parsed.from?.value[0]).toMatchObject({ name: "Shop Inbox", address: "inbox@shop.example" });
    const token = tokenIn(text)!;

    // Only a hash is stored.
    const rows = await client.platform.db.query<{ token_hash: string }>(`select token_hash from password_resets where user_id = $1`, [user.id]);
    expect(rows.map((r) => r.token_hash)).toEqual([hashToken(token)]);
    expect(JSON.stringify(rows)).not.toContain(token);

    const confirmed = await client.post("/api/auth/password-reset/confirm", { token, password: "brand-new-pass" });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.result).toMatchObject({ token_type: "Bearer", user: { id: user.id, email: user.email } });
    expect((await client.get("/api/auth/me", confirmed.body.result.token)).status).toBe(200);
    expect((await client.get("/api/auth/me", user.token)).status).toBe(401);
    expect((await client.post("/api/auth/login", { email: user.email, password: "secret123" })).status).toBe(401);
    expect((await client.post("/api/auth/login", { email: user.email, password: "brand-new-pass" })).status).toBe(200);

    const again = await client.post("/api/auth/password-reset/confirm", { token, password: "another-pass" });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ ok: false, error: expect.stringContaining("invalid, used or expired") });
  });

  test("a reset voids the user's other links", async () => {
    const user = await registerUser(client);
    const first = tokenIn(await resetMail(user))!;
    const second = tokenIn(await resetMail(user))!;
    expect((await client.post("/api/auth/password-reset/confirm", { token: second, password: "second-pass" })).status).toBe(200);
    expect((await client.post("/api/auth/password-reset/confirm", { token: first, password: "first-pass" })).status).toBe(400);
  });

  test("a link older than an hour is refused", async () => {
    const user = await registerUser(client);
    const token = tokenIn(await resetMail(user))!;
    // The clock moved on: the row's hour is over.
    await client.platform.db.query(`update password_resets set expires_at = now() - interval '1 second' where token_hash = $1`, [hashToken(token)]);
    const res = await client.post("/api/auth/password-reset/confirm", { token, password: "too-late-pass" });
    expect(res.status).toBe(400);
    expect((await client.post("/api/auth/login", { email: user.email, password: "secret123" })).status).toBe(200);
  });

  test("made-up tokens and short passwords are 400s", async () => {
    expect((await client.post("/api/auth/password-reset/confirm", { token: "made-up", password: "whatever-pass" })).status).toBe(400);
    const user = await registerUser(client);
    const token = tokenIn(await resetMail(user))!;
    const short = await client.post("/api/auth/password-reset/confirm", { token, password: "x" });
    expect(short.status).toBe(400);
    expect(short.body.ok).toBe(false);
    expect((await client.post("/api/auth/password-reset", { email: "not-an-address" })).status).toBe(400);
  });

  test("the answer and its timing do not tell whether an address has an account", async () => {
    const user = await registerUser(client);
    const known = await askReset(user.email);
    const unknown = await askReset(uniqueEmail("nobody"));
    expect(unknown.status).toBe(known.status);
    expect(unknown.body).toEqual(known.body);
    await client.platform.mailer.idle();
    const users = await Promise.all(Array.from({ length: 21 }, () => registerUser(client)));
    // Interleaved, so background work of one kind of request weighs on both kinds alike.
    const samples = { known: [] as number[], unknown: [] as number[] };
    for (const u of users) {
      for (const [kind, email] of [["known", u.email], ["unknown", uniqueEmail("nobody")]] as const) {
        const started = performance.now();
        await askReset(email);
        samples[kind].push(performance.now() - started);
      }
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const knownMs = median(samples.known);
    const unknownMs = median(samples.unknown);
    console.log(`median answer: known ${knownMs.toFixed(1)} ms, unknown ${unknownMs.toFixed(1)} ms`);
    // The same work on the request's path: a lookup. The mail goes out afterwards.
    expect(Math.abs(knownMs - unknownMs)).toBeLessThan(Math.max(2, 0.3 * Math.min(knownMs, unknownMs)));
    await until("every known address mailed", () => users.every((u) => mailsTo(u.email).length === 1));
    expect(smtp.received.filter((m) => m.to.some((to) => to.startsWith("nobody-")))).toEqual([]);
  }, 30_000);

  test("requests are limited per address and per IP, alike for addresses with and without an account", async () => {
    const limited = await testClient({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, rateLimits: true });
    const user = await registerUser(limited);
    const nobody = uniqueEmail("nobody");
    const statuses = async (email: string) => {
      const out: number[] = [];
      for (let i = 0; i < 6; i++) out.push((await askReset(email, limited)).status);
      return out;
    };
    const expected = [200, 200, 200, 200, 200, 429];
    expect(await statuses(user.email)).toEqual(expected);
    expect(await statuses(nobody)).toEqual(expected);
    await limited.platform.mailer.idle();
  });

  test("without SMTP_URL the server says reset by mail is not configured, for every address", async () => {
    const plain = await testClient({ smtpUrl: undefined });
    expect((await plain.get("/api/auth/password-reset")).body).toEqual({ ok: true, result: { configured: false } });
    expect((await client.get("/api/auth/password-reset")).body).toEqual({ ok: true, result: { configured: true } });
    const user = await registerUser(plain);
    const known = await askReset(user.email, plain);
    const unknown = await askReset(uniqueEmail("nobody"), plain);
    expect(known.body).toEqual({ ok: true, result: { sent: false } });
    expect(unknown.body).toEqual(known.body);
  });
});

describe("invites by mail", () => {
  test("with SMTP_URL the invitee gets the link by mail", async () => {
    const owner = await registerUser(client);
    const bot = await createTestBot(client, owner);
    const invitee = uniqueEmail("operator");
    const res = await client.post(`/api/bots/${bot.id}/invites`, { email: invitee }, owner.token);
    expect(res.status).toBe(200);
    expect(res.body.result.mailed).toBe(true);
    const mail = await until("the invite mail", () => mailsTo(invitee)[0]);
    expect(mail.parsed.text).toContain(res.body.result.invite_url);
    expect(mail.parsed.text).toContain(owner.email);
    // The mailed link works: the invitee accepts it.
    const operator = await registerUser(client, invitee);
    const code = res.body.result.invite_url.split("#invite=")[1];
    const accepted = await client.post("/api/invites/accept", { code }, operator.token);
    expect(accepted.status).toBe(200);
  });

  test("without SMTP_URL nothing is mailed and the answer says so", async () => {
    const plain = await testClient({ smtpUrl: undefined });
    const owner = await registerUser(plain);
    const bot = await createTestBot(plain, owner);
    const res = await plain.post(`/api/bots/${bot.id}/invites`, { email: uniqueEmail("operator") }, owner.token);
    expect(res.body.result.mailed).toBe(false);
  });
});
