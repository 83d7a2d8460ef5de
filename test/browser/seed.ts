// Big inboxes for the browser tests, written straight into the database in a handful of
// statements: 1,300 messages through the HTTP API would take minutes on a shared machine.
import type { Db } from "../../src/db/driver.ts";
import { STATUSES } from "../../src/core/records.ts";

export interface SeededInbox {
  /** The conversation with `longMessages` messages, the newest of the list. */
  longId: string;
  conversations: number;
  longMessages: number;
}

/**
 * `conversations` conversations of the bot (statuses in turn), each with one contact; the
 * first has `longMessages` messages, alternating visitor and operator, the others one each.
 * The bot's counters move past the seeded numbers so later real messages follow on.
 */
export async function seedInbox(db: Db, botId: string, ownerId: string, conversations: number, longMessages: number): Promise<SeededInbox> {
  await db.query(
    `insert into contacts (bot_id, owner_id, number, contact_key, first_name, created_at)
     select $1, $2, n, 'chat:seed-' || n, 'Seeded ' || n, now() - interval '2 days' from generate_series(1, $3::int) n`,
    [botId, ownerId, conversations],
  );
  await db.query(
    `insert into conversations (bot_id, owner_id, number, chat_id, channel, status, contact_id, message_count, last_message_at, created_at, updated_at)
     select $1, $2, k.number, 'seed-' || k.number, 'web', ($4::text[])[1 + k.number % 4], k.id,
            case when k.number = 1 then $3::int else 1 end, now() - k.number * interval '1 minute', now() - interval '2 days', now() - interval '1 day'
     from contacts k where k.bot_id = $1`,
    [botId, ownerId, longMessages, STATUSES],
  );
  await db.query(
    `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, text, created_at)
     select $1, $2, c.id, m, case when m % 2 = 1 then 'in' else 'out' end, case when m % 2 = 1 then 'user' else 'operator' end,
            c.contact_id, 'Message number ' || m, now() - interval '1 day' + m * interval '1 second'
     from conversations c, generate_series(1, $3::int) m where c.bot_id = $1 and c.number = 1`,
    [botId, ownerId, longMessages],
  );
  await db.query(
    `insert into messages (bot_id, owner_id, conversation_id, message_id, direction, sender, contact_id, text, created_at)
     select $1, $2, c.id, $3::int + c.number, 'in', 'user', c.contact_id, 'Hello from seeded chat ' || c.number, c.last_message_at
     from conversations c where c.bot_id = $1 and c.number > 1`,
    [botId, ownerId, longMessages],
  );
  await db.query(
    `update conversations c set last_message_id = (select m.id from messages m where m.conversation_id = c.id order by m.message_id desc limit 1)
     where c.bot_id = $1`,
    [botId],
  );
  await db.query(
    `update bots set last_message_id = $2::int + $3::int, last_conversation_number = $3, last_contact_number = $3 where id = $1`,
    [botId, longMessages, conversations],
  );
  const [long] = await db.query<{ id: string }>(`select id from conversations where bot_id = $1 and number = 1`, [botId]);
  return { longId: long!.id, conversations, longMessages };
}
