import { t } from "elysia";
import { FILE_KINDS, type FileRecord } from "../../core/files.ts";
import type { Same } from "../../core/records.ts";
import { oneOf } from "../feature.ts";

export const FileSchema = t.Object(
  {
    file_id: t.String({ description: "Use it in attachments (and, for a bot, in the Telegram facade's file_id inputs)" }),
    file_unique_id: t.String({ description: "The same for the same bytes, whoever uploaded them" }),
    kind: oneOf(FILE_KINDS),
    name: t.String(),
    mime_type: t.String({ description: "Read from the bytes, never taken from the uploader" }),
    size: t.Integer({ description: "Bytes" }),
    width: t.Optional(t.Integer()),
    height: t.Optional(t.Integer()),
    duration: t.Optional(t.Integer({ description: "Seconds" })),
    url: t.String({ description: "Signed link to the bytes, valid for a day; works without headers (<img src>, a download link)" }),
  },
  {
    title: "File",
    examples: [{
      file_id: "0b6f1c2d-3e4a-4b5c-9d6e-7f8091a2b3c4", file_unique_id: "q1w2e3r4t5y6u7i8", kind: "photo", name: "screenshot.png",
      mime_type: "image/png", size: 48213, width: 1280, height: 800,
      url: "https://inbox.example.com/api/files/0b6f1c2d-3e4a-4b5c-9d6e-7f8091a2b3c4?expires=1767312000&sig=…",
    }],
  },
);

const sameShape: Same<typeof FileSchema.static, FileRecord> = true;
void sameShape;

export const Attachments = t.Array(t.String({ description: "file_id" }), {
  maxItems: 10,
  description: "Files to send with the message (up to 10): uploaded for this chat, or by this bot. text may then be empty.",
});
