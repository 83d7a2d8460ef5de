import type { Queryable } from "./driver.ts";
import type { FileKind, Uploader } from "../core/files.ts";

export interface DbFile {
  id: string;
  bot_id: string;
  chat_id: string | null;
  uploaded_by: Uploader;
  name: string;
  mime_type: string;
  size: number;
  sha256: string;
  kind: FileKind;
  width: number | null;
  height: number | null;
  duration: number | null;
  created_at: Date;
}

export type NewFile = Omit<DbFile, "created_at">;

const COLUMNS = "id, bot_id, chat_id, uploaded_by, name, mime_type, size, sha256, kind, width, height, duration, created_at";

export async function insertFile(db: Queryable, f: NewFile): Promise<DbFile> {
  const rows = await db.query<DbFile>(
    `insert into files (id, bot_id, chat_id, uploaded_by, name, mime_type, size, sha256, kind, width, height, duration)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning ${COLUMNS}`,
    [f.id, f.bot_id, f.chat_id, f.uploaded_by, f.name, f.mime_type, f.size, f.sha256, f.kind, f.width, f.height, f.duration],
  );
  return rows[0]!;
}

export async function findFile(db: Queryable, id: string): Promise<DbFile | undefined> {
  const rows = await db.query<DbFile>(`select ${COLUMNS} from files where id = $1`, [id]);
  return rows[0];
}

/** The bot's files among `ids` (others' are simply absent). */
export async function findBotFiles(db: Queryable, botId: string, ids: string[]): Promise<DbFile[]> {
  if (ids.length === 0) return [];
  return db.query<DbFile>(`select ${COLUMNS} from files where bot_id = $1 and id = any($2::uuid[])`, [botId, ids]);
}

/** Every file of the bot: deleting a bot removes their bytes as the cascade removes their rows. */
export async function findBotFileIds(db: Queryable, botId: string): Promise<string[]> {
  const rows = await db.query<{ id: string }>(`select id from files where bot_id = $1`, [botId]);
  return rows.map((r) => r.id);
}

/** Files shown by no live message, uploaded before `before` (null: whenever): a deleted message's files, or uploads never sent. */
export async function findUnreferencedFiles(db: Queryable, before: Date | null, ids?: string[]): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `select f.id from files f
     where ($1::timestamptz is null or f.created_at < $1) and ($2::uuid[] is null or f.id = any($2::uuid[]))
       and not exists (select 1 from messages m where m.deleted_at is null and m.bot_id = f.bot_id
                         and m.attachments @> jsonb_build_array(jsonb_build_object('file_id', f.id::text)))
     limit 1000`,
    [before, ids ?? null],
  );
  return rows.map((r) => r.id);
}

export async function deleteFiles(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length) await db.query(`delete from files where id = any($1::uuid[])`, [ids]);
}

/** Which of `ids` have a row: the sweep deletes stored bytes whose row is gone (a deleted bot's). */
export async function existingFileIds(db: Queryable, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.query<{ id: string }>(`select id from files where id = any($1::uuid[])`, [ids]);
  return new Set(rows.map((r) => r.id));
}
