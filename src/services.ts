// The composition: turns an open Platform (connections, logs, counters) into the services the
// HTTP front and the workers call. Every use case is `services.<area>.<verb>(caller, input…)`,
// the caller first: the signed-in user, the bot a token names, or the bot a public request
// names. Permission checks happen in the domain functions these bind, never in the callers.
import * as apiTokens from "./domain/api_tokens.ts";
import * as eventWebhooks from "./domain/event_webhooks.ts";
import { randomUUID } from "node:crypto";
import type { Platform } from "./platform.ts";
import { SecretBox } from "./secrets.ts";
import { ActorSystem } from "./actors/system.ts";
import type { BotActorDeps } from "./actors/bot.ts";
import type { IntakeDeps } from "./actors/intake.ts";
import { IntakeCommitter } from "./actors/intake-committer.ts";
import type { DbBot } from "./db/bots.ts";
import { botDirectory, type BotDirectory } from "./domain/directory.ts";
import type { ConversationDeps } from "./domain/conversations.ts";
import * as accounts from "./domain/accounts.ts";
import * as sessions from "./domain/sessions.ts";
import * as bots from "./domain/bots.ts";
import * as channels from "./domain/channels.ts";
import * as members from "./domain/members.ts";
import * as inbox from "./domain/inbox.ts";
import * as inboxState from "./domain/inbox_state.ts";
import * as intake from "./domain/intake.ts";
import * as runtime from "./domain/runtime.ts";
import { pollParkedHere } from "./actors/bot.ts";
import * as webhooks from "./domain/webhooks.ts";
import * as pushSubscriptions from "./domain/push_subscriptions.ts";
import { answerCallbackQuery, pressInlineButton } from "./domain/buttons.ts";
import { botHandoff, operatorHandoff } from "./domain/handoff.ts";
import { chatFeed, type ChatFeedQuery, type FeedClient } from "./domain/chat_feed.ts";
import { inboxFeed, type FeedDeps } from "./domain/inbox_feed.ts";
import { requestLimits } from "./domain/limits.ts";
import type { SignedRequest } from "./domain/visitor.ts";
import { callMethod } from "./telegram/methods.ts";
import { storePart } from "./telegram/media.ts";
import * as files from "./domain/file_access.ts";
import { telegramDelivery } from "./telegram/delivery.ts";
import type { TelegramDeps } from "./telegram/deps.ts";
import type { Params } from "./telegram/model.ts";
import { startDeliveryWorker, type WorkerOptions } from "./delivery/worker.ts";
import { consumeForPush } from "./delivery/push.ts";
import { startMailWorker, type MailWorkerOptions } from "./delivery/mail/worker.ts";
import type { PlatformMailer } from "./delivery/mail/mailer.ts";
import * as mail from "./domain/mail.ts";
import * as mailChannel from "./domain/mail_channel.ts";
import * as passwordReset from "./domain/password-reset.ts";
import * as labels from "./domain/labels.ts";
import * as notes from "./domain/notes.ts";
import * as bulk from "./domain/bulk.ts";
import * as contacts from "./domain/contacts.ts";
import * as presence from "./domain/presence.ts";
import * as routing from "./domain/routing.ts";
import * as hours from "./domain/hours.ts";
import { afterBotHandoff, afterVisitorMessage, startTeamworkScan } from "./domain/teamwork.ts";
import * as reports from "./domain/reports.ts";
import * as reportCsv from "./domain/report_csv.ts";
import { rateConversation, type RatingRequest } from "./domain/ratings.ts";
import * as identity from "./domain/identity.ts";
import * as erasure from "./domain/erasure.ts";

/** Who calls: the signed-in user (a user token). */
export interface Caller {
  id: string;
  /** Their address: an invite mailed in their name says who sent it. */
  email: string;
}

/**
 * What the use cases run on, built once per platform: the actors, the public bot directory,
 * the token box and the pre-wired dependencies of the intake and bot actors.
 */
export interface Wiring extends TelegramDeps, FeedDeps {
  secretBox: SecretBox;
  bots: BotDirectory;
  publicUrl: string;
  /** The platform's own mail (SMTP_URL): password reset links, invites. */
  mailer: PlatformMailer;
}

