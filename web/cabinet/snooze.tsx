// Snooze: the conversation waits until a chosen time, then the server reopens it (also after
// a restart). Shown beside the status in the conversation's header.
import { useState } from "preact/hooks";
import { patch, type InboxConversation } from "./api.ts";
import { errorText, formatTime, toast } from "./ui.tsx";

const HOUR = 3_600_000;

/** Tomorrow at 09:00 local time: "remind me tomorrow". */
function tomorrowMorning(now = new Date()): Date {
  const at = new Date(now);
  at.setDate(at.getDate() + 1);
  at.setHours(9, 0, 0, 0);
  return at;
}

const CHOICES: [string, () => Date][] = [
  ["In 1 h", () => new Date(Date.now() + HOUR)],
  ["In 4 h", () => new Date(Date.now() + 4 * HOUR)],
  ["Tomorrow 9:00", () => tomorrowMorning()],
  ["Next week", () => new Date(tomorrowMorning().getTime() + 6 * 24 * HOUR)],
];

export function SnoozeControl({ conversation, saved }: { conversation: InboxConversation | undefined; saved: (c: InboxConversation) => void }) {
  const [custom, setCustom] = useState("");
  if (!conversation) return null;
  const until = conversation.status === "waiting" ? conversation.snoozed_until : null;
  const snooze = async (at: Date | null) => {
    try {
      const body = at ? { status: "waiting", snoozed_until: at.toISOString() } : { status: "open" };
      const updated = await patch<InboxConversation>(`/api/inbox/${conversation.id}`, body);
      saved(updated);
      toast(at ? `Snoozed until ${formatTime(at.toISOString())}` : "Reopened");
    } catch (err) {
      toast(errorText(err), "error");
    }
  };
  return (
    <div class="inline-field snooze">
      <label for="conv-snooze">Snooze</label>
      {until ? (
        <span class="snoozed">
          <span class="pill" title={new Date(until).toLocaleString()}>{`until ${formatTime(until)}`}</span>
          <button type="button" class="ghost small" onClick={() => void snooze(null)}>Wake now</button>
        </span>
      ) : (
        <select id="conv-snooze" value="" onChange={(e) => {
          const value = e.currentTarget.value;
          e.currentTarget.value = "";
          if (value === "custom") return setCustom(new Date(Date.now() + HOUR).toISOString().slice(0, 16));
          const choice = CHOICES.find(([label]) => label === value);
          if (choice) void snooze(choice[1]());
        }}>
          <option value="">Not snoozed</option>
          {CHOICES.map(([label]) => <option key={label} value={label}>{label}</option>)}
          <option value="custom">Pick a time…</option>
        </select>
      )}
      {custom && !until && (
        <form class="snooze-custom" onSubmit={(e) => {
          e.preventDefault();
          const at = new Date(custom);
          setCustom("");
          if (!Number.isNaN(at.getTime())) void snooze(at);
        }}>
          <input type="datetime-local" aria-label="Snooze until" value={custom} onInput={(e) => setCustom(e.currentTarget.value)} />
          <button type="submit" class="small">Snooze</button>
        </form>
      )}
    </div>
  );
}
