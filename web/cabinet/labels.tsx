// Labels in the cabinet: chips on conversations, the inbox's label filter, the bulk action
// bar for ticked conversations, and the owner's label list on the bot page.
import { signal } from "@preact/signals";
import { useEffect, useState } from "preact/hooks";
import { del, get, post, type Status } from "./api.ts";
import type { InboxStore } from "./inbox-store.ts";
import { toast } from "./ui.tsx";

export interface Label {
  id: string;
  bot_id: string;
  name: string;
  color: string;
}

/** Labels per bot, fetched once per page life and refreshed after a change here. */
const labelsByBot = signal<ReadonlyMap<string, Label[]>>(new Map());
const loading = new Set<string>();

export function useLabels(botId: string | undefined): Label[] {
  useEffect(() => {
    if (botId && !labelsByBot.value.has(botId) && !loading.has(botId)) void reloadLabels(botId);
  }, [botId]);
  return (botId && labelsByBot.value.get(botId)) || [];
}

export async function reloadLabels(botId: string): Promise<void> {
  loading.add(botId);
  try {
    const list = await get<Label[]>(`/api/bots/${botId}/labels`);
    labelsByBot.value = new Map(labelsByBot.value).set(botId, list);
  } catch {
    // Not a member any more, or offline: no chips colours, names still show.
  } finally {
    loading.delete(botId);
  }
}

export function LabelChips({ botId, names }: { botId: string; names: readonly string[] | undefined }) {
  const labels = useLabels(botId);
  if (!names?.length) return null;
  return (
    <span class="label-chips">
      {names.map((name) => {
        const color = labels.find((l) => l.name === name)?.color ?? "#64748b";
        return <span key={name} class="label-chip" style={{ borderColor: color }}><i style={{ background: color }} aria-hidden="true" />{name}</span>;
      })}
    </span>
  );
}

/** The label filter: the selected bot's labels (labels belong to a bot). */
export function LabelFilter({ store }: { store: InboxStore }) {
  const labels = useLabels(store.bot.value || undefined);
  if (!store.bot.value) return null;
  return (
    <select aria-label="Label" value={store.label.value} onChange={(e) => store.setFilter("label", e.currentTarget.value)}>
      <option value="">Any label</option>
      {labels.map((l) => <option key={l.id} value={l.name}>{l.name}</option>)}
    </select>
  );
}

export function SelectBox({ store, id }: { store: InboxStore; id: string }) {
  const checked = store.selected.value.has(id);
  const toggle = () => {
    const next = new Set(store.selected.value);
    if (checked) next.delete(id);
    else next.add(id);
    store.selected.value = next;
  };
  return <input type="checkbox" class="conv-select" aria-label="Select conversation" checked={checked} onChange={toggle} />;
}

interface BulkResult {
  id: string;
  ok: boolean;
  error?: string;
}

/** Shown while conversations are ticked: status, assign to me, add or remove a label. */
export function BulkBar({ store, myId }: { store: InboxStore; myId: string | undefined }) {
  const ids = [...store.selected.value];
  const labels = useLabels(store.bot.value || store.items.value.get(ids[0] ?? "")?.bot_id);
  const [busy, setBusy] = useState(false);
  if (!ids.length) return null;
  const run = async (change: Record<string, unknown>) => {
    setBusy(true);
    try {
      const results = await post<BulkResult[]>("/api/inbox/bulk", { ids, ...change });
      const failed = results.filter((r) => !r.ok);
      toast(failed.length ? `${results.length - failed.length} changed, ${failed.length} not: ${failed[0]!.error}` : `${results.length} changed`, failed.length ? "error" : "ok");
      store.selected.value = new Set();
      await store.load();
    } catch (err) {
      toast((err as Error).message, "error");
    } finally {
      setBusy(false);
    }
  };
  const statuses: Status[] = ["open", "waiting", "closed"];
  return (
    <div class="bulk-bar" role="toolbar" aria-label="Bulk actions">
      <span>{`${ids.length} selected`}</span>
      <select aria-label="Set status" disabled={busy} value="" onChange={(e) => e.currentTarget.value && void run({ status: e.currentTarget.value })}>
        <option value="">Status…</option>
        {statuses.map((s) => <option key={s} value={s}>{s}</option>)}
      </select>
      {myId && <button type="button" class="ghost small" disabled={busy} onClick={() => void run({ assignee_id: myId })}>Assign to me</button>}
      <select aria-label="Add label" disabled={busy} value="" onChange={(e) => e.currentTarget.value && void run({ add_labels: [e.currentTarget.value] })}>
        <option value="">Add label…</option>
        {labels.map((l) => <option key={l.id} value={l.name}>{l.name}</option>)}
      </select>
      <select aria-label="Remove label" disabled={busy} value="" onChange={(e) => e.currentTarget.value && void run({ remove_labels: [e.currentTarget.value] })}>
        <option value="">Remove label…</option>
        {labels.map((l) => <option key={l.id} value={l.name}>{l.name}</option>)}
      </select>
      <button type="button" class="ghost small" onClick={() => (store.selected.value = new Set())}>Clear</button>
    </div>
  );
}

/** The owner's labels on the bot page: add with a colour, delete. */
export function LabelsSection({ botId, owner }: { botId: string; owner: boolean }) {
  const labels = useLabels(botId);
  const [name, setName] = useState("");
  const [color, setColor] = useState("#2563eb");
  const add = async (e: Event) => {
    e.preventDefault();
    try {
      await post(`/api/bots/${botId}/labels`, { name, color });
      setName("");
      await reloadLabels(botId);
    } catch (err) {
      toast((err as Error).message, "error");
    }
  };
  const remove = async (label: Label) => {
    try {
      await del(`/api/bots/${botId}/labels/${label.id}`);
      await reloadLabels(botId);
    } catch (err) {
      toast((err as Error).message, "error");
    }
  };
  return (
    <section class="card" aria-labelledby="labels-title">
      <h2 id="labels-title">Labels</h2>
      <ul class="label-list">
        {labels.map((l) => (
          <li key={l.id}>
            <LabelChips botId={botId} names={[l.name]} />
            {owner && <button type="button" class="ghost small" aria-label={`Delete label ${l.name}`} onClick={() => void remove(l)}>Delete</button>}
          </li>
        ))}
        {!labels.length && <li class="muted">No labels yet.</li>}
      </ul>
      {owner && (
        <form class="row" onSubmit={add}>
          <input aria-label="Label name" placeholder="billing" required maxLength={50} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <input type="color" aria-label="Label colour" value={color} onInput={(e) => setColor(e.currentTarget.value)} />
          <button type="submit">Add label</button>
        </form>
      )}
    </section>
  );
}
