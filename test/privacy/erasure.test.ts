// Erasure (README "Erasure") and retention (README "Retention"). Markers — a name, an e-mail,
// text, a file's bytes — are planted through the public API; after the erasure every table
// of the database (every row as text) and every object of the file store are scanned for
// them, and the inbox search is asked: nothing is left. A bystander's markers stay.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { natsNames } from "../../src/core/subjects.ts";
import { createTestBot, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";

const tag = () => `mk${Math.random().toString(36).slice(2, 10)}`;

async function storeHolds(client: Client, marker: string): Promise<string[]> {
  const files = client.platform.files;
  const hits: string[] = [];
  const needle = new TextEncoder().encode(marker);
  for (const { key } of await files.list()) {
    const stream = await files.get(key);
    if (!stream) continue;
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    if (Buffer.from(bytes).includes(Buffer.from(needle))) hits.push(key);
  }
  return hits;
}

/** What the bot could still be handed (both modes), and in production every stored message of its subject. */
async function logHolds(client: Client, botId: string, marker: string): Promise<boolean> {
  if (JSON.stringify(await client.platform.updates.read(botId, 0, 1000)).includes(marker)) return true;
  const nc = client.platform.nats;
  if (!nc) return false;
  const jsm = await nc.jetstreamManager();
  const stream = natsNames(client.platform.config.natsPrefix).updatesStream;
  const subject = (await jsm.streams.info(stream)).config.subjects[0]!.replace("*", botId);
  for (let seq = 1; ;) {
    let stored;
    try {
      stored = await jsm.streams.getMessage(stream, { next_by_subj: subject, seq } as unknown as { seq: number });
    } catch {
      return false;
    }
    if (new TextDecoder().decode(stored.data).includes(marker)) return true;
    seq = stored.seq + 1;
  }
}

async function tablesHolding(client: Client, marker: string): Promise<string[]> {
  const db = client.platform.db;
  const tables = await db.query<{ table_name: string }>(`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
  const hits: string[] = [];
  for (const { table_name } of tables) {
    const [row] = await db.query<{ n: number }>(`select count(*)::int as n from "${table_name}" x where x::text ilike $1`, [`%${marker}%`]);
    if (row!.n > 0) hits.push(`${table_name} (${row!.n})`);
  }
  return hits;
}

async function uploadVisitorFile(client: Client, bot: TestBot, chatId: string, content: string): Promise<string> {
  const form = new FormData();
  form.append("bot_id", bot.id);
  form.append("chat_id", chatId);
  form.append("file", new Blob([content], { type: "text/plain" }), "note.txt");
  const res = await client.app.handle(new Request("http://test.local/api/files", { method: "POST", body: form }));
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`upload: ${res.status} ${JSON.stringify(body)}`);
  return body.result.file_id;
}

interface Planted {
  markers: string[];
  chatId: string;
  conversationId: string;
  contactId: string;
  fileId: string;
}

/** A web visitor with a name, a text, a file, and a bot reply quoting them; then a site-form contact with an e-mail. */
async function plant(client: Client, owner: TestUser, bot: TestBot): Promise<Planted[]> {
  const name = tag(), text = tag(), fileMarker = tag(), reply = tag();
  const chatId = `visitor-${tag()}`;
  const fileId = await uploadVisitorFile(client, bot, chatId, `the visitor's file ${fileMarker}`);
  const sent = await client.post("/api/messages", { bot_id: bot.id, chat_id: chatId, channel: "web", text: `hello ${text}`, user: { first_name: name }, attachments: [fileId] });
  expect(sent.status).toBe(200);
  const botReply = await client.post(`/api/bots/${bot.id}/send-message`, { chat_id: chatId, text: `you said ${text} ${reply}` }, bot.token);
  expect(botReply.status).toBe(200);
  const detail = await client.get(`/api/inbox/${sent.body.result.conversation_id}`, owner.token);
  const web: Planted = { markers: [name, text, fileMarker, reply], chatId, conversationId: sent.body.result.conversation_id, contactId: detail.body.result.contact.id, fileId };

  const email = `${tag()}@example.com`, formName = tag(), formText = tag();
  const form = await client.post("/api/integrations/sitecms/forms-plugin", {
    integration_key: bot.integration_key, contact_email: email, contact_name: formName, fields: { message: `call me ${formText}` },
  });
  expect(form.status).toBe(200);
  const formDetail = await client.get(`/api/inbox/${form.body.result.conversation_id}`, owner.token);
  const site: Planted = { markers: [email, formName, formText], chatId: form.body.result.chat_id, conversationId: form.body.result.conversation_id, contactId: formDetail.body.result.contact.id, fileId: "" };
  return [web, site];
}

describe("erasure of a contact", () => {
  let client: Client;
  let owner: TestUser;
  let bot: TestBot;
  beforeAll(async () => {
    client = await testClient();
    owner = await registerUser(client);
    bot = await createTestBot(client, owner);
  });
  afterAll(() => client.platform.close());

  test("after erasure no row, file or search hit holds the visitor's name, e-mail, text or file; a bystander's stay", async () => {
    const erased = await plant(client, owner, bot);
    const [bystander] = await plant(client, owner, bot);
    // Planted: each marker is somewhere (the file's only in the store).
    for (const p of [...erased, bystander!]) for (const m of p.markers) expect((await tablesHolding(client, m)).length + (await storeHolds(client, m)).length).toBeGreaterThan(0);
    expect(await storeHolds(client, erased[0]!.markers[2]!)).toHaveLength(1);
    // The bot has not polled: the visitor's text waits in the update log.
    expect(await logHolds(client, bot.id, erased[0]!.markers[1]!)).toBe(true);

    for (const p of erased) {
      const res = await client.post(`/api/contacts/${p.contactId}/erase`, undefined, owner.token);
      expect(res.status).toBe(200);
      expect(res.body.result.conversations).toBe(1);
    }
    expect((await client.post(`/api/contacts/${erased[0]!.contactId}/erase`, undefined, owner.token)).status).toBe(404);

    const left: string[] = [];
    for (const m of erased.flatMap((p) => p.markers)) {
      for (const t of await tablesHolding(client, m)) left.push(`${m} in table ${t}`);
      for (const key of await storeHolds(client, m)) left.push(`${m} in stored file ${key}`);
      if (await logHolds(client, bot.id, m)) left.push(`${m} in the update log`);
      const search = await client.get(`/api/inbox?bot_id=${bot.id}&q=${m}`, owner.token);
      if (search.body.result.length) left.push(`${m} found by inbox search`);
    }
    expect(left).toEqual([]);
    expect((await client.platform.files.list()).map((o) => o.key)).not.toContain(erased[0]!.fileId);
    // The widget's history of the erased chat is empty; the bystander's is whole.
    expect((await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${erased[0]!.chatId}`)).body.result).toEqual([]);
    expect((await client.get(`/api/messages?bot_id=${bot.id}&chat_id=${bystander!.chatId}`)).body.result).toHaveLength(2);
    for (const m of bystander!.markers) expect((await tablesHolding(client, m)).length + (await storeHolds(client, m)).length).toBeGreaterThan(0);
    expect(await logHolds(client, bot.id, bystander!.markers[1]!)).toBe(true);
    expect(await storeHolds(client, bystander!.markers[2]!)).toHaveLength(1);

    // Recorded, without personal data.
    const records = await client.platform.db.query<Record<string, unknown>>(`select * from erasures where bot_id = $1`, [bot.id]);
    expect(records).toHaveLength(2);
    expect(records.map((r) => [r.reason, r.messages])).toEqual([["request", 2], ["request", 1]]);
  });

  test("only the owner erases: an operator gets 403, a stranger 404, a malformed id 400", async () => {
    const [p] = await plant(client, owner, bot);
    const stranger = await registerUser(client);
    expect((await client.post(`/api/contacts/${p!.contactId}/erase`, undefined, stranger.token)).status).toBe(404);
    expect((await client.post(`/api/contacts/not-a-uuid/erase`, undefined, owner.token)).status).toBe(400);
    expect((await client.post(`/api/contacts/${p!.contactId}/erase`)).status).toBe(401);
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: stranger.email }, owner.token);
    expect((await client.post(`/api/invites/accept`, { code: invite.body.result.code }, stranger.token)).status).toBe(200);
    expect((await client.post(`/api/contacts/${p!.contactId}/erase`, undefined, stranger.token)).status).toBe(403);
  });
});

describe("retention", () => {
  test("closed conversations older than the bot's retention are deleted with their files by the lease-held pass; open and recent ones stay", async () => {
    let clock = Date.now();
    const client = await testClient({}, { now: () => clock });
    try {
      const owner = await registerUser(client);
      const bot = await createTestBot(client, owner);
      const other = await createTestBot(client, owner, "No retention");
      expect((await client.request("PUT", `/api/bots/${bot.id}/retention`, { body: { retention_days: 0 }, token: owner.token })).status).toBe(400);
      const set = await client.request("PUT", `/api/bots/${bot.id}/retention`, { body: { retention_days: 30 }, token: owner.token });
      expect(set.body.result).toEqual({ retention_days: 30 });
      expect((await client.get(`/api/bots/${bot.id}/retention`, owner.token)).body.result).toEqual({ retention_days: 30 });

      const [closed] = await plant(client, owner, bot);
      const [open] = await plant(client, owner, bot);
      const [elsewhere] = await plant(client, owner, other);
      for (const c of [closed!, elsewhere!]) expect((await client.patch(`/api/inbox/${c.conversationId}`, { status: "closed" }, owner.token)).status).toBe(200);
      const pass = client.services.privacy.startRetention(3600_000);
      try {
        clock = Date.now() + 29 * 86_400_000;
        expect((await pass.runOnce())?.conversations).toBe(0);
        clock = Date.now() + 31 * 86_400_000;
        const counts = await pass.runOnce();
        expect(counts?.conversations).toBeGreaterThanOrEqual(1);
      } finally {
        await pass.stop();
      }
      const status = async (id: string) => (await client.get(`/api/inbox/${id}`, owner.token)).status;
      expect(await status(closed!.conversationId)).toBe(404);
      expect(await status(open!.conversationId)).toBe(200);
      expect(await status(elsewhere!.conversationId)).toBe(200);
      expect((await client.platform.files.list()).map((o) => o.key)).not.toContain(closed!.fileId);
      expect(await storeHolds(client, closed!.markers[2]!)).toEqual([]);
      for (const m of closed!.markers) expect(await tablesHolding(client, m)).toEqual([]);
      const [record] = await client.platform.db.query<{ reason: string; erased_by: string | null }>(`select reason, erased_by from erasures where bot_id = $1`, [bot.id]);
      expect(record).toEqual({ reason: "retention", erased_by: null });
    } finally {
      await client.platform.close();
    }
  });
});
