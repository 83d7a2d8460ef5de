// Presence (chosen and automatic, announced live), working hours with open_now, the widget's
// away state and the away message once per 12 hours.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ownerEventsSubject } from "../../src/core/subjects.ts";
import { isOpenAt, localTime, nextOpening } from "../../src/domain/hours.ts";
import { openCabinet } from "../../src/domain/presence.ts";
import { clientFor, registerUser, testClient, testPlatform, type Client } from "../support/harness.ts";
import { eventually } from "../support/eventually.ts";
import { ALWAYS_OPEN, NEVER_OPEN, put, teamOf, visitorSays } from "./support.ts";

let client: Client;
beforeAll(async () => {
  client = await testClient();
});
afterAll(async () => {
  await client.platform.close();
});

describe("presence", () => {
  test("a member's choice shows in member records and reaches the team live; bad values are 400", async () => {
    const { owner, operators: [operator], bot } = await teamOf(client, 1);
    const seen: any[] = [];
    const leave = await client.platform.bus.subscribe(ownerEventsSubject(owner.id), (data: any) => {
      if (data.kind === "presence_changed") seen.push(data);
    });
    try {
      const before = await client.get("/api/me/presence", operator!.token);
      expect(before.body.result).toEqual({ user_id: operator!.id, status: "offline", choice: null });

      const away = await put(client, "/api/me/presence", { status: "away" }, operator!.token);
      expect(away.status).toBe(200);
      expect(away.body.result).toMatchObject({ status: "away", choice: "away" });
      const members = await client.get(`/api/bots/${bot.id}/members`, owner.token);
      expect(members.body.result.find((m: any) => m.user_id === operator!.id).presence).toBe("away");
      const assignees = await client.get(`/api/bots/${bot.id}/assignees`, operator!.token);
      expect(assignees.body.result.map((m: any) => m.presence).sort()).toEqual(["away", "offline"]);
      await eventually("the away notice on the bus", () => seen.some((e) => e.bot_id === bot.id && e.user_id === operator!.id && e.presence === "away"));

      expect((await put(client, "/api/me/presence", { status: "busy" }, operator!.token)).status).toBe(400);
      expect((await put(client, "/api/me/presence", {}, operator!.token)).status).toBe(400);
      expect((await client.request("PUT", "/api/me/presence", { body: { status: "online" } })).status).toBe(401);
    } finally {
      leave();
    }
  });

  test("an open cabinet makes an automatic member online until it closes; a chosen away wins over it", async () => {
    const { owner, operators: [operator], bot } = await teamOf(client, 1);
    const presenceOf = async () =>
      (await client.get(`/api/bots/${bot.id}/members`, owner.token)).body.result.find((m: any) => m.user_id === operator!.id).presence;
    expect(await presenceOf()).toBe("offline");
    const close = openCabinet(client.wiring, operator!.id);
    await eventually("online with a cabinet open", async () => (await presenceOf()) === "online");
    await put(client, "/api/me/presence", { status: "away" }, operator!.token);
    expect(await presenceOf()).toBe("away");
    await put(client, "/api/me/presence", { status: "auto" }, operator!.token);
    expect(await presenceOf()).toBe("online");
    close();
    await eventually("offline once it closed", async () => (await presenceOf()) === "offline");
  });
});

