// Tenant isolation over EVERY user-token operation of /swagger/json, so a route added later is
// covered without touching this file: a non-member gets 404 wherever a bot or conversation of
// another team is named (path or query) and never sees its data anywhere; an operator gets 403
// on every owner-only operation of the bot and never its token or integration key. The public
// and bot-token operations are attacked in tenant-isolation-public.test.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, MODE, registerUser, testClient, type Client, type TestBot, type TestUser } from "../support/harness.ts";
import { sampleOf } from "../support/openapi-sample.ts";
import { openStream } from "../web/sse.ts";
import { operationsOf, resolverOf, type Operation } from "./tenant-support.ts";

/** Operations an operator may use on a bot they belong to; every other one naming the bot is the owner's. */
const OPERATOR_MAY = new Set([
  "get /api/bots/{id}",
  "get /api/bots/{id}/assignees",
  "get /api/bots/{id}/canned-replies",
  "post /api/bots/{id}/canned-replies",
  "delete /api/bots/{id}/canned-replies/{reply_id}",
  // Labels and contacts are the inbox's; the retention period tells operators when conversations go.
  "get /api/bots/{id}/labels",
  "get /api/bots/{id}/contacts",
  "get /api/bots/{id}/retention",
]);

/** Bodies a generated sample cannot make valid (a mention must name a member of the bot). */
const BODIES: Record<string, unknown> = {
  "post /api/inbox/{id}/notes": { text: "a private note" },
};

let client: Client;
let doc: any;
let operations: Operation[];
let owner: TestUser;
let operator: TestUser;
let stranger: TestUser;
let bot: TestBot;
const ids: Record<string, string> = {};
let secrets: string[];
let resolve: (node: any) => any;

beforeAll(async () => {
  client = await testClient();
  doc = (await client.get("/swagger/json")).body;
  resolve = resolverOf(doc);
  operations = operationsOf(doc, "userBearerAuth");

  owner = await registerUser(client);
  operator = await registerUser(client);
  stranger = await registerUser(client);
  bot = await createTestBot(client, owner, "Isolated bot");
  const marker = `secret-text-${crypto.randomUUID()}`;
  const chat = `isolated-${crypto.randomUUID()}`;
  const accepted = await client.post("/api/messages", {
    widget_key: bot.widget_key, chat_id: chat, text: marker, metadata: { page_url: "https://private.example.com/checkout" },
  });
  expect(accepted.status).toBe(200);
  const reply = await client.post(`/api/bots/${bot.id}/canned-replies`, { shortcut: "hidden", text: `canned-${marker}` }, owner.token);
  const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
  expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token)).status).toBe(200);
  const pending = await client.post(`/api/bots/${bot.id}/invites`, { email: "later@example.com" }, owner.token);
  await client.patch(`/api/inbox/${accepted.body.result.conversation_id}`, { assignee_id: operator.id }, owner.token);
  const hook = await client.post(`/api/bots/${bot.id}/event-webhooks`, { url: "http://127.0.0.1:9/hook", events: ["message_created"] }, owner.token);
  expect(hook.status).toBe(201);
  const label = await client.post(`/api/bots/${bot.id}/labels`, { name: "vip", color: "#2563eb" }, owner.token);
  expect(label.status).toBeLessThan(300);
  const detail = await client.get(`/api/inbox/${accepted.body.result.conversation_id}`, owner.token);

  Object.assign(ids, {
    bot: bot.id,
    conversation: accepted.body.result.conversation_id,
    user_id: operator.id,
    invite_id: pending.body.result.id,
    reply_id: reply.body.result.id,
    hook_id: hook.body.result.id,
    delivery_id: crypto.randomUUID(),
    label_id: label.body.result.id,
    contact: detail.body.result.contact.id,
  });
  secrets = [
    bot.id, bot.token, bot.integration_key, chat, marker, accepted.body.result.conversation_id, operator.email,
    invite.body.result.code, pending.body.result.code, "private.example.com", hook.body.result.secret,
  ];
});

afterAll(async () => {
  await client.platform.close();
});

interface Variant {
  method: string;
  url: string;
  body: unknown;
  /** Whether the request names the target team's bot or conversation. */
  named: boolean;
}

/**
 * Concrete requests for an operation: the path names the target team's objects, and each
 * query parameter that can name one (bot_id, before) gets a request of its own.
 */
