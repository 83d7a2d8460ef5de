import { feature } from "./feature.ts";
import { openapi } from "@elysiajs/openapi";
// After the plugin: it registers slow format checks that this module replaces.
import "./formats.ts";
import { Elysia } from "elysia";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { pageHeaders, SWAGGER_CSP } from "./web/security-headers.ts";
import { requestPath } from "./paths.ts";

const require = createRequire(import.meta.url);
const SWAGGER_UI_DIR = dirname(require.resolve("swagger-ui-dist/package.json"));
/** Only these files are needed by the UI page; serving them ourselves keeps /swagger working offline. */
const SWAGGER_ASSETS = new Set(["swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"]);

export const TAGS = [
  { name: "Auth", description: "Register, log in, profile" },
  { name: "Bots", description: "The user's bots" },
  { name: "Bot Runtime", description: "A bot's backend, with the bot token" },
  { name: "Channels", description: "Per-bot channels" },
  { name: "Team", description: "Members, invites and canned replies of a bot (owners and operators)" },
  { name: "Messages", description: "Incoming messages and chat history (public)" },
  { name: "site-form integration", description: "Form-plugin submissions" },
  { name: "Inbox", description: "The operator inbox" },
  { name: "Widget", description: "Public widget configuration" },
  { name: "System", description: "Health and readiness" },
  { name: "Live streams", description: "Server-Sent Events for the widget and the cabinet inbox, resumable by Last-Event-ID" },
  { name: "Push", description: "Operator push notifications (Web Push)" },
  { name: "Integrations", description: "Event webhooks that follow a bot's inbox, and personal API tokens for scripts" },
  { name: "Files", description: "Uploads by visitors, operators and bots, and the signed links to their bytes" },
  { name: "Labels", description: "A bot's labels for conversations" },
  { name: "Contacts", description: "A bot's contacts: list, search, edit, merge, CSV export" },
  { name: "Reports", description: "Volume, response and resolution times, bot containment, satisfaction and when visitors write (JSON or CSV)" },
  { name: "Privacy", description: "Erasing a contact (right to be forgotten) and each bot's retention period" },
];

/** Elysia's stand-in for an integer it may coerce from a query string: `string (format integer, default 0)`. */
const isCoercionBranch = (s: any) => s && s.type === "string" && s.format === "integer";

/**
 * Elysia documents every t.Integer as `anyOf [string (format integer, default 0), integer]`,
 * the shape it validates coerced query values with; readers saw `update_id: "0"` and
 * `limit` defaulting to 0. The document shows the integer the API speaks instead.
 */
function showIntegersAsIntegers(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) showIntegersAsIntegers(item);
    return;
  }
  if (!node || typeof node !== "object") return;
  const schema = node as Record<string, any>;
  if (Array.isArray(schema.anyOf) && schema.anyOf.length === 2 && isCoercionBranch(schema.anyOf[0]) && schema.anyOf[1]?.type === "integer") {
    const integer = schema.anyOf[1];
    delete schema.anyOf;
    Object.assign(schema, integer, { description: schema.description ?? integer.description });
    if (schema.description === undefined) delete schema.description;
  }
  for (const value of Object.values(schema)) showIntegersAsIntegers(value);
}

export const openApiDocs = () =>
  feature()
    .onRequest(({ request, set }) => {
      if (requestPath(request) === "/swagger") Object.assign(set.headers, pageHeaders(SWAGGER_CSP));
    })
    .onAfterHandle({ as: "global" }, ({ request, responseValue }) => {
      if (requestPath(request) === "/swagger/json") showIntegersAsIntegers(responseValue);
    })
    .get("/swagger/assets/:file", ({ params, status }) => {
      if (!SWAGGER_ASSETS.has(params.file)) return status(404, { ok: false, error: "asset not found", error_code: 404 });
      return Bun.file(join(SWAGGER_UI_DIR, params.file));
    }, { detail: { hide: true } })
    .use(
      openapi({
        path: "/swagger",
        specPath: "/swagger/json",
        provider: "swagger-ui",
        openapiVersion: "3.1.0",
        swagger: {
          cdn: "/swagger/assets/swagger-ui-bundle.js",
          theme: "/swagger/assets/swagger-ui.css",
          autoDarkMode: false,
        },
        exclude: { paths: [/^\/swagger/] },
        documentation: {
          info: {
            title: "Bot Messaging Platform API",
            version: "1.0.0",
            description:
              "Bots, channels, incoming messages from every channel into one operator inbox, and a runtime API modelled on the Telegram Bot API.",
          },
          tags: TAGS,
          components: {
            securitySchemes: {
              userBearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "User token from register/login" },
              botBearerAuth: { type: "http", scheme: "bearer", description: "Bot token `<number>:<secret>` from the bot card" },
            },
          },
        },
      }),
    );
