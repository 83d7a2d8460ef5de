// A support team's day: the member's presence, each bot's routing and working hours.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature, oneOf } from "../feature.ts";
import { BotIdParams } from "../bots/model.ts";
import { MAX_AWAY_MESSAGE_LENGTH, MAX_HOLIDAYS, MAX_INTERVALS_PER_DAY } from "../../domain/hours.ts";
import { MAX_CAPACITY, ROUTING_MODES } from "../../domain/routing.ts";

const PresenceStatus = oneOf(["online", "away", "offline"]);

export const PresenceRequest = t.Object(
  {
    status: oneOf(["online", "away", "offline", "auto"], {
      description: "online, away or offline as chosen; `auto` clears the choice (online while a cabinet is open, offline otherwise)",
    }),
  },
  { title: "PresenceRequest", examples: [{ status: "away" }] },
);

export const MyPresence = t.Object(
  {
    user_id: t.String({ format: "uuid" }),
    status: PresenceStatus,
    choice: t.Union([PresenceStatus, t.Null()], { description: "What the member chose; null: automatic" }),
  },
  { title: "Presence", examples: [{ user_id: "6f1c1f5e-2b7a-4f43-9a65-0b6a5c7e9d11", status: "away", choice: "away" }] },
);

export const RoutingRequest = t.Object(
  {
    mode: oneOf(ROUTING_MODES, { description: "off, round_robin (the member routed to longest ago) or least_busy (fewest open conversations)" }),
    capacity: t.Optional(t.Integer({ minimum: 1, maximum: MAX_CAPACITY, description: "Open (new or open) conversations one member is routed at most" })),
  },
  { title: "RoutingRequest", examples: [{ mode: "round_robin", capacity: 3 }] },
);

export const Routing = t.Object(
  {
    bot_id: t.String({ format: "uuid" }),
    mode: oneOf(ROUTING_MODES),
    capacity: t.Integer({ minimum: 1 }),
    updated_at: t.Union([t.String({ format: "date-time" }), t.Null()]),
  },
  { title: "Routing", examples: [{ bot_id: "6f1c2d8e-3b4a-4c5d-9e8f-0a1b2c3d4e5f", mode: "least_busy", capacity: 3, updated_at: "2026-11-24T09:00:00.000Z" }] },
);

const Interval = t.Tuple([t.String({ pattern: "^\\d\\d:\\d\\d$" }), t.String({ pattern: "^\\d\\d:\\d\\d$" })], { description: '["HH:MM", "HH:MM"] local time, end excluded; 24:00 ends a day' });
const Day = t.Array(Interval, { maxItems: MAX_INTERVALS_PER_DAY });
const weekProps = { mon: t.Optional(Day), tue: t.Optional(Day), wed: t.Optional(Day), thu: t.Optional(Day), fri: t.Optional(Day), sat: t.Optional(Day), sun: t.Optional(Day) };
const weekRequired = { mon: Day, tue: Day, wed: Day, thu: Day, fri: Day, sat: Day, sun: Day };

const HOURS_EXAMPLE = {
  timezone: "Europe/Berlin",
  weekly: { mon: [["09:00", "18:00"]], tue: [["09:00", "18:00"]], wed: [["09:00", "18:00"]], thu: [["09:00", "18:00"]], fri: [["09:00", "16:00"]], sat: [], sun: [] },
  holidays: ["2026-12-25", "2026-12-26"],
  away_message: "We're away right now and answer from 9:00 (Berlin time).",
};

export const HoursRequest = t.Object(
  {
    timezone: t.String({ minLength: 1, maxLength: 64, description: "IANA time zone name" }),
    weekly: t.Object(weekProps, { description: "Intervals per weekday; a missing day is closed" }),
    holidays: t.Optional(t.Array(t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }), { maxItems: MAX_HOLIDAYS, description: "Closed all day (local dates)" })),
    away_message: t.Optional(t.String({ maxLength: MAX_AWAY_MESSAGE_LENGTH, description: "Sent to a conversation that needs a human when the team is away, once per 12 hours" })),
  },
  { title: "HoursRequest", examples: [HOURS_EXAMPLE] },
);

