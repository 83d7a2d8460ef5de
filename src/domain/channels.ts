// A bot's channels as its owner configures them, and the typed reading of their configs:
// the widget's look and allowed origins, a callback channel's callback_url and secret, the
// e-mail channel's mail servers (domain/mail_channel.ts).
// Which channel does what is core/records.ts's CHANNELS; the config schema of each kind is here.
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { badRequest, forbidden, notFound } from "../core/errors.ts";
import { CHANNEL_TYPES, CHANNELS, type ChannelConfigKind, type ChannelType } from "../core/records.ts";
import { MAX_URL_LENGTH } from "../core/limits.ts";
import type { Queryable } from "../db/driver.ts";
import { findChannel, listChannels, upsertChannel, type DbChannel } from "../db/channels.ts";
import { findBotByWidgetKey } from "../db/bots.ts";
import { checkWebhookUrl } from "./webhooks.ts";
import { requireMember } from "./members.ts";
import type { BotDirectory } from "./directory.ts";
import { ImapConfig, prepareMailConfig, SmtpConfig, type MailChannelDeps } from "./mail_channel.ts";
import { maskMailConfig } from "../delivery/mail/config.ts";

/** Widget texts are shown in a small panel; longer ones would break its layout. */
export const MAX_WIDGET_TEXT_LENGTH = 200;
/** A greeting is one short paragraph. */
export const MAX_GREETING_LENGTH = 1000;
/** A site rarely embeds the widget on more origins than this. */
export const MAX_ALLOWED_ORIGINS = 50;
/** HMAC secrets: long enough to be strong, short enough to fit a header budget. */
export const MIN_CALLBACK_SECRET_LENGTH = 8;
export const MAX_CALLBACK_SECRET_LENGTH = 256;
export const DEFAULT_WIDGET_COLOR = "#2563eb";

export const HttpUrl = Type.String({
  format: "uri",
  pattern: "^[Hh][Tt][Tt][Pp][Ss]?://",
  maxLength: MAX_URL_LENGTH,
  description: "An http(s) URL",
});

/** Known keys are checked; other keys pass through for integrations' own use. */
export const WidgetConfig = Type.Object(
  {
    title: Type.Optional(Type.String({ maxLength: MAX_WIDGET_TEXT_LENGTH })),
    subtitle: Type.Optional(Type.String({ maxLength: MAX_WIDGET_TEXT_LENGTH })),
    greeting: Type.Optional(Type.String({ maxLength: MAX_GREETING_LENGTH })),
    color: Type.Optional(Type.String({ pattern: "^#[0-9a-fA-F]{6}$", description: "#rrggbb" })),
    position: Type.Optional(Type.Union([Type.Literal("left"), Type.Literal("right")])),
    allowed_origins: Type.Optional(
      Type.Array(Type.String({ pattern: "^https?://[^/\\s]+$", description: "scheme://host[:port]" }), { maxItems: MAX_ALLOWED_ORIGINS }),
    ),
  },
  { additionalProperties: true },
);
export type WidgetSettings = Static<typeof WidgetConfig>;

const RequireSignature = Type.Optional(Type.Boolean({
  description: "Accept only requests signed with `secret` (X-Signature, X-Signature-Timestamp; see the README's Security model). Off by default; recommended",
}));
const Secret = Type.Optional(Type.String({ minLength: MIN_CALLBACK_SECRET_LENGTH, maxLength: MAX_CALLBACK_SECRET_LENGTH }));

const CallbackConfig = Type.Object(
  { callback_url: Type.Optional(HttpUrl), secret: Secret, require_signature: RequireSignature },
  { additionalProperties: true },
);

/** The form plugin's channel: its server can sign what it posts, like the callback channels. */
const SiteFormConfig = Type.Object({ secret: Secret, require_signature: RequireSignature }, { additionalProperties: true });

/** The e-mail channel also answers by callback; its mailbox and sending server are its own. */
const EmailConfig = Type.Composite([
  CallbackConfig,
  Type.Object({ imap: Type.Optional(ImapConfig), smtp: Type.Optional(SmtpConfig) }),
], { additionalProperties: true });

const CONFIG_SCHEMAS: Record<ChannelConfigKind, TSchema | undefined> = {
  widget: WidgetConfig, callback: CallbackConfig, form: SiteFormConfig, email: EmailConfig, none: undefined,
};

/** A patch's keys set to null remove the stored ones; the rest is checked as given. */
const withoutNulls = (config: Record<string, unknown>) => Object.fromEntries(Object.entries(config).filter(([, v]) => v !== null));

/** A channel as its owner sees it (http/channels/model.ts declares the same shape). */
export interface Channel {
  channel_type: ChannelType;
  is_active: boolean;
  config: Record<string, unknown>;
  updated_at: string | null;
}

