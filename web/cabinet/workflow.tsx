// The bot page's Routing and Working hours sections (owner only): how conversations that
// need a human are shared out, and when the team answers (with the away message).
import { useEffect, useState } from "preact/hooks";
import { api, get } from "./api.ts";
import { errorText, toast } from "./ui.tsx";

type Mode = "off" | "round_robin" | "least_busy";
interface Routing {
  mode: Mode;
  capacity: number;
}
const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
type Day = (typeof DAYS)[number];
interface Hours {
  timezone: string;
  weekly: Record<Day, [string, string][]>;
  holidays: string[];
  away_message: string;
  open_now: boolean;
  configured: boolean;
}
const DAY_LABELS: Record<Day, string> = { mon: "Monday", tue: "Tuesday", wed: "Wednesday", thu: "Thursday", fri: "Friday", sat: "Saturday", sun: "Sunday" };

export function RoutingSection({ botId }: { botId: string }) {
  const [routing, setRouting] = useState<Routing | undefined>();
  const [error, setError] = useState("");
  useEffect(() => void get<Routing>(`/api/bots/${botId}/routing`).then(setRouting, (err) => setError(errorText(err))), [botId]);
  if (!routing) return <p class="muted small">{error || "Loading…"}</p>;
  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    try {
      setRouting(await api<Routing>("PUT", `/api/bots/${botId}/routing`, { body: routing }));
      toast("Routing saved");
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form onSubmit={save}>
      <p class="muted small">
        Conversations that need a person (a handoff, a takeover, or a bot without a backend) go to an online member with room for them.
      </p>
      <div class="field">
        <label for="routing-mode">Mode</label>
        <select id="routing-mode" value={routing.mode} onChange={(e) => setRouting({ ...routing, mode: e.currentTarget.value as Mode })}>
          <option value="off">Off: operators pick conversations</option>
          <option value="round_robin">Round robin</option>
          <option value="least_busy">Least busy</option>
        </select>
      </div>
      <div class="field">
        <label for="routing-capacity">Open conversations per member</label>
        <input id="routing-capacity" type="number" min={1} max={1000} value={routing.capacity}
          onInput={(e) => setRouting({ ...routing, capacity: Number(e.currentTarget.value) })} />
      </div>
      {error && <p class="form-error" role="alert">{error}</p>}
      <button type="submit" class="small">Save routing</button>
    </form>
  );
}

const intervalsText = (intervals: [string, string][]) => intervals.map(([a, b]) => `${a}-${b}`).join(", ");
function parseIntervals(text: string): [string, string][] {
  return text.split(",").map((s) => s.trim()).filter(Boolean).map((part) => {
    const [from = "", to = ""] = part.split("-").map((t) => t.trim());
    return [from.padStart(5, "0"), to.padStart(5, "0")];
  });
}

export function HoursSection({ botId }: { botId: string }) {
  const [hours, setHours] = useState<Hours | undefined>();
  const [days, setDays] = useState<Record<Day, string>>({} as Record<Day, string>);
  const [holidays, setHolidays] = useState("");
  const [error, setError] = useState("");
  const show = (h: Hours) => {
    setHours(h);
    setDays(Object.fromEntries(DAYS.map((d) => [d, intervalsText(h.weekly[d])])) as Record<Day, string>);
    setHolidays(h.holidays.join(", "));
  };
  useEffect(() => void get<Hours>(`/api/bots/${botId}/hours`).then((h) => {
    // Never set: start from the browser's zone and office hours.
    if (!h.configured) {
      h.timezone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      for (const d of DAYS) h.weekly[d] = d === "sat" || d === "sun" ? [] : [["09:00", "18:00"]];
    }
    show(h);
  }, (err) => setError(errorText(err))), [botId]);
  if (!hours) return <p class="muted small">{error || "Loading…"}</p>;
  const save = async (e: SubmitEvent) => {
    e.preventDefault();
    setError("");
    try {
      const body = {
        timezone: hours.timezone,
        weekly: Object.fromEntries(DAYS.map((d) => [d, parseIntervals(days[d] ?? "")])),
        holidays: holidays.split(/[,\s]+/).filter(Boolean),
        away_message: hours.away_message,
      };
      show(await api<Hours>("PUT", `/api/bots/${botId}/hours`, { body }));
      toast("Working hours saved");
    } catch (err) {
      setError(errorText(err));
    }
  };
  return (
    <form onSubmit={save}>
      <p class="muted small" role="status">
        {hours.configured ? (hours.open_now ? "Open now." : "Closed now: the widget shows the away message.") : "Not set: always open."}
      </p>
      <div class="field">
        <label for="hours-tz">Time zone</label>
        <input id="hours-tz" value={hours.timezone} onInput={(e) => setHours({ ...hours, timezone: e.currentTarget.value })} />
      </div>
      {DAYS.map((d) => (
        <div class="field" key={d}>
          <label for={`hours-${d}`}>{DAY_LABELS[d]}</label>
          <input id={`hours-${d}`} placeholder="closed (e.g. 09:00-13:00, 14:00-18:00)" value={days[d] ?? ""}
            onInput={(e) => setDays({ ...days, [d]: e.currentTarget.value })} />
        </div>
      ))}
      <div class="field">
        <label for="hours-holidays">Holidays (YYYY-MM-DD, comma separated)</label>
        <input id="hours-holidays" value={holidays} onInput={(e) => setHolidays(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="hours-away">Away message</label>
        <textarea id="hours-away" rows={2} maxLength={1000} value={hours.away_message}
          onInput={(e) => setHours({ ...hours, away_message: e.currentTarget.value })} />
      </div>
      {error && <p class="form-error" role="alert">{error}</p>}
      <button type="submit" class="small">Save hours</button>
    </form>
  );
}
