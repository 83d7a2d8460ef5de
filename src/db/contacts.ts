import type { Queryable } from "./driver.ts";

export interface DbContact {
  id: string;
  bot_id: string;
  number: number;
  contact_key: string;
  external_user_id: string | null;
  first_name: string | null;
  last_name: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
  created_at: Date;
}

export const CONTACT_COLUMNS = `id, bot_id, number, contact_key, external_user_id, first_name, last_name, name, email, phone, created_at`;

export interface ContactFields {
  externalUserId: string | null;
  firstName: string | null;
  lastName: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
}

export async function findContactByKey(db: Queryable, botId: string, key: string): Promise<DbContact | undefined> {
  const rows = await db.query<DbContact>(
    `select ${CONTACT_COLUMNS} from contacts where bot_id = $1 and contact_key = $2`,
    [botId, key],
  );
  return rows[0];
}

/** Inserts, or fills in what the source now tells about a known contact (never erases). */
export async function upsertContact(
  db: Queryable, botId: string, ownerId: string, key: string, number: number, f: ContactFields,
): Promise<DbContact> {
  const rows = await db.query<DbContact>(
    `insert into contacts (bot_id, owner_id, number, contact_key, external_user_id, first_name, last_name, name, email, phone)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     on conflict (bot_id, contact_key) do update set
       external_user_id = coalesce(excluded.external_user_id, contacts.external_user_id),
       first_name = coalesce(excluded.first_name, contacts.first_name),
       last_name = coalesce(excluded.last_name, contacts.last_name),
       name = coalesce(excluded.name, contacts.name),
       email = coalesce(excluded.email, contacts.email),
       phone = coalesce(excluded.phone, contacts.phone),
       updated_at = now()
     returning ${CONTACT_COLUMNS}`,
    [botId, ownerId, number, key, f.externalUserId, f.firstName, f.lastName, f.name, f.email, f.phone],
  );
  return rows[0]!;
}

export async function updateContactFields(db: Queryable, contactId: string, f: ContactFields): Promise<DbContact> {
  const rows = await db.query<DbContact>(
    `update contacts set
       external_user_id = coalesce($2, external_user_id), first_name = coalesce($3, first_name),
       last_name = coalesce($4, last_name), name = coalesce($5, name), email = coalesce($6, email),
       phone = coalesce($7, phone), updated_at = now()
     where id = $1 returning ${CONTACT_COLUMNS}`,
    [contactId, f.externalUserId, f.firstName, f.lastName, f.name, f.email, f.phone],
  );
  return rows[0]!;
}

export async function findContactsByIds(db: Queryable, ids: string[]): Promise<DbContact[]> {
  if (ids.length === 0) return [];
  return db.query<DbContact>(
    `select ${CONTACT_COLUMNS} from contacts where id = any($1::uuid[]) order by number`,
    [ids],
  );
}

/** Everyone who wrote in a conversation, plus its main contact. */
export async function contactsOfConversation(db: Queryable, conversationId: string): Promise<DbContact[]> {
  return db.query<DbContact>(
    `select ${CONTACT_COLUMNS} from contacts where id in (
       select contact_id from conversations where id = $1 and contact_id is not null
       union
       select distinct contact_id from messages where conversation_id = $1 and contact_id is not null
     ) order by number`,
    [conversationId],
  );
}