/** Rejects a config whose known keys have the wrong shape, naming the key. */
function validateChannelConfig(type: ChannelType, config: Record<string, unknown>): void {
  const schema = CONFIG_SCHEMAS[CHANNELS[type].config];
  if (!schema) return;
  const first = Value.Errors(schema, config).First();
  if (first) {
    const key = first.path.replace(/^\//, "").replace(/\//g, ".");
    throw badRequest(`config.${key}: ${first.message}`);
  }
}

/**
 * The widget's settings from a stored config: keys of the wrong shape (stored before a check
 * existed, or by hand) are left out, so readers only ever see typed values.
 */
function widgetSettings(config: Record<string, unknown> | undefined): WidgetSettings {
  const settings = typedKeys(WidgetConfig.properties, config) as WidgetSettings;
  // An origin list is never dropped whole for one bad entry: that would open the widget to every origin.
  const origins = config?.allowed_origins;
  if (Array.isArray(origins)) settings.allowed_origins = origins.filter((o): o is string => typeof o === "string");
  return settings;
}

function typedKeys(properties: Record<string, TSchema>, config: Record<string, unknown> | undefined): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(properties)) {
    const value = config?.[key];
    if (value !== undefined && Value.Check(schema, value)) settings[key] = value;
  }
  return settings;
}


const toChannel = (row: DbChannel): Channel => ({
  channel_type: row.channel_type as ChannelType,
  is_active: row.is_active,
  // Mail server passwords are write-only.
  config: CHANNELS[row.channel_type as ChannelType]?.config === "email" ? maskMailConfig(row.config) : row.config,
  updated_at: row.updated_at.toISOString(),
});

export type ChannelDeps = MailChannelDeps & { bots: BotDirectory };

/** All eight types, configured or not: a never-configured channel is active with `{}`. Owner only. */
export async function channelsOfBot(deps: ChannelDeps, userId: string, botId: string): Promise<Channel[]> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  const stored = new Map((await listChannels(deps.db, bot.id)).map((row) => [row.channel_type, row]));
  return CHANNEL_TYPES.map((type) => {
    const row = stored.get(type);
    return row ? toChannel(row) : { channel_type: type, is_active: true, config: {}, updated_at: null };
  });
}

export interface ChannelChange {
  channel_type: ChannelType;
  is_active?: boolean;
  config?: Record<string, unknown>;
}

/**
 * Owner only; config keys are merged into the stored ones (null removes a key). Public
 * requests in every process see the new state from now on.
 */
export async function updateChannel(deps: ChannelDeps, userId: string, botId: string, change: ChannelChange): Promise<Channel> {
  const bot = await requireMember(deps.db, userId, botId, "owner");
  let { config } = change;
  if (config !== undefined) {
    validateChannelConfig(change.channel_type, withoutNulls(config));
    // Mail servers are checked before passwords are sealed; a key set to null still removes it.
    if (CHANNELS[change.channel_type].config === "email") config = await prepareMailConfig(deps, bot.id, config);
    if (typeof config.callback_url === "string") await checkWebhookUrl(deps.config, config.callback_url, "config.callback_url");
    const merged = withoutNulls({ ...(await findChannel(deps.db, bot.id, change.channel_type))?.config, ...config });
    if (merged.require_signature === true && typeof merged.secret !== "string") {
      throw badRequest("config.require_signature needs config.secret: requests are signed with it");
    }
  }
  const channel = toChannel(await upsertChannel(deps.db, bot.id, change.channel_type, change.is_active ?? null, config ?? null));
  await deps.bots.changed(bot.id);
  return channel;
}

/** "https://Shop.example/" and "https://shop.example" are the same origin. */
const normaliseOrigin = (origin: string) => origin.trim().replace(/\/+$/, "").toLowerCase();

/** The widget's allowed origins, or undefined when it sets none (every origin may call). */
function allowedOrigins(settings: WidgetSettings): string[] | undefined {
  const origins = settings.allowed_origins?.map(normaliseOrigin);
  return origins?.length ? origins : undefined;
}

function requireListedOrigin(allowed: string[] | undefined, origin: string | null): void {
  if (origin === null || !allowed) return;
  if (!allowed.includes(normaliseOrigin(origin))) throw forbidden(`origin ${origin} is not in this widget's allowed_origins`);
}

/**
 * A browser on an origin the bot's widget config does not list is refused (403). Requests
 * without an Origin header (servers, curl) pass: the header only protects browsers, and
 * anything else could forge it anyway.
 */
export async function checkWidgetOrigin(deps: { bots: BotDirectory }, botId: string, origin: string | null): Promise<void> {
  if (origin === null) return;
  requireListedOrigin(allowedOrigins(widgetSettings((await deps.bots.channel(botId, "widget"))?.config)), origin);
}

export interface WidgetLook {
  bot_id: string;
  title: string;
  subtitle: string;
  greeting: string | null;
  color: string;
  position: "left" | "right";
  channel: "widget";
}

/** What the widget shows, from the widget channel's config with sensible defaults. */
export async function widgetLook(deps: { db: Queryable }, widgetKey: string, origin: string | null = null): Promise<WidgetLook> {
  // The Origin list is the widget channel's, which this reads anyway: checked here, after the
  // channel's own 404/403, rather than by the public-access check.
  const bot = await findBotByWidgetKey(deps.db, widgetKey);
  if (!bot) throw notFound("widget");
  const channel = await findChannel(deps.db, bot.id, "widget");
  if (channel && !channel.is_active) throw forbidden("the widget channel is disabled for this bot");
  const settings = widgetSettings(channel?.config);
  requireListedOrigin(allowedOrigins(settings), origin);
  return {
    bot_id: bot.id,
    title: settings.title ?? bot.name,
    subtitle: settings.subtitle ?? "",
    greeting: settings.greeting ?? null,
    color: settings.color ?? DEFAULT_WIDGET_COLOR,
    position: settings.position === "left" ? "left" : "right",
    channel: "widget",
  };
}
