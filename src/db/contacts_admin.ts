// The contacts list, edit and merge (the cabinet's Contacts page); the intake writes contacts
// through db/intake-write.ts.
import { CONTACT_COLUMNS, type DbContact } from "./contacts.ts";
import { json, type Queryable } from "./driver.ts";

/** Newest first by number; `pattern` (escaped, %…%) matches name, e-mail, phone or external id. */
export async function listBotContacts(
  db: Queryable, botId: string, f: { pattern: string | null; beforeNumber: number | null; limit: number },
): Promise<DbContact[]> {
  return db.query<DbContact>(
    `select ${CONTACT_COLUMNS} from contacts
     where bot_id = $1 and ($2::bigint is null or number < $2::bigint)
       and ($3::text is null or name ilike $3 or email ilike $3 or phone ilike $3 or external_user_id ilike $3)
     order by number desc limit $4`,
    [botId, f.beforeNumber, f.pattern, f.limit],
  );
}

export async function findContact(db: Queryable, id: string): Promise<DbContact | undefined> {
  const rows = await db.query<DbContact>(`select ${CONTACT_COLUMNS} from contacts where id = $1`, [id]);
  return rows[0];
}

export interface ContactEdit {
  name?: string | null;
  email?: string | null;
  phone?: string | null;
  attributes?: Record<string, unknown>;
}

/** Only the fields given change (null clears one); attributes are replaced as a whole. */
export async function updateContact(db: Queryable, id: string, edit: ContactEdit): Promise<DbContact> {
  const rows = await db.query<DbContact>(
    `update contacts set
       name = case when $2 then $3 else name end,
       email = case when $4 then $5 else email end,
       phone = case when $6 then $7 else phone end,
       attributes = coalesce($8::text::jsonb, attributes),
       updated_at = now()
     where id = $1 returning ${CONTACT_COLUMNS}`,
    [id, edit.name !== undefined, edit.name ?? null, edit.email !== undefined, edit.email ?? null, edit.phone !== undefined, edit.phone ?? null,
      edit.attributes === undefined ? null : json(edit.attributes)],
  );
  return rows[0]!;
}

/**
 * Moves everything of `from` onto `into` (its conversations and messages), fills what `into`
 * lacks from `from` (its own values and attributes win), and deletes `from`. Returns the
 * conversations that moved.
 */
export async function mergeContacts(db: Queryable, fromId: string, intoId: string): Promise<string[]> {
  const moved = await db.query<{ id: string }>(`update conversations set contact_id = $2, updated_at = now() where contact_id = $1 returning id`, [fromId, intoId]);
  await db.query(`update messages set contact_id = $2 where contact_id = $1`, [fromId, intoId]);
  await db.query(
    `update contacts t set
       external_user_id = coalesce(t.external_user_id, f.external_user_id), first_name = coalesce(t.first_name, f.first_name),
       last_name = coalesce(t.last_name, f.last_name), name = coalesce(t.name, f.name), email = coalesce(t.email, f.email),
       phone = coalesce(t.phone, f.phone), attributes = f.attributes || t.attributes, updated_at = now()
     from contacts f where t.id = $2 and f.id = $1`,
    [fromId, intoId],
  );
  await db.query(`delete from contacts where id = $1`, [fromId]);
  return moved.map((r) => r.id);
}
