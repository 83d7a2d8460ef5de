// Teams: invites, roles, member removal, canned replies, renaming and deleting a bot, and
// changing one's password.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestBot, registerUser, testClient, uniqueEmail, type Client, type TestBot, type TestUser } from "../support/harness.ts";

let client: Client;

beforeAll(async () => {
  client = await testClient();
});

afterAll(async () => {
  await client.platform.close();
});

/** An owner with a bot and an operator who accepted an invite to it. */
async function team() {
  const owner = await registerUser(client);
  const operator = await registerUser(client);
  const bot = await createTestBot(client, owner, "Team bot");
  const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email.toUpperCase() }, owner.token);
  expect(invite.status).toBe(200);
  const accepted = await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token);
  expect(accepted.status).toBe(200);
  return { owner, operator, bot };
}

const visitor = (bot: TestBot, chat: string, text: string, extra: Record<string, unknown> = {}) =>
  client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chat, text, ...extra });

describe("invites", () => {
  test("the owner invites by e-mail; the code is shown once and joins the invitee as an operator", async () => {
    const owner = await registerUser(client);
    const invitee = await registerUser(client);
    const bot = await createTestBot(client, owner, "Invites bot");
    const created = await client.post(`/api/bots/${bot.id}/invites`, { email: invitee.email, role: "operator" }, owner.token);
    expect(created.status).toBe(200);
    const invite = created.body.result;
    expect(invite).toMatchObject({ email: invitee.email, role: "operator" });
    expect(invite.code.length).toBeGreaterThanOrEqual(20);
    expect(invite.invite_url).toBe(`${client.platform.config.publicUrl}/#invite=${invite.code}`);
    expect(Date.parse(invite.expires_at)).toBeGreaterThan(Date.now());

    const pending = await client.get(`/api/bots/${bot.id}/invites`, owner.token);
    expect(pending.body.result.map((i: any) => i.id)).toEqual([invite.id]);
    expect(JSON.stringify(pending.body)).not.toContain(invite.code);

    // Someone else holding the code cannot use it.
    const other = await registerUser(client);
    const wrong = await client.post("/api/invites/accept", { code: invite.code }, other.token);
    expect(wrong.status).toBe(403);
    expect((await client.get(`/api/bots/${bot.id}`, other.token)).status).toBe(404);

    const accepted = await client.post("/api/invites/accept", { code: invite.code }, invitee.token);
    expect(accepted.status).toBe(200);
    expect(accepted.body.result).toEqual({ bot_id: bot.id, bot_name: "Invites bot", role: "operator" });
    // Used once only, and gone from the pending list.
    expect((await client.post("/api/invites/accept", { code: invite.code }, invitee.token)).status).toBe(404);
    expect((await client.get(`/api/bots/${bot.id}/invites`, owner.token)).body.result).toEqual([]);

    const members = (await client.get(`/api/bots/${bot.id}/members`, owner.token)).body.result;
    expect(members.map((m: any) => [m.email, m.role])).toEqual([[owner.email, "owner"], [invitee.email, "operator"]]);
    // Inviting a member again is a conflict.
    expect((await client.post(`/api/bots/${bot.id}/invites`, { email: invitee.email }, owner.token)).status).toBe(409);
  });

  test("a revoked, an expired and an unknown code are all 404", async () => {
    const owner = await registerUser(client);
    const invitee = await registerUser(client);
    const bot = await createTestBot(client, owner);
    const revoked = (await client.post(`/api/bots/${bot.id}/invites`, { email: invitee.email }, owner.token)).body.result;
    expect((await client.request("DELETE", `/api/bots/${bot.id}/invites/${revoked.id}`, { token: owner.token })).status).toBe(200);
    expect((await client.post("/api/invites/accept", { code: revoked.code }, invitee.token)).status).toBe(404);

    const expired = (await client.post(`/api/bots/${bot.id}/invites`, { email: invitee.email }, owner.token)).body.result;
    await client.platform.db.query(`update bot_invites set expires_at = now() - interval '1 second' where id = $1`, [expired.id]);
    expect((await client.post("/api/invites/accept", { code: expired.code }, invitee.token)).status).toBe(404);
    expect((await client.post("/api/invites/accept", { code: "not-a-code" }, invitee.token)).status).toBe(404);
    expect((await client.get(`/api/bots/${bot.id}`, invitee.token)).status).toBe(404);
  });
});

