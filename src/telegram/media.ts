// The facade's media methods (docs/design.md §13.1) with Telegram's semantics: a file is an uploaded
// multipart part (directly or as attach://<name>), an HTTP(S) URL the server fetches, or a
// file_id of this bot's; the text is a caption (parse_mode / caption_entities);
// sendMediaGroup sends 2..10 messages as one album.
import { randomUUID } from "node:crypto";
import type { DbBot } from "../db/bots.ts";
import { findBotFiles, findFile, type DbFile } from "../db/files.ts";
import { MAX_BOT_DOWNLOAD_BYTES, MAX_BOT_UPLOAD_BYTES, MAX_FILES_PER_MESSAGE, MIN_MEDIA_GROUP, type FileKind, type StoredFile } from "../core/files.ts";
import { storeUpload, storedFile, validFileId } from "../domain/files.ts";
import { botAdmission } from "../domain/uploads.ts";
import type { FilePart } from "../domain/multipart.ts";
import * as native from "../domain/runtime.ts";
import { editFromBot } from "../domain/conversations.ts";
import { findConversationById } from "../db/conversations.ts";
import { findMessageByBotMessageId } from "../db/messages.ts";
import { fetchFile, FetchRefused } from "../delivery/fetch-file.ts";
import type { TelegramDeps } from "./deps.ts";
import { tgBadRequest } from "./errors.ts";
import type { Method, Params, TelegramResult, TgMessage } from "./model.ts";
import { optionalArray, optionalString, requireChat } from "./params.ts";
import { findChat, nativeRefusal, ownMessage, replyMarkup, replyTo } from "./lookup.ts";
import { botUser, chatOfRef, chatOfRow, toTgMessage } from "./shapes.ts";
import { filePathOf } from "./media-shapes.ts";
import { runtimeMessage } from "../db/view.ts";

/** A multipart part, already streamed into the store while the body arrived (telegram/params.ts). */
export class UploadedPart {
  constructor(readonly file: DbFile) {}
}

const WRONG_FILE = "wrong file identifier/HTTP URL specified";
const done = (result: unknown): TelegramResult => ({ result });

/** Each part of a multipart call is stored as the bot's file as it arrives; a part no parameter names is swept later. */
export const storePart = (deps: TelegramDeps, bot: DbBot) => async (part: FilePart): Promise<UploadedPart> =>
  new UploadedPart(await storeUpload(deps, part.stream, { ...botAdmission(bot.id), name: part.filename }));

/** One InputFile: an uploaded part, attach://<part>, an http(s) URL, or this bot's file_id. */
async function inputFile(deps: TelegramDeps, bot: DbBot, params: Params, value: unknown, name: string): Promise<DbFile> {
  if (value instanceof UploadedPart) return value.file;
  if (typeof value !== "string" || value === "") throw tgBadRequest(`there is no ${name} in the request`);
  if (value.startsWith("attach://")) {
    const part = params[value.slice("attach://".length)];
    if (part instanceof UploadedPart) return part.file;
    throw tgBadRequest(`can't find the file attached as ${value}`);
  }
  if (/^https?:\/\//i.test(value)) {
    try {
      const fetched = await fetchFile(value, { allowPrivate: deps.config.allowPrivateWebhooks }, MAX_BOT_UPLOAD_BYTES);
      return await storeUpload(deps, fetched.body, { ...botAdmission(bot.id), name: fetched.name });
    } catch (err) {
      if (err instanceof FetchRefused) throw tgBadRequest(err.message);
      throw err;
    }
  }
  if (!validFileId(value)) throw tgBadRequest(WRONG_FILE);
  const [file] = await findBotFiles(deps.db, bot.id, [value]);
  if (!file) throw tgBadRequest(WRONG_FILE);
  return file;
}

/** Telegram refuses a photo that is not a picture; anything may go as a document. */
function asKind(file: DbFile, kind: FileKind): StoredFile {
  if (kind === "photo" && !(file.mime_type.startsWith("image/") && file.mime_type !== "image/svg+xml")) throw tgBadRequest("IMAGE_PROCESS_FAILED");
  return storedFile(file, kind);
}

const caption = (params: Params) => ({
  text: optionalString(params, "caption") ?? "",
  parse_mode: optionalString(params, "parse_mode"),
  entities: optionalArray(params, "caption_entities"),
});

async function sendOne(deps: TelegramDeps, bot: DbBot, params: Params, kind: FileKind): Promise<TgMessage> {
  const chat = await findChat(deps, bot, requireChat(params));
  const file = asKind(await inputFile(deps, bot, params, params[kind], kind), kind);
  const sent = await native.sendMessage(deps, bot, { chat_id: chat.chat_id, ...caption(params), reply_markup: replyMarkup(params), ...replyTo(params) }, [file]);
  return toTgMessage(sent, chatOfRow(chat), botUser(bot));
}

const INPUT_MEDIA_KINDS: Record<string, FileKind> = { photo: "photo", video: "video", audio: "audio", document: "document", animation: "animation" };

