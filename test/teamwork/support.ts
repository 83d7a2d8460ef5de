// Fixtures for presence, routing, hours and snooze tests: a bot with a team, requests by verb.
import { expect } from "bun:test";
import { createTestBot, registerUser, type Client, type TestBot, type TestUser } from "../support/harness.ts";

export const put = (client: Client, path: string, body: unknown, token: string) => client.request("PUT", path, { body, token });

/** An owner, `operators` operators who accepted invites, and the bot. */
export async function teamOf(client: Client, operators = 1, name = "Team bot"): Promise<{ owner: TestUser; operators: TestUser[]; bot: TestBot }> {
  const owner = await registerUser(client);
  const bot = await createTestBot(client, owner, name);
  const joined: TestUser[] = [];
  for (let i = 0; i < operators; i++) {
    const operator = await registerUser(client);
    const invite = await client.post(`/api/bots/${bot.id}/invites`, { email: operator.email }, owner.token);
    expect(invite.status).toBe(200);
    expect((await client.post("/api/invites/accept", { code: invite.body.result.code }, operator.token)).status).toBe(200);
    joined.push(operator);
  }
  return { owner, operators: joined, bot };
}

export const visitorSays = (client: Client, bot: TestBot, chatId: string, text: string) =>
  client.post("/api/messages", { widget_key: bot.widget_key, chat_id: chatId, text });

/** Closed every day: the team is always away. */
export const NEVER_OPEN = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
/** Open around the clock. */
export const ALWAYS_OPEN = Object.fromEntries(Object.keys(NEVER_OPEN).map((d) => [d, [["00:00", "24:00"]]]));