export function wire(platform: Platform): Wiring {
  const { config, db, bus, logger, outbox } = platform;
  const actors = new ActorSystem({ onError: (name, err) => logger.error({ err, actor: name }, "actor message failed") });
  const directory = botDirectory(db, bus, platform.now);
  const botDeps: BotActorDeps = {
    log: platform.updates, bus, instanceId: randomUUID(), rateLimits: config.rateLimits,
    sendPerSecond: config.limits.botSendPerSecond, stopping: platform.stopping, now: platform.now,
  };
  const intakeDeps: IntakeDeps = {
    committer: new IntakeCommitter({ db, logInTransaction: outbox.logInTransaction, inFlight: config.intakeTransactions }),
    publishUpdates: outbox.publishUpdates,
    forgetPublished: outbox.forgetPublished,
    publishEvents: (effects) => void outbox.dispatch(effects),
    // Only a bot with an actor here can have a poll parked here; no actor is made for this.
    committed: (botId, updates) => {
      if (!actors.has("bot", botId)) return false;
      const date = Math.floor(Date.now() / 1000);
      const ready = updates.map((u) => ({ update_id: u.updateId, payload: u.payload, json: u.json, date }));
      runtime.botActor({ actors, botDeps }, botId).tell((actor) => actor.offerCommitted(ready));
      return pollParkedHere(botDeps, botId);
    },
    logInTransaction: outbox.logInTransaction,
    turnBetweenBatches: db.kind === "pglite",
  };
  platform.onClose(async () => {
    directory.close();
    await actors.close();
  });
  const conversation: ConversationDeps = { db, actors, dispatch: outbox.dispatch, publishOutbox: outbox.publishUpTo, intake: intakeDeps };
  return {
    ...conversation, config, bus, logger, botDeps, updates: platform.updates, stopping: platform.stopping, files: platform.files,
    secretBox: new SecretBox(platform.jwtSecret), bots: directory, publicUrl: config.publicUrl, mailer: platform.mailer,
  };
}

