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
  attributes: Record<string, unknown>;
}

export const CONTACT_COLUMNS = `id, bot_id, number, contact_key, external_user_id, first_name, last_name, name, email, phone, created_at, attributes`;

export interface ContactFields {
  externalUserId: string | null;
  firstName: string | null;
  lastName: string | null;
  name: string | null;
  email: string | null;
  phone: string | null;
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