describe("roles", () => {
  test("an operator sees the bot without its token, integration key, channels or members", async () => {
    const { owner, operator, bot } = await team();
    const mine = (await client.get("/api/bots", operator.token)).body.result;
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ id: bot.id, role: "operator", widget_key: bot.widget_key });
    expect(mine[0]).not.toHaveProperty("token");
    expect(mine[0]).not.toHaveProperty("integration_key");
    const card = await client.get(`/api/bots/${bot.id}`, operator.token);
    expect(card.status).toBe(200);
    expect(JSON.stringify(card.body)).not.toContain(bot.token);
    expect((await client.get("/api/bots", owner.token)).body.result[0]).toMatchObject({ role: "owner", token: bot.token });

    for (const path of ["channels", "members", "invites", "deliveries", "callback-deliveries"]) {
      const res = await client.get(`/api/bots/${bot.id}/${path}`, operator.token);
      expect([path, res.status, res.body.error]).toEqual([path, 403, "only the bot's owner can do this"]);
    }
    expect((await client.post(`/api/bots/${bot.id}/token`, undefined, operator.token)).status).toBe(403);
    // What an assignee picker needs (with each member's presence), and nothing of the team's administration.
    const assignees = (await client.get(`/api/bots/${bot.id}/assignees`, operator.token)).body.result;
    expect(assignees).toEqual([
      { user_id: owner.id, email: owner.email, role: "owner", presence: "offline" },
      { user_id: operator.id, email: operator.email, role: "operator", presence: "offline" },
    ]);
  });

  test("an operator works the inbox: list, reply, status, note", async () => {
    const { operator, bot } = await team();
    const accepted = (await visitor(bot, `op-${crypto.randomUUID()}`, "hello team")).body.result;
    const list = (await client.get("/api/inbox", operator.token)).body.result;
    expect(list.map((c: any) => c.id)).toEqual([accepted.conversation_id]);
    expect((await client.post(`/api/inbox/${accepted.conversation_id}`, { text: "on it" }, operator.token)).status).toBe(200);
    const patched = await client.patch(`/api/inbox/${accepted.conversation_id}`, { status: "waiting", operator_note: "vip" }, operator.token);
    expect(patched.body.result).toMatchObject({ status: "waiting", operator_note: "vip" });
  });

  test("a removed operator loses the bot at once, and their assignments with it; the owner stays", async () => {
    const { owner, operator, bot } = await team();
    const accepted = (await visitor(bot, `rm-${crypto.randomUUID()}`, "assigned")).body.result;
    await client.patch(`/api/inbox/${accepted.conversation_id}`, { assignee_id: operator.id }, owner.token);
    expect((await client.request("DELETE", `/api/bots/${bot.id}/members/${owner.id}`, { token: owner.token })).status).toBe(400);
    expect((await client.request("DELETE", `/api/bots/${bot.id}/members/${operator.id}`, { token: owner.token })).status).toBe(200);

    expect((await client.get(`/api/bots/${bot.id}`, operator.token)).status).toBe(404);
    expect((await client.get(`/api/inbox/${accepted.conversation_id}`, operator.token)).status).toBe(404);
    expect((await client.get("/api/inbox", operator.token)).body.result).toEqual([]);
    expect((await client.get("/api/bots", operator.token)).body.result).toEqual([]);
    const detail = (await client.get(`/api/inbox/${accepted.conversation_id}`, owner.token)).body.result;
    expect(detail.assignee).toBeNull();
  });
});