export function composeServices(platform: Platform, w: Wiring = wire(platform)) {
  const { db } = w;
  const limits = requestLimits(platform.limiter, platform.config.limits);
  const teamworkDeps = { ...w, now: platform.now };
  /** Routing and the away message after a visitor wrote: the message is accepted whatever they do. */
  const teamworkAfter = async <T extends { conversation_id: string }>(bot: DbBot, accepted: T): Promise<T> => {
    await afterVisitorMessage(teamworkDeps, bot, accepted.conversation_id)
      .catch((err: unknown) => w.logger.warn({ err: String(err), conversation_id: accepted.conversation_id }, "routing after a visitor message failed"));
    return accepted;
  };
  return {
    /** Tells apart the plugin instances of two compositions in one process (tests). */
    id: randomUUID(),
    config: platform.config,
    log: platform.logger,
    limits,
    auth: {
      /** HS256 key the HTTP front signs and checks user tokens with. */
      tokenKey: platform.jwtSecret,
      register: (email: string, password: string) => accounts.register(db, email, password),
      login: (email: string, password: string, ip: string) => {
        accounts.limitLogin(platform.limiter, platform.config.limits, email, ip);
        return accounts.login(db, email, password);
      },
      /** Every older token stops working, and the streams they opened end now, in every process. */
      changePassword: async (user: Caller, current: string, next: string) => {
        const changed = await accounts.changePassword(db, platform.limiter, platform.config.limits, user.id, current, next);
        await sessions.announceRevocation(w.bus, user.id);
        return changed;
      },
      userOfSession: (userId: string, claims: sessions.SessionClaims) => sessions.userOfSession(db, userId, claims),
      logOut: (user: Caller, claims: sessions.SessionClaims) => sessions.logOut(db, w.bus, user.id, claims),
      /** Whether reset links can be mailed at all (SMTP_URL); the same for every address. */
      resetByMail: () => w.mailer.configured,
      /** Counted per client and per address before anything else; answers the same for every address. */
      requestReset: (email: string, ip: string) => {
        const account = email.trim().toLowerCase();
        limits.passwordReset(ip, account);
        return passwordReset.requestPasswordReset(w, account);
      },
      /** Every older token stops working, and the streams they opened end now, in every process. */
      confirmReset: async (token: string, password: string) => {
        const reset = await passwordReset.confirmPasswordReset(w, token, password);
        await sessions.announceRevocation(w.bus, reset.user.id);
        return reset;
      },
    },
    /** Personal API tokens: a user's scripts and integrations call user-token endpoints within the token's scopes. */
    tokens: {
      create: (user: Caller, input: { name: string; scopes: string[]; expires_at?: string }) => apiTokens.createApiToken(db, user.id, input),
      list: (user: Caller) => apiTokens.listUserApiTokens(db, user.id),
      /** Streams the token opened end now, in every process. */
      revoke: async (user: Caller, id: string) => {
        const done = await apiTokens.revokeUserApiToken(db, user.id, id);
        await sessions.announceRevocation(w.bus, user.id);
        return done;
      },
      userOf: (token: string, method: string, path: string) => apiTokens.userOfApiToken(db, token, method, path),
    },
    /** Event webhooks (owner): a bot's conversation, message and contact events POSTed signed to the owner's URLs. */
    eventWebhooks: {
      create: (user: Caller, botId: string, input: { url: string; events: string[] }) => eventWebhooks.createEventWebhook(w, user.id, botId, input),
      list: (user: Caller, botId: string) => eventWebhooks.listBotEventWebhooks(w, user.id, botId),
      remove: (user: Caller, botId: string, hookId: string) => eventWebhooks.removeEventWebhook(w, user.id, botId, hookId),
      deliveries: (user: Caller, botId: string, hookId: string, limit: number) => eventWebhooks.eventDeliveries(w, user.id, botId, hookId, limit),
      redeliver: (user: Caller, botId: string, hookId: string, deliveryId: string) => eventWebhooks.redeliverEvent(w, user.id, botId, hookId, deliveryId),
    },
    bots: {
      list: (user: Caller) => bots.listBots(w, user.id),
      get: (user: Caller, botId: string) => bots.memberBot(w, user.id, botId),
      create: (user: Caller, input: bots.BotInput) => bots.createBot(w, user.id, input),
      rename: (user: Caller, botId: string, patch: { name?: string; description?: string }) => bots.renameBot(w, user.id, botId, patch),
      remove: (user: Caller, botId: string) => bots.removeBot(w, user.id, botId),
      rotateToken: (user: Caller, botId: string) => bots.rotateToken(w, user.id, botId),
    },
    channels: {
      list: (user: Caller, botId: string) => channels.channelsOfBot(w, user.id, botId),
      update: (user: Caller, botId: string, change: channels.ChannelChange) => channels.updateChannel(w, user.id, botId, change),
      /** Logs in to the e-mail channel's stored mail servers, reading and sending nothing. */
      testEmail: (user: Caller, botId: string) => mailChannel.testMailChannel(w, user.id, botId),
    },
    team: {
      members: (user: Caller, botId: string) => members.membersOf(db, user.id, botId),
      assignees: (user: Caller, botId: string) => members.assigneesOfBot(db, user.id, botId),
      removeMember: (user: Caller, botId: string, memberId: string) => members.removeMember(w, user.id, botId, memberId),
      invite: (user: Caller, botId: string, email: string) => members.createInvite(w, user, botId, email),
      invites: (user: Caller, botId: string) => members.pendingInvites(db, user.id, botId),
      revokeInvite: (user: Caller, botId: string, inviteId: string) => members.revokeInvite(db, user.id, botId, inviteId),
      acceptInvite: (user: Caller, code: string) => members.acceptInvite(w, user.id, code),
      cannedReplies: (user: Caller, botId: string) => bots.cannedReplies(db, user.id, botId),
      addCannedReply: (user: Caller, botId: string, shortcut: string, text: string) => bots.addCannedReply(db, user.id, botId, shortcut, text),
      removeCannedReply: (user: Caller, botId: string, replyId: string) => bots.removeCannedReply(db, user.id, botId, replyId),
    },
    inbox: {
      list: (user: Caller, query: inbox.InboxQuery) => inbox.listConversations(w, user.id, query),
      counts: (user: Caller, botId?: string, assignee?: Parameters<typeof inboxState.inboxCounts>[3]) => inboxState.inboxCounts(db, user.id, botId, assignee),
      detail: (user: Caller, id: string, before?: number) => inbox.conversationDetail(w, user.id, id, before),
      reply: (user: Caller, id: string, text: string, fileIds?: string[]) => inbox.operatorReply(w, user.id, id, text, fileIds),
      handoff: (user: Caller, id: string, to: "human" | "bot") => operatorHandoff(w, user.id, id, to),
      patch: (user: Caller, id: string, patch: inbox.ConversationMetaPatch) => inbox.patchConversation(w, user.id, id, patch),
      read: (user: Caller, id: string, messageId?: number) => inboxState.markConversationRead(w, user.id, id, messageId),
      typing: (user: Caller, id: string) => {
        limits.typing(user.id);
        return inboxState.operatorTyping(w, user.id, id);
      },
    },
    /** Requests without a token, from a widget, a site or an API sender: the caller is the bot they name. */
    public: {
      bot: (botId: string | undefined, widgetKey: string | undefined) => intake.selectBot(w, botId, widgetKey),
      botByIntegrationKey: (key: string) => intake.botByIntegrationKey(w, key),
      checkOrigin: (bot: DbBot, origin: string | null) => channels.checkWidgetOrigin(w, bot.id, origin),
      accept: async (bot: DbBot, body: intake.IncomingMessage, idempotencyKey?: string, signed?: SignedRequest) =>
        teamworkAfter(bot, await intake.acceptMessage(w, bot, body, idempotencyKey, signed)),
      submitForm: async (bot: DbBot, form: intake.FormSubmission, signed?: SignedRequest) =>
        teamworkAfter(bot, await intake.acceptFormSubmission(w, bot, form, signed)),
      pressButton: (bot: DbBot, press: Parameters<typeof pressInlineButton>[2]) => pressInlineButton(w, bot, press),
      history: (bot: DbBot, query: intake.HistoryQuery) => intake.chatHistory(w, bot, query),
      widget: async (widgetKey: string, origin: string | null) => {
        const look = await channels.widgetLook(w, widgetKey, origin);
        return { ...look, ...(await hours.awayState(teamworkDeps, look.bot_id)) };
      },
      rate: (bot: DbBot, body: RatingRequest) => rateConversation(w, bot, body),
    },
    /** The bot runtime API: the caller is the bot its token names. */
    runtime: {
      botOfToken: (token: string | undefined) => runtime.botOfToken(w, token),
      info: (bot: DbBot) => runtime.botInfo(bot),
      poll: (bot: DbBot, query: runtime.GetUpdatesQuery) => runtime.getUpdates(w, bot, query),
      send: (bot: DbBot, body: runtime.SendMessageRequest) => runtime.sendMessage(w, bot, body),
      editText: (bot: DbBot, body: runtime.EditMessageTextRequest) => runtime.editMessageText(w, bot, body),
      editMarkup: (bot: DbBot, body: Parameters<typeof runtime.editMessageReplyMarkup>[2]) => runtime.editMessageReplyMarkup(w, bot, body),
      answerCallbackQuery: (bot: DbBot, answer: Parameters<typeof answerCallbackQuery>[2]) => answerCallbackQuery(w, bot, answer),
      handoff: async (bot: DbBot, chatId: string) => {
        const handed = await botHandoff(w, bot, chatId);
        await afterBotHandoff(teamworkDeps, bot, chatId)
          .catch((err: unknown) => w.logger.warn({ err: String(err), bot_id: bot.id }, "routing after a handoff failed"));
        return handed;
      },
      remove: (bot: DbBot, messageId: string | number) => runtime.deleteMessage(w, bot, messageId),
      setCommands: (bot: DbBot, commands: Parameters<typeof runtime.setMyCommands>[2]) => runtime.setMyCommands(w, bot, commands),
      commands: (bot: DbBot) => runtime.getMyCommands(w, bot),
      deleteCommands: (bot: DbBot) => runtime.deleteMyCommands(w, bot),
    },
    webhooks: {
      set: (bot: DbBot, input: webhooks.SetWebhookInput) => webhooks.setWebhook(w, bot, input),
      info: (bot: DbBot) => webhooks.getWebhookInfo(w, bot),
      remove: (bot: DbBot, dropPendingUpdates?: boolean) => webhooks.deleteWebhook(w, bot, dropPendingUpdates),
      deliveries: (user: Caller, botId: string, limit: number) => webhooks.listDeliveries(db, user.id, botId, limit),
      callbacks: (user: Caller, botId: string, limit: number) => webhooks.listCallbackStates(db, user.id, botId, limit),
    },
    /** Verified widget visitors: the owner's identity secret, and the widget's check of a visitor. */
    identity: {
      secret: (user: Caller, botId: string) => identity.readIdentitySecret(w, user.id, botId),
      rotate: (user: Caller, botId: string) => identity.rotateIdentitySecret(w, user.id, botId),
      check: (bot: DbBot, claim: identity.IdentityClaim) => identity.identify(w, bot.id, claim),
    },
    telegram: {
      call: (bot: DbBot, method: string, params: Params) => callMethod(w, bot, method, params),
      /** Where the parts of a multipart call go as they arrive: the bot's files. */
      partStore: (bot: DbBot) => storePart(w, bot),
    },
    files: {
      uploadAsVisitor: (upload: files.Upload, query: Record<string, string | undefined>, origin: string | null) =>
        files.uploadAsVisitor({ ...w, limits }, upload, query, origin),
      uploadAsOperator: (user: Caller, conversationId: string, upload: files.Upload) => files.uploadAsOperator(w, user.id, conversationId, upload),
      uploadAsBot: (bot: DbBot, upload: files.Upload) => files.uploadAsBot(w, bot, upload),
      linked: (fileId: string, expires?: string, sig?: string) => files.linkedFile(w, fileId, expires, sig),
      botFile: (bot: DbBot, fileId: string | undefined) => files.botFile(w, bot, fileId),
    },
    push: {
      publicKey: () => pushSubscriptions.publicKey(w),
      subscriptions: (user: Caller) => pushSubscriptions.subscriptions(w, user.id),
      subscribe: (user: Caller, body: pushSubscriptions.PushSubscriptionRequest) => pushSubscriptions.subscribe(w, user.id, body),
      unsubscribe: (user: Caller, endpoint: string) => pushSubscriptions.unsubscribe(w, user.id, endpoint),
    },
    /** Labels, private notes and mentions, bulk changes: the team's own organising tools. */
    workflow: {
      labels: (user: Caller, botId: string) => labels.labelsOfBot(w, user.id, botId),
      createLabel: (user: Caller, botId: string, input: { name: string; color: string }) => labels.createLabel(w, user.id, botId, input),
      removeLabel: (user: Caller, botId: string, labelId: string) => labels.removeLabel(w, user.id, botId, labelId),
      note: (user: Caller, conversationId: string, input: { text: string; mentions?: string[] }) => notes.addNote(w, user.id, conversationId, input),
      mentions: (user: Caller, query: { limit?: number; before?: string }) => notes.mentionsOf(w, user.id, query),
      bulk: (user: Caller, change: bulk.BulkChange) => bulk.bulkChange(w, user.id, change),
    },
    contacts: {
      list: (user: Caller, botId: string, query: { q?: string; limit?: number; cursor?: number }) => contacts.listContacts(w, user.id, botId, query),
      get: (user: Caller, contactId: string) => contacts.contactDetail(w, user.id, contactId),
      edit: (user: Caller, contactId: string, edit: Parameters<typeof contacts.editContact>[3]) => contacts.editContact(w, user.id, contactId, edit),
      merge: (user: Caller, contactId: string, into: string) => contacts.mergeContact(w, user.id, contactId, into),
      csv: (user: Caller, botId: string) => contacts.contactsCsv(w, user.id, botId),
    },
    teamwork: {
      myPresence: (user: Caller) => presence.myPresence(w, user.id),
      setPresence: (user: Caller, status: presence.PresenceStatus | "auto") => presence.setMyPresence(w, user.id, status),
      routing: (user: Caller, botId: string) => routing.getRouting(w, user.id, botId),
      setRouting: (user: Caller, botId: string, input: { mode: routing.RoutingMode; capacity?: number }) => routing.setRouting(w, user.id, botId, input),
      hours: (user: Caller, botId: string) => hours.getHours(teamworkDeps, user.id, botId),
      setHours: (user: Caller, botId: string, input: hours.HoursInput) => hours.setHours(teamworkDeps, user.id, botId, input),
      /** The periodic scan of a web process: snoozes due, routing, reassignment, dead cabinets. */
      scan: (options: { intervalMs?: number } = {}) =>
        startTeamworkScan(teamworkDeps, { reassignAfterSeconds: platform.config.routingReassignAfterSeconds, ...options }),
    },
    feeds: {
      inbox: (user: Caller, session: sessions.SessionClaims, since: number | undefined, lastEventId: string | null) =>
        inboxFeed(w, user.id, since, lastEventId, async () =>
          session.apiTokenId ? apiTokens.apiTokenIsLive(db, session.apiTokenId) : (await sessions.liveSession(db, user.id, session)) !== undefined),
      chat: (bot: DbBot, query: ChatFeedQuery, client: FeedClient) => chatFeed(w, bot, query, client, platform.config.rateLimits),
    },
    reports: {
      summary: (user: Caller, query: reports.ReportQuery) => reports.summary(w, user.id, query),
      series: (user: Caller, query: reports.SeriesQuery) => reports.series(w, user.id, query),
      heatmap: (user: Caller, query: reports.ReportQuery) => reports.heatmap(w, user.id, query),
      csv: { summary: reportCsv.summaryCsv, series: reportCsv.seriesCsv, heatmap: reportCsv.heatmapCsv },
    },
    /** Erasure on request and each bot's retention period. */
    privacy: {
      eraseContact: (user: Caller, contactId: string) => erasure.eraseContact({ db, files: w.files, updates: platform.updates }, user.id, contactId),
      retention: (user: Caller, botId: string) => erasure.botRetention(db, user.id, botId),
      setRetention: (user: Caller, botId: string, days: number | null) => erasure.setBotRetention(db, user.id, botId, days),
      /** The periodic retention pass: every web process starts it, the lease lets one run each pass. */
      startRetention: (intervalMs?: number) =>
        erasure.startRetention({
          db, files: w.files, updates: platform.updates, leases: platform.leases, holder: `retention-${platform.id}`, now: platform.now,
          onError: (err) => w.logger.warn({ err: String(err) }, "retention pass failed; the next one retries"),
          onErased: (counts) => w.logger.info(counts, "retention deleted closed conversations past their bot's retention period"),
        }, intervalMs),
    },
    system: {
      health: () => platform.health(),
      metrics: platform.metrics,
    },
    workers: {
      /** Webhook and channel-callback delivery (the `webhook` process). */
      delivery: (options: WorkerOptions = {}) =>
        startDeliveryWorker({
          db, bus: w.bus, logger: w.logger, updates: platform.updates, leases: platform.leases, leaseTtlMs: platform.leaseTtlMs,
          allowPrivate: platform.config.allowPrivateWebhooks, telegram: telegramDelivery(w),
          recorded: (attempt, ok) => platform.metrics.webhookDeliveries.inc({ kind: attempt.kind, outcome: ok ? "ok" : "failed" }),
          secretBox: w.secretBox,
        }, options),
      /** Operator push notifications (the `push` process). */
      push: (options: { name: string; removeOnStop: boolean }) =>
        consumeForPush({
          db, logger: w.logger, actors: w.actors, queue: platform.queue, subject: platform.config.pushContact,
          policy: { allowPrivate: platform.config.allowPrivateWebhooks }, publicUrl: platform.config.publicUrl,
        }, options),
      /** The e-mail channel's mailboxes and outgoing mail (the `mail` process). */
      mail: (options: MailWorkerOptions = {}) =>
        startMailWorker({
          db, bus: w.bus, logger: w.logger, leases: platform.leases, leaseTtlMs: platform.leaseTtlMs, secretBox: w.secretBox,
          allowPrivate: platform.config.allowPrivateWebhooks, bot: (id) => w.bots.byId(id),
          mail: { takeIn: (bot, incoming) => mail.takeInMail(w, bot, incoming), reply: (message, conversation, header) => mail.replyMail(w, message, conversation, header) },
        }, options),
    },
  };
}

export type Services = ReturnType<typeof composeServices>;
