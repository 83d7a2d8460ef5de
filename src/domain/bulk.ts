// Bulk changes on a selection of conversations: each id is checked and changed on its own
// (the caller may be a member of some bots and not others), and answers for itself.
import { AppError, badRequest } from "../core/errors.ts";
import type { Status } from "../core/records.ts";
import type { EventBus } from "../bus/bus.ts";
import { patchConversation } from "./inbox.ts";
import type { ConversationDeps } from "./conversations.ts";
import { relabel } from "./labels.ts";
import { requireMemberConversation } from "./members.ts";

/** Why: one request stays one short burst of writes; a larger selection is paged by the client. */
export const MAX_BULK_IDS = 100;

export interface BulkChange {
  ids: string[];
  status?: Status;
  assignee_id?: string | null;
  add_labels?: string[];
  remove_labels?: string[];
}

export interface BulkResult {
  id: string;
  ok: boolean;
  error?: string;
}

type BulkDeps = ConversationDeps & { bus: EventBus };

export async function bulkChange(deps: BulkDeps, userId: string, change: BulkChange): Promise<BulkResult[]> {
  if (change.ids.length > MAX_BULK_IDS) throw badRequest(`ids: at most ${MAX_BULK_IDS} per request`);
  const nothing = change.status === undefined && change.assignee_id === undefined && !change.add_labels?.length && !change.remove_labels?.length;
  if (nothing) throw badRequest("nothing to change: give status, assignee_id, add_labels or remove_labels");
  const results: BulkResult[] = [];
  for (const id of [...new Set(change.ids)]) {
    try {
      let row = await requireMemberConversation(deps.db, userId, id);
      if (change.status !== undefined || change.assignee_id !== undefined) {
        await patchConversation(deps, userId, id, { status: change.status, assignee_id: change.assignee_id });
      }
      if (change.add_labels?.length || change.remove_labels?.length) {
        row = await relabel(deps, row, { add: change.add_labels ?? [], remove: change.remove_labels ?? [] });
      }
      results.push({ id, ok: true });
    } catch (err) {
      // A refusal (not a member: 404, not a label: 400) is this id's answer; an outage is the request's.
      if (!(err instanceof AppError) || err.code === "unavailable") throw err;
      results.push({ id, ok: false, error: err.message });
    }
  }
  return results;
}
