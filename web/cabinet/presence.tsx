// Presence in the cabinet: the header's switch (online, away, offline, or automatic: online
// while this cabinet is open), and dots that show each teammate's presence, kept live by the
// inbox stream's `presence_changed` events.
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { api, get, session, type AssignableMember } from "./api.ts";
import type { LiveFeed } from "./live.ts";
import { errorText, toast } from "./ui.tsx";
import { isPassing, keepLoading } from "./retry.ts";

export type Presence = "online" | "away" | "offline";
type Choice = Presence | "auto";
interface MyPresence {
  user_id: string;
  status: Presence;
  choice: Presence | null;
}

/** Every presence the cabinet has seen, by user id: lists seed it, the live feed updates it. */
export const presences = signal<ReadonlyMap<string, Presence>>(new Map());

export function notePresence(userId: string, presence: Presence): void {
  if (presences.value.get(userId) === presence) return;
  presences.value = new Map(presences.value).set(userId, presence);
}

/** Follows presence changes on the live feed (once, for the whole cabinet). */
export function watchPresence(live: LiveFeed): () => void {
  return live.on((event) => {
    if (event.kind === "presence_changed") notePresence(event.user_id, event.presence);
  });
}

const LABELS: Record<Presence, string> = { online: "Online", away: "Away", offline: "Offline" };

/** Its accessible name is the presence alone (the member's name stands beside it); the tooltip names both. */
export function PresenceDot({ userId, email }: { userId: string; email?: string }) {
  const presence = presences.value.get(userId) ?? "offline";
  const title = `${email ?? "Member"}: ${LABELS[presence]}`;
  return <span class={`presence-dot ${presence}`} role="img" aria-label={LABELS[presence]} title={title} data-presence={presence} data-member={email} />;
}

/** The header's switch: what the operator chose, or automatic. */
export function PresenceSwitch() {
  const [mine, setMine] = useState<MyPresence | undefined>();
  useEffect(() => {
    let alive = true;
    get<MyPresence>("/api/me/presence").then((p) => alive && (setMine(p), notePresence(p.user_id, p.status)), () => undefined);
    return () => void (alive = false);
  }, [session.token]);
  // The stream opening turns an automatic member online: the switch follows what the team sees.
  const shown = mine ? presences.value.get(mine.user_id) ?? mine.status : "offline";
  const change = async (choice: Choice) => {
    try {
      const p = await api<MyPresence>("PUT", "/api/me/presence", { body: { status: choice } });
      setMine(p);
      notePresence(p.user_id, p.status);
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  return (
    <label class="presence-switch">
      <span class={`presence-dot ${shown}`} aria-hidden="true" />
      <select aria-label="Your presence" value={mine?.choice ?? "auto"} onChange={(e) => void change(e.currentTarget.value as Choice)}>
        <option value="auto">{`Auto (${LABELS[shown]})`}</option>
        <option value="online">Online</option>
        <option value="away">Away</option>
        <option value="offline">Offline</option>
      </select>
    </label>
  );
}

/** The inbox's team strip: everyone on the caller's bots with a live dot. */
export function TeamPresence({ botIds }: { botIds: string[] }) {
  const [team, setTeam] = useState<AssignableMember[]>([]);
  const key = botIds.join(",");
  // A bot this user can no longer see adds nobody; a failure that passes asks all of them again.
  useEffect(() => keepLoading(async (stopped) => {
    const lists = await Promise.all(botIds.slice(0, 20).map((id) => get<AssignableMember[]>(`/api/bots/${id}/assignees`).catch((err: unknown) => {
      if (isPassing(err)) throw err;
      return [];
    })));
    if (stopped()) return;
    const byId = new Map<string, AssignableMember>();
    for (const m of lists.flat()) byId.set(m.user_id, m);
    for (const m of byId.values()) notePresence(m.user_id, m.presence);
    setTeam([...byId.values()].sort((a, b) => a.email.localeCompare(b.email)));
  }), [key]);
  if (team.length === 0) return null;
  return (
    <ul class="team-presence" aria-label="Team presence">
      {team.map((m) => (
        <li key={m.user_id}><PresenceDot userId={m.user_id} email={m.email} /><span class="clip">{m.email.split("@")[0]}</span></li>
      ))}
    </ul>
  );
}
