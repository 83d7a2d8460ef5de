// Upgrading an install that has bots: every bot's owner becomes its member (role owner), with
// unread counting starting after the history the bot already had.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { migrate, readMigrations } from "../../src/db/migrate.ts";
import { MODE } from "../support/harness.ts";
import { freshDatabase } from "../support/fresh-db.ts";

/** A fresh PGlite or a throwaway Postgres database takes seconds on a busy machine. */
setDefaultTimeout(60_000);

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

test(`existing bots get their owner as a member, history counted as read (${MODE})`, async () => {
  const db = await freshDatabase(cleanups, "members");
  const all = readMigrations();
  await migrate(db, all.filter((m) => m.name < "120_"));
  const [user] = await db.query<{ id: string }>(`insert into users (email, password_hash) values ('old@example.com', 'x') returning id`);
  const [bot] = await db.query<{ id: string }>(
    `insert into bots (owner_id, name, username, token_hash, token_encrypted, widget_key, integration_key, last_message_id)
     values ($1, 'Old', 'old_bot', 'h', 'e', 'wk_old', 'ik_old', 7) returning id`,
    [user!.id],
  );
  expect(await migrate(db, all)).toContain("120_bot_members.sql");
  const members = await db.query<{ user_id: string; role: string; read_floor: number | string }>(
    `select user_id, role, read_floor from bot_members where bot_id = $1`,
    [bot!.id],
  );
  expect(members.map((m) => ({ ...m, read_floor: Number(m.read_floor) }))).toEqual([{ user_id: user!.id, role: "owner", read_floor: 7 }]);
});