function requestsFor({ method, path, op }: Operation): Variant[] {
  let named = false;
  const concretePath = path.replace(/\{(\w+)\}/g, (_, name: string) => {
    named = true;
    const value = name === "id" ? (path.startsWith("/api/inbox") ? ids.conversation : path.startsWith("/api/contacts") ? ids.contact : ids.bot) : ids[name];
    if (!value) throw new Error(`${method} ${path}: no target for path parameter {${name}}; add it to the fixture`);
    return value;
  });
  const base = new URLSearchParams();
  const targets: [string, string][] = [];
  for (const p of (op.parameters ?? []).map(resolve).filter((p: any) => p.in === "query")) {
    if (p.name === "bot_id") targets.push(["bot_id", ids.bot!]);
    else if (p.name === "before" && resolve(p.schema)?.format === "uuid") targets.push(["before", ids.conversation!]);
    else if (p.name === "since") base.set("since", String(Date.now() - 60_000));
    // Other required parameters get a valid value, so the request reaches the membership check.
    else if (p.required) base.set(p.name, String(sampleOf(resolve(p.schema), resolve)));
  }
  const schema = op.requestBody?.content?.["application/json"]?.schema;
  const body = `${method} ${path}` in BODIES ? BODIES[`${method} ${path}`] : schema ? sampleOf(schema, resolve) : undefined;
  const url = (query: URLSearchParams) => `${concretePath}${query.size ? `?${query}` : ""}`;
  const variants: Variant[] = [{ method: method.toUpperCase(), url: url(base), body, named }];
  for (const [name, value] of targets) {
    const query = new URLSearchParams(base);
    query.set(name, value);
    variants.push({ method: method.toUpperCase(), url: url(query), body, named: true });
  }
  return variants;
}

const isStream = (op: any) => Boolean(op.responses?.["200"]?.content?.["text/event-stream"]);

async function call(o: Operation, token: string, url: string, method: string, body: unknown) {
  if (isStream(o.op)) {
    const s = await openStream(client.app, url, { authorization: `Bearer ${token}` });
    if (s.status === 200) await s.next((f) => f.event === "ready");
    await s.close();
    return { status: s.status, text: JSON.stringify([s.frames, s.json ?? null]) };
  }
  const content = o.op.requestBody?.content;
  if (content?.["multipart/form-data"] && !content["application/json"]) {
    // An upload operation is called as a client calls it: a multipart body with a small file.
    const form = new FormData();
    form.append("file", new Blob(["a note"]), "note.txt");
    const res = await client.app.handle(new Request(`http://test.local${url}`, { method, body: form, headers: { authorization: `Bearer ${token}` } }));
    return { status: res.status, text: await res.text() };
  }
  const res = await client.request(method, url, { body, token });
  return { status: res.status, text: JSON.stringify(res.body) };
}

const leaked = (text: string) => secrets.filter((s) => text.includes(s));

describe(`tenant isolation over every user-token operation (${MODE})`, () => {
  test("the document has the operations this suite relies on", () => {
    const names = operations.map((o) => `${o.method} ${o.path}`);
    for (const expected of ["get /api/inbox/{id}", "get /api/bots/{id}/members", "post /api/inbox/{id}/read", "get /api/inbox/stream"]) {
      expect(names).toContain(expected);
    }
  });

  test("a non-member gets 404 wherever the team's bot or conversation is named, and never its data", async () => {
    const failures: string[] = [];
    // Log-out last: it revokes the token the others are made with.
    const loggingOutLast = [...operations].sort((a, b) => Number(a.path === "/api/auth/logout") - Number(b.path === "/api/auth/logout"));
    for (const o of loggingOutLast) {
      for (const { method, url, body, named } of requestsFor(o)) {
        const { status, text } = await call(o, stranger.token, url, method, body);
        const label = `${method} ${url} → ${status}`;
        if (named && status !== 404) failures.push(`${label}: expected 404`);
        if (!named && status >= 500) failures.push(`${label}: server error`);
        const seen = leaked(text);
        if (seen.length) failures.push(`${label}: leaked ${seen.join(", ")}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("an operator gets 403 on every owner-only operation of the bot, without its token or keys", async () => {
    const failures: string[] = [];
    const ofBot = operations.filter((o) => o.path.startsWith("/api/bots/{id}"));
    // Deletions last, so the others still find what they name.
    ofBot.sort((a, b) => Number(a.method === "delete") - Number(b.method === "delete"));
    for (const o of ofBot) {
      const { method, url, body } = requestsFor(o)[0]!;
      const { status, text } = await call(o, operator.token, url, method, body);
      const label = `${method} ${o.path} → ${status}`;
      if (OPERATOR_MAY.has(`${o.method} ${o.path}`)) {
        if (status >= 400) failures.push(`${label}: an operator may do this`);
      } else if (status !== 403) failures.push(`${label}: expected 403`);
      for (const secret of [bot.token, bot.integration_key]) if (text.includes(secret)) failures.push(`${label}: leaked a secret`);
    }
    expect(failures).toEqual([]);
    // The owner-only operations really were refused: the bot, its token and its members are intact.
    const card = await client.get(`/api/bots/${bot.id}`, owner.token);
    expect(card.body.result.token).toBe(bot.token);
    const members = await client.get(`/api/bots/${bot.id}/members`, owner.token);
    expect(members.body.result.map((m: any) => m.user_id).sort()).toEqual([owner.id, operator.id].sort());
  });

  test("an operator works the inbox of the bot: every inbox operation answers them", async () => {
    const failures: string[] = [];
    for (const o of operations.filter((o) => o.path.startsWith("/api/inbox"))) {
      for (const { method, url, body } of requestsFor(o)) {
        const { status } = await call(o, operator.token, url, method, body);
        if (status >= 400) failures.push(`${method} ${url} → ${status}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