async function sendMediaGroup(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TgMessage[]> {
  const chat = await findChat(deps, bot, requireChat(params));
  const media = optionalArray(params, "media") ?? [];
  if (media.length < MIN_MEDIA_GROUP || media.length > MAX_FILES_PER_MESSAGE) throw tgBadRequest("wrong number of media in the album: send 2-10");
  const items = [];
  for (const item of media) {
    const entry = (item ?? {}) as Params;
    const kind = INPUT_MEDIA_KINDS[String(entry.type)];
    if (!kind) throw tgBadRequest("unsupported media type in the album");
    items.push({ entry, file: asKind(await inputFile(deps, bot, params, entry.media, "media"), kind) });
  }
  const group = randomUUID().replaceAll("-", "").slice(0, 18);
  const sent: TgMessage[] = [];
  for (const [i, { entry, file }] of items.entries()) {
    const message = await native.sendMessage(deps, bot, {
      chat_id: chat.chat_id, ...caption(entry), ...(i === 0 ? replyTo(params) : {}),
    }, [file]);
    message.metadata = { ...message.metadata, media_group_id: group };
    sent.push(toTgMessage(message, chatOfRow(chat), botUser(bot)));
  }
  // The album's id is kept on each message, so updates and history show it too.
  await deps.db.query(`update messages set metadata = metadata || jsonb_build_object('media_group_id', $3::text)
    where bot_id = $1 and message_id = any($2::bigint[])`, [bot.id, sent.map((m) => m.message_id), group]);
  return sent;
}

async function getFile(deps: TelegramDeps, bot: DbBot, params: Params) {
  const id = optionalString(params, "file_id");
  if (!id) throw tgBadRequest("file_id is empty");
  if (!validFileId(id)) throw tgBadRequest("wrong file_id specified");
  const file = await findFile(deps.db, id.toLowerCase());
  if (!file || file.bot_id !== bot.id) throw tgBadRequest("wrong file_id specified");
  if (Number(file.size) > MAX_BOT_DOWNLOAD_BYTES) throw tgBadRequest("file is too big");
  const stored = storedFile(file);
  return { file_id: stored.file_id, file_unique_id: stored.file_unique_id, file_size: stored.size, file_path: filePathOf(stored) };
}

async function editMessageCaption(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TgMessage> {
  const ref = await ownMessage(deps, bot, params, "edit");
  const edited = await native
    .editMessageText(deps, bot, { message_id: Number(ref.message_id), text: optionalString(params, "caption") ?? "", parse_mode: optionalString(params, "parse_mode"),
      entities: optionalArray(params, "caption_entities"), reply_markup: replyMarkup(params) })
    .catch((err: unknown) => Promise.reject(nativeRefusal(err, "edit")));
  return toTgMessage(edited, chatOfRef(ref, edited.chat.channel), botUser(bot));
}

async function editMessageMedia(deps: TelegramDeps, bot: DbBot, params: Params): Promise<TgMessage> {
  const ref = await ownMessage(deps, bot, params, "edit");
  const entry = (typeof params.media === "string" ? JSON.parse(params.media) : params.media ?? {}) as Params;
  const kind = INPUT_MEDIA_KINDS[String(entry.type)];
  if (!kind) throw tgBadRequest("unsupported media type");
  const file = asKind(await inputFile(deps, bot, params, entry.media, "media"), kind);
  const message = (await findMessageByBotMessageId(deps.db, bot.id, Number(ref.message_id)))!;
  const conversation = (await findConversationById(deps.db, message.conversation_id))!;
  await deps.db.query(`update messages set attachments = $2::text::jsonb where id = $1`, [message.id, JSON.stringify([file])]);
  const text = caption(entry);
  const edited = await editFromBot(deps, bot, conversation, { ...message, attachments: [file] }, { text: text.text, entities: null }, replyMarkup(params) ?? null);
  return toTgMessage(runtimeMessage(edited, conversation, undefined, native.botSender(bot)), chatOfRef(ref, conversation.channel), botUser(bot));
}

export const MEDIA_METHODS: Record<string, Method> = {
  sendphoto: async (deps, bot, params) => done(await sendOne(deps, bot, params, "photo")),
  senddocument: async (deps, bot, params) => done(await sendOne(deps, bot, params, "document")),
  sendvideo: async (deps, bot, params) => done(await sendOne(deps, bot, params, "video")),
  sendaudio: async (deps, bot, params) => done(await sendOne(deps, bot, params, "audio")),
  sendvoice: async (deps, bot, params) => done(await sendOne(deps, bot, params, "voice")),
  sendanimation: async (deps, bot, params) => done(await sendOne(deps, bot, params, "animation")),
  sendmediagroup: async (deps, bot, params) => done(await sendMediaGroup(deps, bot, params)),
  getfile: async (deps, bot, params) => done(await getFile(deps, bot, params)),
  editmessagecaption: async (deps, bot, params) => done(await editMessageCaption(deps, bot, params)),
  editmessagemedia: async (deps, bot, params) => done(await editMessageMedia(deps, bot, params)),
};
