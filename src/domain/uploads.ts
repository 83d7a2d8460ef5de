// The upload use cases: one multipart part named `file`, streamed into the store for a
// visitor's chat, an operator's conversation or a bot. Who may upload was decided by the
// caller; `admit` sees the text fields sent before the file (the visitor's bot and chat).
import { badRequest } from "../core/errors.ts";
import {
  MAX_BOT_UPLOAD_BYTES, MAX_CHAT_FILE_BYTES, MULTIPART_OVERHEAD_BYTES, visitorMayUpload,
} from "../core/files.ts";
import type { DbConversation } from "../db/conversations.ts";
import type { DbFile } from "../db/files.ts";
import { storeUpload, type FileDeps, type UploadOptions } from "./files.ts";
import { readMultipart } from "./multipart.ts";
import { requireMemberConversation } from "./members.ts";

export type Admission = Omit<UploadOptions, "name">;

const isMultipart = (contentType: string) => contentType.split(";")[0]!.trim().toLowerCase() === "multipart/form-data";

/** Reads the single `file` part of a multipart body into the store. */
export async function receiveUpload(
  deps: FileDeps, contentType: string, body: ReadableStream<Uint8Array> | null, admit: (fields: Record<string, string>) => Promise<Admission>,
): Promise<DbFile> {
  if (!isMultipart(contentType) || !body) throw badRequest("send the file as multipart/form-data, in a part named file");
  const { files } = await readMultipart(contentType, body, async (part) => {
    if (part.field !== "file") throw badRequest(`unexpected file part "${part.field}": the file goes in the part named file`);
    const options = await admit(part.fieldsSoFar);
    return storeUpload(deps, part.stream, { ...options, name: part.filename });
  }, { maxFiles: 1, maxFieldBytes: MULTIPART_OVERHEAD_BYTES });
  const file = files.get("file");
  if (!file) throw badRequest("file: the part named file is missing");
  return file;
}

/** A visitor's file for their chat: only the types a visitor may send. */
export const visitorAdmission = (botId: string, chatId: string): Admission => ({
  botId, chatId, uploadedBy: "user", maxBytes: MAX_CHAT_FILE_BYTES, allowType: visitorMayUpload,
});

/** An operator's file for a conversation of a bot they are a member of. */
export async function operatorAdmission(deps: FileDeps, userId: string, conversationId: string): Promise<{ admission: Admission; conversation: DbConversation }> {
  const conversation = await requireMemberConversation(deps.db, userId, conversationId);
  return { conversation, admission: { botId: conversation.bot_id, chatId: conversation.chat_id, uploadedBy: "operator", maxBytes: MAX_CHAT_FILE_BYTES } };
}

/** A bot's own file: any of its chats may receive it. */
export const botAdmission = (botId: string): Admission => ({ botId, chatId: null, uploadedBy: "bot", maxBytes: MAX_BOT_UPLOAD_BYTES });
