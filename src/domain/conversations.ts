// The conversation write path: incoming messages are group-committed per bot (IntakeActor);
// every other change to a conversation is one ConversationActor message (one transaction)
// followed by the dispatch of its effects, here and nowhere else, so no caller can forget it.
// Intake (API, widget, form plugin), the bot's send/edit/delete, the operator's reply and
// status/note all go through this module.
import type { StoredFile } from "../core/files.ts";
import { ConversationActor, type Accepted } from "../actors/conversation.ts";
import { IntakeActor, type IntakeDeps } from "../actors/intake.ts";
import type { IncomingInput } from "../actors/intake-plan.ts";
import type { ActorSystem } from "../actors/system.ts";
import type { Effects } from "../core/events.ts";
import type { DbBot } from "../db/bots.ts";
import type { ConversationStatus, DbConversation, HandledBy } from "../db/conversations.ts";
import type { Formatted } from "../core/formatting/index.ts";
import type { RuntimeSender } from "../core/updates.ts";
import type { Db } from "../db/driver.ts";
import type { DbMessage } from "../db/messages.ts";
import type { PublishUpTo } from "../outbox/dispatch.ts";
import { unlinkFiles, type FileDeps } from "./files.ts";

/** What the conversation use cases need, and nothing more. */
export interface ConversationDeps {
  db: Db;
  actors: ActorSystem;
  /** Carries out a committed change's events and updates. */
  dispatch(effects: Effects): Promise<void>;
  publishOutbox: PublishUpTo;
  /** What the per-bot group commit of incoming messages needs. */
  intake: IntakeDeps;
}

type BotRef = Pick<DbBot, "id" | "owner_id">;

function conversationActor(deps: Pick<ConversationDeps, "db" | "actors">, botId: string, chatId: string) {
  return deps.actors.actorOf("conversation", `${botId}:${chatId}`, () => new ConversationActor(deps.db, botId, chatId));
}

/** A message from a person, whatever the channel: stored once, its update durable before it is acknowledged. */
export async function takeIn(deps: ConversationDeps, chatId: string, input: IncomingInput): Promise<Accepted> {
  const botId = input.bot.id;
  const intake = deps.actors.actorOf("intake", botId, () => new IntakeActor(deps.intake, botId));
  const { accepted } = await intake.ask((actor) => actor.submit({ chatId, input }));
  const result = await accepted;
  // The first attempt may have committed and then failed to publish (NATS away, a crash):
  // a repeat is acknowledged only once the bot's committed updates are durable in the log.
  if (result.repeated) await deps.publishOutbox(botId);
  return result;
}

/** The bot's message into an existing chat (moves new → open, reaches the channel and live views). */
export async function sendFromBot(
  deps: ConversationDeps, bot: BotRef, chatId: string, text: Formatted, replyMarkup: Record<string, unknown> | null,
  metadata: Record<string, unknown> = {}, attachments: StoredFile[] = [],
): Promise<{ message: DbMessage; conversation: DbConversation }> {
  const { message, conversation, effects } = await conversationActor(deps, bot.id, chatId).ask((actor) =>
    actor.storeOutgoing(bot, "bot", text.text, replyMarkup, metadata, false, text.entities, attachments),
  );
  await deps.dispatch(effects);
  return { message, conversation };
}

export async function editFromBot(
  deps: ConversationDeps, bot: BotRef, conversation: DbConversation, message: DbMessage, text: Formatted, replyMarkup: Record<string, unknown> | null,
): Promise<DbMessage> {
  const { message: edited, effects } = await conversationActor(deps, bot.id, conversation.chat_id).ask((actor) =>
    actor.editText(bot, conversation, message, text.text, replyMarkup, text.entities),
  );
  await deps.dispatch(effects);
  return edited;
}

/** The deleted message's files go at once unless another live message shows them. */
export async function deleteFromBot(deps: ConversationDeps & FileDeps, bot: BotRef, conversation: DbConversation, message: DbMessage): Promise<void> {
  const { effects } = await conversationActor(deps, bot.id, conversation.chat_id).ask((actor) => actor.deleteMessage(bot, conversation, message));
  await deps.dispatch(effects);
  // Committed: a failure here only leaves the files to the sweep, which finds them unshown.
  await unlinkFiles(deps, message.attachments).catch(() => undefined);
}

/** A visitor's button press: the callback_query id, or null when a human handles the chat (no update). */
export async function pressButton(
  deps: ConversationDeps, bot: BotRef, sender: RuntimeSender, conversation: DbConversation, message: DbMessage,
  button: { data: string; label: string },
): Promise<string | null> {
  const { callbackQueryId, effects } = await conversationActor(deps, bot.id, conversation.chat_id).ask((actor) =>
    actor.recordPress(bot, sender, message, { ...button, id: crypto.randomUUID().replaceAll("-", "") }),
  );
  await deps.dispatch(effects);
  return callbackQueryId;
}

/** Handoff: a human takes the conversation over (byUserId null: the bot handed it over) or gives it back. */
export async function setHandledBy(deps: ConversationDeps, conversation: DbConversation, handledBy: HandledBy, byUserId: string | null) {
  const bot = { id: conversation.bot_id, owner_id: conversation.owner_id };
  const { conversation: after, effects } = await conversationActor(deps, bot.id, conversation.chat_id).ask((actor) =>
    actor.setHandler(bot, conversation.id, handledBy, byUserId),
  );
  await deps.dispatch(effects);
  return after;
}

/** The operator's reply: reported to the bot as an operator_message update, and to a callback channel. */
export async function replyAsOperator(
  deps: ConversationDeps, conversation: DbConversation, text: string, attachments: StoredFile[] = [], metadata: Record<string, unknown> = {},
) {
  // The conversation row already names the bot and its owner: all storeOutgoing needs.
  const bot = { id: conversation.bot_id, owner_id: conversation.owner_id };
  const { message, conversation: after, effects, callbackQueued } = await conversationActor(deps, bot.id, conversation.chat_id).ask((actor) =>
    actor.storeOutgoing(bot, "operator", text, null, metadata, true, null, attachments),
  );
  await deps.dispatch(effects);
  return { message, conversation: after, callbackQueued };
}

/** The operator's status move and/or note. */
export async function setStatusAndNote(
  deps: ConversationDeps, conversation: DbConversation, status: ConversationStatus | null, note: string | null,
) {
  const bot = { id: conversation.bot_id, owner_id: conversation.owner_id };
  const { effects, ...result } = await conversationActor(deps, bot.id, conversation.chat_id).ask((actor) =>
    actor.patchMeta(bot, conversation.id, status, note),
  );
  await deps.dispatch(effects);
  return result;
}
