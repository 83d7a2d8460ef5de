// Bots that have served a while, in SQL: for what only statistics show (the intake's kept plans).
import type { Queryable } from "../../src/db/driver.ts";

/**
 * `bots` new bots of one new user, each with `chats` chats: a contact `k<n>`, a conversation
 * `chat<n>` and a message with client id `c<n>` each; then ANALYZE of the look-ups' tables.
 * Returns the bots' ids.
 */
export async function seedChats(db: Queryable, bots: number, chats: number): Promise<string[]> {
  const tag = crypto.randomUUID().replace(/-/g, "").slice(0, 12);
  const [user] = await db.query<{ id: string }>(`insert into users (email, password_hash) values ($1, 'x') returning id`, [`seed-${tag}@example.com`]);
  const seeded = await db.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key)
     select $1, 'seeded', u, u, 'x', u, u from (select $2 || '_' || n as u from generate_series(1, $3::int) n) s returning id`,
    [user!.id, `seed_${tag}`, bots],
  );
  await db.query(`insert into contacts (id, bot_id, owner_id, number, contact_key)
    select gen_random_uuid(), b.id, $1, n, 'k' || n from bots b, generate_series(1, $2::int) n where b.owner_id = $1`, [user!.id, chats]);
  await db.query(`insert into conversations (id, bot_id, owner_id, number, chat_id, channel, contact_id)
    select gen_random_uuid(), c.bot_id, $1, c.number, 'chat' || c.number, 'api', c.id from contacts c where c.owner_id = $1`, [user!.id]);
  await db.query(`insert into messages (id, bot_id, owner_id, conversation_id, message_id, direction, sender, text, client_message_id)
    select gen_random_uuid(), v.bot_id, $1, v.id, v.number, 'in', 'user', 'hello', 'c' || v.number from conversations v where v.owner_id = $1`, [user!.id]);
  await db.exec("analyze contacts; analyze conversations; analyze messages");
  return seeded.map((b) => b.id);
}