describe("canned replies", () => {
  test("any member adds, lists and deletes them; a shortcut is unique per bot whatever its case", async () => {
    const { owner, operator, bot } = await team();
    const added = await client.post(`/api/bots/${bot.id}/canned-replies`, { shortcut: "hours", text: "9 to 6" }, operator.token);
    expect(added.status).toBe(200);
    await client.post(`/api/bots/${bot.id}/canned-replies`, { shortcut: "address", text: "Main st. 1" }, owner.token);
    expect((await client.post(`/api/bots/${bot.id}/canned-replies`, { shortcut: "HOURS", text: "again" }, owner.token)).status).toBe(409);
    expect((await client.post(`/api/bots/${bot.id}/canned-replies`, { shortcut: "has space", text: "x" }, owner.token)).status).toBe(400);
    const listed = (await client.get(`/api/bots/${bot.id}/canned-replies`, operator.token)).body.result;
    expect(listed.map((r: any) => r.shortcut)).toEqual(["address", "hours"]);
    const gone = await client.request("DELETE", `/api/bots/${bot.id}/canned-replies/${added.body.result.id}`, { token: owner.token });
    expect(gone.status).toBe(200);
    expect((await client.get(`/api/bots/${bot.id}/canned-replies`, owner.token)).body.result.map((r: any) => r.shortcut)).toEqual(["address"]);
  });
});

describe("rename and delete", () => {
  test("the owner renames the bot; members see the new name, the username stays", async () => {
    const { owner, operator, bot } = await team();
    const renamed = await client.patch(`/api/bots/${bot.id}`, { name: "Shop support" }, owner.token);
    expect(renamed.status).toBe(200);
    expect(renamed.body.result).toMatchObject({ name: "Shop support", username: bot.username, token: bot.token });
    expect((await client.get(`/api/bots/${bot.id}`, operator.token)).body.result.name).toBe("Shop support");
    expect((await client.patch(`/api/bots/${bot.id}`, { name: "" }, owner.token)).status).toBe(400);
    expect((await client.patch(`/api/bots/${bot.id}`, { name: "   " }, owner.token)).status).toBe(400);
  });

  test("deleting removes the bot and its data: token, conversations, members and pending updates", async () => {
    const { owner, operator, bot } = await team();
    const accepted = (await visitor(bot, `del-${crypto.randomUUID()}`, "about to vanish")).body.result;
    await client.platform.outbox.publishUpTo(bot.id);
    expect(await client.platform.updates.pendingCount(bot.id)).toBeGreaterThan(0);

    expect((await client.request("DELETE", `/api/bots/${bot.id}`, { token: owner.token })).status).toBe(200);
    expect((await client.get(`/api/bots/${bot.id}`, owner.token)).status).toBe(404);
    expect((await client.get(`/api/inbox/${accepted.conversation_id}`, owner.token)).status).toBe(404);
    expect((await client.get("/api/bots", operator.token)).body.result).toEqual([]);
    expect((await client.get(`/api/bots/${bot.id}/get-updates`, bot.token)).status).toBe(401);
    expect((await client.post(`/bot${bot.token}/getMe`, {})).status).toBe(401);
    const rows = await client.platform.db.query<{ n: number | string }>(
      `select (select count(*) from conversations where bot_id = $1) + (select count(*) from messages where bot_id = $1)
        + (select count(*) from bot_members where bot_id = $1) + (select count(*) from contacts where bot_id = $1) as n`,
      [bot.id],
    );
    expect(Number(rows[0]!.n)).toBe(0);
    expect(await client.platform.updates.pendingCount(bot.id)).toBe(0);
  });
});

describe("change password", () => {
  test("needs the current password; afterwards only the new token and the new password work", async () => {
    const email = uniqueEmail();
    const user = await registerUser(client, email);
    const wrong = await client.post("/api/auth/password", { current_password: "nope-nope", new_password: "brand-new-1" }, user.token);
    expect(wrong.status).toBe(400);
    expect((await client.get("/api/auth/me", user.token)).status).toBe(200);

    const changed = await client.post("/api/auth/password", { current_password: "secret123", new_password: "brand-new-1" }, user.token);
    expect(changed.status).toBe(200);
    const fresh = changed.body.result.token;
    expect((await client.get("/api/auth/me", user.token)).status).toBe(401);
    expect((await client.get("/api/auth/me", fresh)).status).toBe(200);
    expect((await client.post("/api/auth/login", { email, password: "secret123" })).status).toBe(401);
    const login = await client.post("/api/auth/login", { email, password: "brand-new-1" });
    expect(login.status).toBe(200);
    expect((await client.get("/api/auth/me", login.body.result.token)).status).toBe(200);
  });
});
