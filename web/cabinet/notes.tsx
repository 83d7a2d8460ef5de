// Private notes in the reply box: a Reply / Private note switch, and the members a note
// mentions (they are notified). Notes show in the thread on a yellow, dashed background.
import { useEffect, useState } from "preact/hooks";
import { get, type AssignableMember } from "./api.ts";

export interface NoteState {
  on: boolean;
  mentions: string[];
}

export function NoteControls({ botId, state, change }: { botId: string | undefined; state: NoteState; change: (s: NoteState) => void }) {
  const [members, setMembers] = useState<AssignableMember[]>([]);
  useEffect(() => {
    if (state.on && botId && !members.length) get<AssignableMember[]>(`/api/bots/${botId}/assignees`).then(setMembers, () => {});
  }, [state.on, botId]);
  const toggle = (id: string) =>
    change({ ...state, mentions: state.mentions.includes(id) ? state.mentions.filter((m) => m !== id) : [...state.mentions, id] });
  return (
    <div class="note-controls">
      <div class="tabs" role="group" aria-label="Reply or private note">
        <button type="button" class="tab" aria-pressed={!state.on} onClick={() => change({ on: false, mentions: [] })}>To the visitor</button>
        <button type="button" class="tab" aria-pressed={state.on} onClick={() => change({ ...state, on: true })}>Private note</button>
      </div>
      {state.on && (
        <div class="mention-picker" role="group" aria-label="Mention">
          <span class="muted small">Mention:</span>
          {members.map((m) => (
            <label key={m.user_id} class="small">
              <input type="checkbox" checked={state.mentions.includes(m.user_id)} onChange={() => toggle(m.user_id)} />
              {`@${m.email}`}
            </label>
          ))}
        </div>
      )}
    </div>
  );
}
