// The naive baseline for bench/ingest.ts: the simplest server that accepts a message
// durably, so the product's figure has something honest to be compared with. On each
// POST /api/messages it runs ONE transaction: upsert the conversation (by bot and chat),
// insert the message. No auth, no update log, no outbox, no validation beyond shape.
// Deliberately imports nothing from src/: it must stay the same while the product changes.
//   NAIVE_DATABASE_URL=postgres://… PORT=… bun bench/naive-ingest-server.ts   (postgres.js)
//   NAIVE_PGLITE_DIR=/tmp/…        PORT=… bun bench/naive-ingest-server.ts   (PGlite)
import { PGlite } from "@electric-sql/pglite";
import postgres from "postgres";

/** Same as the product's pool (src/db/postgres.ts POOL_SIZE), so only the design differs. */
const POOL_SIZE = 10;
/** Same connect timeout as the product, so an unreachable database fails start-up alike. */
const CONNECT_TIMEOUT_SECONDS = 3;

const SCHEMA = `
  create table if not exists naive_conversations (
    id bigserial primary key,
    bot_id uuid not null,
    chat_id text not null,
    message_count int not null default 0,
    last_message_at timestamptz not null default now(),
    unique (bot_id, chat_id)
  );
  create table if not exists naive_messages (
    id bigserial primary key,
    conversation_id bigint not null references naive_conversations (id),
    bot_id uuid not null,
    text text not null,
    client_message_id text,
    created_at timestamptz not null default now()
  );`;
const UPSERT_CONVERSATION = `
  insert into naive_conversations (bot_id, chat_id, message_count, last_message_at) values ($1, $2, 1, now())
  on conflict (bot_id, chat_id) do update
    set message_count = naive_conversations.message_count + 1, last_message_at = now()
  returning id`;
const INSERT_MESSAGE = `
  insert into naive_messages (conversation_id, bot_id, text, client_message_id) values ($1, $2, $3, $4) returning id`;

type Row = { id: string | number };
/** One transaction: both statements run on one connection, the caller gets the message id. */
type Accept = (bot: string, chat: string, text: string, clientId: string | null) => Promise<{ conversation: Row; message: Row }>;

async function openPostgresBackend(url: string): Promise<Accept> {
  const sql = postgres(url, { max: POOL_SIZE, connect_timeout: CONNECT_TIMEOUT_SECONDS, onnotice: () => {} });
  await sql.unsafe(SCHEMA);
  return (bot, chat, text, clientId) => sql.begin(async (tx) => {
    const [conversation] = await tx.unsafe<Row[]>(UPSERT_CONVERSATION, [bot, chat]);
    const [message] = await tx.unsafe<Row[]>(INSERT_MESSAGE, [conversation!.id, bot, text, clientId]);
    return { conversation: conversation!, message: message! };
  }) as Promise<{ conversation: Row; message: Row }>;
}

async function openPgliteBackend(dataDir: string): Promise<Accept> {
  // One connection, as the product has on PGlite: transactions queue behind each other.
  const pg = await PGlite.create({ dataDir });
  await pg.exec(SCHEMA);
  return (bot, chat, text, clientId) => pg.transaction(async (tx) => {
    const conversation = (await tx.query<Row>(UPSERT_CONVERSATION, [bot, chat])).rows[0]!;
    const message = (await tx.query<Row>(INSERT_MESSAGE, [conversation.id, bot, text, clientId])).rows[0]!;
    return { conversation, message };
  });
}

const accept = process.env.NAIVE_PGLITE_DIR
  ? await openPgliteBackend(process.env.NAIVE_PGLITE_DIR)
  : await openPostgresBackend(process.env.NAIVE_DATABASE_URL ?? "");

const reply = (status: number, body: unknown) => Response.json(body, { status });

const server = Bun.serve({
  port: Number(process.env.PORT ?? 0),
  hostname: process.env.HOST ?? "127.0.0.1",
  async fetch(request) {
    const { pathname } = new URL(request.url);
    if (pathname === "/healthz" || pathname === "/readyz") return new Response("ok");
    if (pathname !== "/api/messages" || request.method !== "POST") return reply(404, { ok: false, error: "not found" });
    let body: any;
    try {
      body = await request.json();
    } catch {
      return reply(400, { ok: false, error: "body is not JSON" });
    }
    if (typeof body?.bot_id !== "string" || typeof body?.text !== "string") return reply(400, { ok: false, error: "bot_id and text are required" });
    const clientId = typeof body.metadata?.client_message_id === "string" ? body.metadata.client_message_id : null;
    try {
      const { conversation, message } = await accept(body.bot_id, String(body.chat_id ?? ""), body.text, clientId);
      return reply(200, { ok: true, result: { message_id: String(message.id), conversation_id: String(conversation.id) } });
    } catch (err) {
      return reply(503, { ok: false, error: (err as Error).message });
    }
  },
});
console.log(`naive ingest server on http://${server.hostname}:${server.port}`);

// The bench stops us with SIGTERM; exit at once (in-flight requests no longer matter then).
process.on("SIGTERM", () => process.exit(0));