describe("working hours", () => {
  test("the owner sets hours; GET adds open_now; operators may neither read nor change them", async () => {
    const { owner, operators: [operator], bot } = await teamOf(client, 1);
    const unset = await client.get(`/api/bots/${bot.id}/hours`, owner.token);
    expect(unset.body.result).toMatchObject({ open_now: true, configured: false });

    const body = { timezone: "Asia/Tokyo", weekly: ALWAYS_OPEN, holidays: [], away_message: "Back soon" };
    const set = await put(client, `/api/bots/${bot.id}/hours`, body, owner.token);
    expect(set.status).toBe(200);
    expect(set.body.result).toMatchObject({ timezone: "Asia/Tokyo", open_now: true, configured: true, away_message: "Back soon" });
    expect(set.body.result.weekly.mon).toEqual([["00:00", "24:00"]]);

    const closed = await put(client, `/api/bots/${bot.id}/hours`, { ...body, weekly: NEVER_OPEN }, owner.token);
    expect(closed.body.result.open_now).toBe(false);
    expect((await client.get(`/api/bots/${bot.id}/hours`, owner.token)).body.result.open_now).toBe(false);
    expect((await client.get(`/api/bots/${bot.id}/hours`, operator!.token)).status).toBe(403);

    expect((await put(client, `/api/bots/${bot.id}/hours`, body, operator!.token)).status).toBe(403);
    const stranger = await registerUser(client);
    expect((await client.get(`/api/bots/${bot.id}/hours`, stranger.token)).status).toBe(404);
    for (const bad of [
      { ...body, timezone: "Mars/Olympus" },
      { ...body, weekly: { mon: [["18:00", "09:00"]] } },
      { ...body, weekly: { mon: [["9:00", "18:00"]] } },
      { ...body, holidays: ["2026-13-01"] },
    ]) {
      const res = await put(client, `/api/bots/${bot.id}/hours`, bad, owner.token);
      expect(res.status).toBe(400);
      expect(res.body.ok).toBe(false);
    }
  });

  test("wall-clock hours follow daylight saving (injected clock)", async () => {
    const berlin = { timezone: "Europe/Berlin", weekly: { ...NEVER_OPEN, sun: [["03:00", "04:00"]] as [string, string][] }, holidays: [] };
    // 2026-03-29: at 01:00 UTC Berlin jumps from 02:00 CET to 03:00 CEST.
    expect(localTime("Europe/Berlin", new Date("2026-03-29T00:59:00Z")).time).toBe("01:59");
    expect(isOpenAt(berlin, new Date("2026-03-29T00:59:00Z"))).toBe(false);
    expect(isOpenAt(berlin, new Date("2026-03-29T01:00:00Z"))).toBe(true);
    // A week earlier (CET, UTC+1) 03:00 local is 02:00 UTC: a fixed offset would be an hour off.
    expect(isOpenAt(berlin, new Date("2026-03-22T01:30:00Z"))).toBe(false);
    expect(isOpenAt(berlin, new Date("2026-03-22T02:30:00Z"))).toBe(true);

    // New York, 09:00–18:00 on Mondays: 13:30 UTC is 09:30 in October (EDT), 08:30 in November (EST).
    const ny = { timezone: "America/New_York", weekly: { ...NEVER_OPEN, mon: [["09:00", "18:00"]] as [string, string][] }, holidays: ["2026-11-09"] };
    expect(isOpenAt(ny, new Date("2026-10-26T13:30:00Z"))).toBe(true);
    expect(isOpenAt(ny, new Date("2026-11-02T13:30:00Z"))).toBe(false);
    expect(isOpenAt(ny, new Date("2026-11-02T14:30:00Z"))).toBe(true);
    expect(isOpenAt(ny, new Date("2026-11-09T14:30:00Z"))).toBe(false); // a holiday
    expect(isOpenAt(ny, new Date("2026-10-26T22:00:00Z"))).toBe(false); // 18:00 is closed

    // When the team answers next: the first open minute, across the switch and past a holiday.
    expect(nextOpening(berlin, new Date("2026-03-29T00:30:00Z"))?.toISOString()).toBe("2026-03-29T01:00:00.000Z");
    expect(nextOpening(ny, new Date("2026-11-02T13:30:00Z"))?.toISOString()).toBe("2026-11-02T14:00:00.000Z");
    expect(nextOpening(ny, new Date("2026-11-02T23:00:00Z"))?.toISOString()).toBe("2026-11-16T14:00:00.000Z");
    expect(nextOpening({ ...ny, weekly: NEVER_OPEN }, new Date("2026-11-02T13:30:00Z"))).toBeNull();

    // The same through the API on a platform whose clock is injected at the spring-forward instant.
    let now = Date.parse("2026-03-29T00:59:00Z");
    const clocked = clientFor(await testPlatform({}, { now: () => now }));
    try {
      const { owner, bot } = await teamOf(clocked, 0);
      const set = await put(clocked, `/api/bots/${bot.id}/hours`, { ...berlin, away_message: "" }, owner.token);
      expect(set.body.result.open_now).toBe(false);
      now = Date.parse("2026-03-29T01:00:00Z");
      expect((await clocked.get(`/api/bots/${bot.id}/hours`, owner.token)).body.result.open_now).toBe(true);
    } finally {
      await clocked.platform.close();
    }
  });
});