export const Hours = t.Object(
  {
    timezone: t.String(),
    weekly: t.Object(weekRequired),
    holidays: t.Array(t.String()),
    away_message: t.String(),
    open_now: t.Boolean({ description: "Within the hours now (always true while none are set)" }),
    configured: t.Boolean({ description: "false until the owner sets hours" }),
  },
  { title: "Hours", examples: [{ ...HOURS_EXAMPLE, open_now: true, configured: true }] },
);

const OWNER_ONLY = "Owner only: an operator gets 403, a non-member 404.";

const presenceRoutes = (services: Services) =>
  feature({ prefix: "/api/me", tags: ["Team"] })
    .use(userAuth(services))
    .get("/presence", async ({ user }) => ok(await services.teamwork.myPresence(user)), {
      user: true,
      response: { 200: Ok(MyPresence, "The caller's presence"), ...errors(401) },
      detail: { summary: "The caller's presence", description: "online, away or offline, and whether it was chosen or is automatic." },
    })
    .put("/presence", async ({ user, body }) => ok(await services.teamwork.setPresence(user, body.status)), {
      user: true,
      body: PresenceRequest,
      response: { 200: Ok(MyPresence, "The caller's presence now"), ...errors(400, 401) },
      detail: {
        summary: "Set the caller's presence",
        description:
          "Every member of the caller's bots sees the change live (`presence_changed` on the inbox stream); member records carry " +
          "`presence`. Routing assigns only to online members. `auto`: online while a cabinet (inbox stream) is open.",
      },
    });

const botRoutes = (services: Services) =>
  feature({ prefix: "/api/bots", tags: ["Team"] })
    .use(userAuth(services))
    .get("/:id/routing", async ({ user, params }) => ok(await services.teamwork.routing(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(Routing, "The bot's routing"), ...errors(400, 401, 403, 404) },
      detail: { summary: "The bot's routing", description: `${OWNER_ONLY} Mode off until the owner sets it.` },
    })
    .put("/:id/routing", async ({ user, params, body }) => ok(await services.teamwork.setRouting(user, params.id, body)), {
      user: true,
      params: BotIdParams,
      body: RoutingRequest,
      response: { 200: Ok(Routing, "The bot's routing now"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Route conversations that need a human",
        description:
          `${OWNER_ONLY} A conversation needs a human after a bot handoff or an operator takeover, or when the bot has no backend ` +
          "(no webhook and no get-updates poll in the last 5 minutes). When a visitor writes (or the need arises) and it has no assignee, it " +
          "goes to an online member with fewer than `capacity` new or open conversations of this bot assigned; nobody free: it waits and is " +
          "routed when someone is. An assignee offline for ROUTING_REASSIGN_AFTER_S loses it to someone online. One decision per conversation " +
          "across every process.",
      },
    })
    .get("/:id/hours", async ({ user, params }) => ok(await services.teamwork.hours(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(Hours, "The bot's working hours with open_now"), ...errors(400, 401, 403, 404) },
      detail: { summary: "The bot's working hours", description: `${OWNER_ONLY} Without hours set the bot counts as always open.` },
    })
    .put("/:id/hours", async ({ user, params, body }) => ok(await services.teamwork.setHours(user, params.id, body as never)), {
      user: true,
      params: BotIdParams,
      body: HoursRequest,
      response: { 200: Ok(Hours, "The bot's working hours now"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Set the bot's working hours and away message",
        description:
          `${OWNER_ONLY} Times are wall-clock times in \`timezone\` (daylight saving is followed). Outside them, on a holiday, or ` +
          "with no member online, the widget shows the away state (widget config `away`, `away_message`) and a conversation that " +
          "needs a human gets `away_message` as a bot message, once per 12 hours.",
      },
    });

export const workflowRoutes = (services: Services) => feature().use(presenceRoutes(services)).use(botRoutes(services));
