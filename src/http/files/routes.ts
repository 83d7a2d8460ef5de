// Files (docs/design.md §13.1): uploads by a visitor, an operator and a bot (multipart, streamed,
// never held whole), and the signed links every File record carries.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { MAX_BOT_UPLOAD_BYTES, MAX_CHAT_FILE_BYTES } from "../../core/files.ts";
import { userAuth } from "../auth/plugin.ts";
import { botAuth } from "../runtime/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { FileSchema } from "./model.ts";
import { serveFile } from "./serve.ts";

const MB = 1024 * 1024;
const upload = (request: Request) => ({ contentType: request.headers.get("content-type") ?? "", body: request.body });
/** OpenAPI for a multipart upload: Elysia cannot infer it from a route that reads its own body. */
const uploadDetail = (summary: string, description: string, fields: Record<string, { type: "string" }> = {}) => ({
  summary, description,
  requestBody: {
    description: "multipart/form-data with one part named file (streamed: never held whole in memory)",
    required: true,
    content: {
      "multipart/form-data": {
        schema: { type: "object" as const, properties: { ...fields, file: { type: "string" as const, format: "binary" } }, required: ["file"] },
        example: { ...Object.fromEntries(Object.keys(fields).map((k) => [k, k === "chat_id" ? "visitor-42" : "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f"])), file: "(the file's bytes)" },
      },
    },
  },
});

const bytes = (description: string) => ({
  description,
  content: { "application/octet-stream": { schema: { type: "string" as const, format: "binary" }, example: "(bytes)" } },
});

export const fileRoutes = (services: Services) =>
  feature({ tags: ["Files"] })
    .use(userAuth(services))
    .use(botAuth(services))
    .post("/api/files", async ({ request, query }) =>
      ok(await services.files.uploadAsVisitor(upload(request), query as Record<string, string>, request.headers.get("origin"))), {
      parse: "none",
      query: t.Object({
        bot_id: t.Optional(t.String()), widget_key: t.Optional(t.String()), chat_id: t.Optional(t.String()),
        user_id: t.Optional(t.String()), user_hash: t.Optional(t.String({ description: "A verified user's hash, as on POST /api/messages" })),
      }),
      response: {
        200: Ok(FileSchema, "Stored; send it with attachments: [file_id] on POST /api/messages for the same chat_id"),
        ...errors(400, 403, 404, { 413: `The file is larger than ${MAX_CHAT_FILE_BYTES / MB} MB` }, { 415: "Not a type a visitor may send (read from the bytes)" }, 429),
      },
      detail: uploadDetail("Upload a visitor's file",
        "No authorization, as POST /api/messages: the fields bot_id or widget_key and chat_id come before the file part (or in the query). " +
        "Pictures, PDF, plain text/CSV, office documents, archives, audio and video; anything else is 415. The type is read from the bytes.",
        { bot_id: { type: "string" }, widget_key: { type: "string" }, chat_id: { type: "string" } } as const),
    })
    .post("/api/inbox/:id/files", async ({ request, user, params }) => ok(await services.files.uploadAsOperator(user, params.id, upload(request))), {
      user: true,
      parse: "none",
      params: t.Object({ id: t.String({ format: "uuid" }) }),
      response: { 200: Ok(FileSchema, "Stored; send it with attachments on POST /api/inbox/{id}"), ...errors(400, 401, 404, { 413: `The file is larger than ${MAX_CHAT_FILE_BYTES / MB} MB` }) },
      detail: uploadDetail("Upload an operator's file for a conversation", "Any type; what is not a picture, audio, video or PDF is offered as a download, never shown in place."),
    })
    .post("/api/bots/:id/upload-file", async ({ request, bot }) => ok(await services.files.uploadAsBot(bot, upload(request))), {
      bot: true,
      parse: "none",
      params: t.Object({ id: t.String() }),
      response: { 200: Ok(FileSchema, "Stored; send it with attachments on send-message, to any chat of this bot"), ...errors(400, 401, 403, { 413: `The file is larger than ${MAX_BOT_UPLOAD_BYTES / MB} MB` }) },
      detail: { ...uploadDetail("Upload a bot's file", "Telegram's limits: 50 MB up; a bot downloads files up to 20 MB."), tags: ["Bot Runtime"] },
    })
    .get("/api/files/:file_id", async ({ request, params, query }) =>
      serveFile(await services.files.linked(params.file_id, query.expires, query.sig), request, query.download === "1"), {
      params: t.Object({ file_id: t.String() }),
      query: t.Object({
        expires: t.Optional(t.String()), sig: t.Optional(t.String()),
        download: t.Optional(t.String({ description: "1: always as a download (Content-Disposition: attachment), as a file card's link asks" })),
      }),
      detail: {
        summary: "A file's bytes (the signed url of a File record)",
        description: "Pictures, audio, video and PDF inline, everything else as a download (SVG and HTML never in place); X-Content-Type-Options: nosniff and a sandboxing CSP; " +
          "Range requests (206) and a strong ETag (304 on If-None-Match). An expired or altered link is 403.",
        responses: {
          200: bytes("The bytes, with the file's type (markup as application/octet-stream)"),
          206: bytes("The requested range (Content-Range)"),
          304: bytes("Not modified (If-None-Match matched the ETag); no body"),
          403: bytes("Expired or altered link: {ok:false,error}"),
          404: bytes("No such file (deleted): {ok:false,error}"),
          416: bytes("Range not satisfiable; no body"),
        },
      },
    });