describe("away state and the away message", () => {
  test("outside hours the widget says away, and a conversation that needs a human gets the away message once per 12 hours", async () => {
    const { owner, bot } = await teamOf(client, 0);
    await put(client, "/api/me/presence", { status: "online" }, owner.token);
    const look = await client.get(`/api/widget/config?widget_key=${bot.widget_key}`);
    expect(look.body.result.away).toBeUndefined();

    const away = "We're away until Monday 9:00.";
    await put(client, `/api/bots/${bot.id}/hours`, { timezone: "UTC", weekly: NEVER_OPEN, away_message: away }, owner.token);
    const awayLook = await client.get(`/api/widget/config?widget_key=${bot.widget_key}`);
    expect(awayLook.body.result).toMatchObject({ away: true, away_message: away, opens_at: null });
    // Closed now but open later today (or tomorrow): the widget can say when.
    const hour = new Date().getUTCHours();
    const later = `${String((hour + 2) % 24).padStart(2, "0")}:00`;
    const laterEnd = `${String((hour + 2) % 24).padStart(2, "0")}:30`;
    const daily = Object.fromEntries(Object.keys(NEVER_OPEN).map((d) => [d, [[later, laterEnd]]]));
    await put(client, `/api/bots/${bot.id}/hours`, { timezone: "UTC", weekly: daily, away_message: away }, owner.token);
    const opensAt = (await client.get(`/api/widget/config?widget_key=${bot.widget_key}`)).body.result.opens_at;
    const wait = Date.parse(opensAt) - Date.now();
    expect(wait).toBeGreaterThan(3_600_000);
    expect(wait).toBeLessThanOrEqual(2 * 3_600_000);
    expect(new Date(opensAt).getUTCMinutes()).toBe(0);
    await put(client, `/api/bots/${bot.id}/hours`, { timezone: "UTC", weekly: NEVER_OPEN, away_message: away }, owner.token);

    // The bot has no webhook and never polled: its conversations need a human.
    for (const text of ["Hello?", "Anyone there?", "Hello again"]) expect((await visitorSays(client, bot, "away-chat", text)).status).toBe(200);
    const history = async () =>
      (await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=away-chat`)).body.result as any[];
    const awayMessages = async () => (await history()).filter((m) => m.text === away);
    expect(await awayMessages()).toHaveLength(1);
    expect((await awayMessages())[0]).toMatchObject({ direction: "out", sender: "bot", metadata: { away_message: true } });

    // Twelve hours later the next visitor message gets it again.
    await client.platform.db.query(
      `update conversation_away_sent set sent_at = now() - interval '12 hours 1 minute'
       where conversation_id = (select id from conversations where bot_id = $1 and chat_id = 'away-chat')`,
      [bot.id],
    );
    await visitorSays(client, bot, "away-chat", "Still there?");
    expect(await awayMessages()).toHaveLength(2);
  });

  test("hours set after visitors already wrote: the next message that needs a human gets the away message", async () => {
    const { owner, bot } = await teamOf(client, 0);
    // The process has seen a visitor message of the bot while it had no hours (and remembers that).
    expect((await visitorSays(client, bot, "early-chat", "Hi")).status).toBe(200);
    const away = "Closed for today.";
    expect((await put(client, `/api/bots/${bot.id}/hours`, { timezone: "UTC", weekly: NEVER_OPEN, away_message: away }, owner.token)).status).toBe(200);
    expect((await visitorSays(client, bot, "late-chat", "Hello?")).status).toBe(200);
    const history = (await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=late-chat`)).body.result as any[];
    expect(history.map((m) => m.text)).toEqual(["Hello?", away]);
  });

  test("within hours with nobody online is away too; with someone online nothing is sent", async () => {
    const { owner, operators: [operator], bot } = await teamOf(client, 1);
    await put(client, "/api/me/presence", { status: "offline" }, owner.token);
    await put(client, "/api/me/presence", { status: "offline" }, operator!.token);
    await put(client, `/api/bots/${bot.id}/hours`, { timezone: "UTC", weekly: ALWAYS_OPEN, away_message: "Nobody here" }, owner.token);
    expect((await client.get(`/api/widget/config?widget_key=${bot.widget_key}`)).body.result).toMatchObject({ away: true, away_message: "Nobody here" });

    await put(client, "/api/me/presence", { status: "online" }, operator!.token);
    expect((await client.get(`/api/widget/config?widget_key=${bot.widget_key}`)).body.result).toMatchObject({ away: false, away_message: null });
    await visitorSays(client, bot, "staffed-chat", "Hi");
    const history = (await client.get(`/api/messages?widget_key=${bot.widget_key}&chat_id=staffed-chat`)).body.result as any[];
    expect(history.map((m) => m.text)).toEqual(["Hi"]);
  });
});
