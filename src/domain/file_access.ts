// Who may upload and read a file, as use cases the HTTP front calls: a visitor uploads into
// the chat of the bot the request names, an operator into a conversation of a bot they are a
// member of, a bot for itself; bytes are read through a valid signed link, or by the bot that
// owns the file (the Telegram facade's /file/bot<token>/<path>).
import { badRequest, forbidden, notFound } from "../core/errors.ts";
import { MAX_BOT_DOWNLOAD_BYTES, UUID_PATTERN, type FileRecord } from "../core/files.ts";
import type { ChannelType } from "../core/records.ts";
import type { DbBot } from "../db/bots.ts";
import { findFile, type DbFile } from "../db/files.ts";
import type { ByteRange } from "../files/store.ts";
import { checkFileLink, withLink } from "../file-links.ts";
import { storedFile, type FileDeps } from "./files.ts";
import { botAdmission, operatorAdmission, receiveUpload, visitorAdmission } from "./uploads.ts";
import { requireActiveChannel, selectBot } from "./intake.ts";
import { checkWidgetOrigin } from "./channels.ts";
import type { BotDirectory } from "./directory.ts";
import type { RequestLimits } from "./limits.ts";
import { visitorChat, type IdentityDeps } from "./identity.ts";

/** A file ready to be served: what the response headers say, and its bytes on demand. */
export interface ServableFile {
  meta: Pick<DbFile, "id" | "name" | "size" | "sha256" | "mime_type">;
  read(range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
}

/** A multipart request body as it arrived. */
export interface Upload {
  contentType: string;
  body: ReadableStream<Uint8Array> | null;
}

type AccessDeps = FileDeps & IdentityDeps & { bots: BotDirectory; limits: RequestLimits };

const servable = (deps: FileDeps, file: DbFile): ServableFile => ({ meta: file, read: (range) => deps.files.get(file.id, range) });
const record = (file: DbFile): FileRecord => withLink(storedFile(file));

/**
 * A visitor's file: the bot and chat are named by the query or by the fields before the file
 * part, and pass the same checks as POST /api/messages (bot limit, widget Origin, active channel).
 */
export async function uploadAsVisitor(
  deps: AccessDeps, upload: Upload, query: Record<string, string | undefined>, origin: string | null,
): Promise<FileRecord> {
  return record(await receiveUpload(deps, upload.contentType, upload.body, async (fields) => {
    const named = { ...query, ...fields };
    const bot = await selectBot(deps, named.bot_id, named.widget_key);
    deps.limits.publicBot(bot.id);
    await checkWidgetOrigin(deps, bot.id, origin);
    if (!named.chat_id) throw badRequest("chat_id is required, before the file part");
    await visitorChat(deps, bot.id, named);
    await requireActiveChannel(deps, bot.id, (named.channel ?? (named.bot_id ? "custom_api" : "widget")) as ChannelType);
    return visitorAdmission(bot.id, named.chat_id);
  }));
}

/** An operator's file for a conversation of a bot they are a member of (404 otherwise). */
export async function uploadAsOperator(deps: FileDeps, userId: string, conversationId: string, upload: Upload): Promise<FileRecord> {
  const { admission } = await operatorAdmission(deps, userId, conversationId);
  return record(await receiveUpload(deps, upload.contentType, upload.body, async () => admission));
}

/** A bot's own file, for any of its chats. */
export async function uploadAsBot(deps: FileDeps, bot: DbBot, upload: Upload): Promise<FileRecord> {
  return record(await receiveUpload(deps, upload.contentType, upload.body, async () => botAdmission(bot.id)));
}

/** The file a signed link names: 403 for an expired or altered link, 404 for a file that is gone. */
export async function linkedFile(deps: FileDeps, fileId: string, expires: string | undefined, sig: string | undefined): Promise<ServableFile> {
  const id = fileId.toLowerCase();
  if (!UUID_PATTERN.test(id)) throw notFound("file");
  const check = checkFileLink(id, expires, sig);
  if (check !== "ok") throw forbidden(check === "expired" ? "this link has expired: fetch the message again for a fresh one" : "this link is not valid");
  const file = await findFile(deps.db, id);
  if (!file) throw notFound("file");
  return servable(deps, file);
}

/** One of the bot's own files, up to Telegram's download limit; undefined otherwise. */
export async function botFile(deps: FileDeps, bot: DbBot, fileId: string | undefined): Promise<ServableFile | undefined> {
  const file = fileId ? await findFile(deps.db, fileId) : undefined;
  if (!file || file.bot_id !== bot.id || Number(file.size) > MAX_BOT_DOWNLOAD_BYTES) return undefined;
  return servable(deps, file);
}
