// Contacts: list and search per bot, read, edit, merge, CSV export.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import { BotIdParams } from "../bots/model.ts";
import { Contact } from "../inbox/model.ts";
import { ContactDetail, ContactIdParams, ContactPatch, ContactsQuery, MergeRequest } from "./model.ts";

/** Streams the lines as they are read, so the export's memory is one page whatever the count. */
function csvResponse(lines: AsyncGenerator<string>, filename: string): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await lines.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(next.value));
    },
    async cancel() {
      await lines.return(undefined);
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${filename}"`, "cache-control": "no-store" },
  });
}

export const contactRoutes = (services: Services) =>
  feature({ tags: ["Contacts"] })
    .use(userAuth(services))
    .get("/api/bots/:id/contacts", async ({ user, params, query }) => ok(await services.contacts.list(user, params.id, query)), {
      user: true,
      params: BotIdParams,
      query: ContactsQuery,
      response: { 200: Ok(t.Array(Contact), "Newest contacts first"), ...errors(400, 401, 404) },
      detail: {
        summary: "The bot's contacts",
        description: "Any member. Search with `q`; page with `cursor` = the last contact's `number` until a page comes back empty.",
      },
    })
    .get("/api/bots/:id/contacts.csv", async ({ user, params }) => csvResponse(await services.contacts.csv(user, params.id), "contacts.csv"), {
      user: true,
      params: BotIdParams,
      response: { 200: t.String({ description: "text/csv: a header row, then one row per contact, newest first", examples: ["number,name,first_name,last_name,email,phone,external_user_id,created_at,attributes\r\n\"3\",\"Ada\",\"Ada\",\"\",\"ada@example.com\",\"\",\"visitor-42\",\"2026-01-01T09:30:00.000Z\",\"{}\"\r\n"] }), ...errors(400, 401, 404) },
      detail: {
        summary: "Export the bot's contacts as CSV",
        description:
          "Streamed. Every cell is quoted; a cell that a spreadsheet would run as a formula (starting with = + - @, a tab or CR) " +
          "starts with an apostrophe. `attributes` is a JSON object.",
      },
    })
    .get("/api/contacts/:id", async ({ user, params }) => ok(await services.contacts.get(user, params.id)), {
      user: true,
      params: ContactIdParams,
      response: { 200: Ok(ContactDetail, "The contact and its conversations"), ...errors(400, 401, 404) },
      detail: { summary: "A contact", description: "Members of the contact's bot; 404 for anyone else." },
    })
    .patch("/api/contacts/:id", async ({ user, params, body }) => ok(await services.contacts.edit(user, params.id, body)), {
      user: true,
      params: ContactIdParams,
      body: ContactPatch,
      response: { 200: Ok(ContactDetail, "The contact as it is now"), ...errors(400, 401, 404) },
      detail: {
        summary: "Edit a contact",
        description: "Only the fields given change; null or an empty string clears one. `attributes` replaces them all. Any member.",
      },
    })
    .post("/api/contacts/:id/merge", async ({ user, params, body }) => ok(await services.contacts.merge(user, params.id, body.into)), {
      user: true,
      params: ContactIdParams,
      body: MergeRequest,
      response: { 200: Ok(ContactDetail, "The contact that stayed (`into`), with every conversation of both"), ...errors(400, 401, 404) },
      detail: {
        summary: "Merge a contact into another",
        description:
          "Both contacts must belong to the same bot (400 otherwise). The conversations and messages of this contact move to `into`; " +
          "`into` keeps its own fields and takes the ones it lacks from this contact; this contact is deleted.",
      },
    });
