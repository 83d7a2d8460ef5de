// Teams: the owner's members and invites, invite acceptance, and the canned replies every
// member shares.
import { t } from "elysia";
import type { Platform } from "../../platform.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  AcceptedInvite, AcceptInviteRequest, AssignableMember, BotIdParams, CannedReply, CannedReplyParams, CannedReplyRequest, CreatedInvite, Invite,
  InviteParams, InviteRequest, Member, MemberParams,
} from "../bots/model.ts";
import { acceptInvite, assigneesOfBot, createInvite, membersOf, pendingInvites, removeMember, revokeInvite } from "../../domain/members.ts";
import { addCannedReply, cannedReplies, removeCannedReply } from "../../domain/bots.ts";
import type { DbCannedReply } from "../../db/canned.ts";
import type { DbInvite, DbMember } from "../../db/members.ts";

const toMember = (row: DbMember): Member => ({ user_id: row.user_id, email: row.email, role: row.role, joined_at: row.created_at.toISOString() });
const toInvite = (row: DbInvite): Invite => ({
  id: row.id, email: row.email, role: row.role, created_at: row.created_at.toISOString(), expires_at: row.expires_at.toISOString(),
});
const toCannedReply = (row: DbCannedReply): CannedReply => ({ id: row.id, shortcut: row.shortcut, text: row.text });

const OWNER_ONLY = "Owner only: an operator gets 403, a non-member 404.";

const memberRoutes = (platform: Platform) =>
  feature({ prefix: "/api/bots", tags: ["Team"] })
    .use(userAuth(platform))
    .get("/:id/members", async ({ user, params }) => ok((await membersOf(platform.db, user.id, params.id)).map(toMember)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(Member)), ...errors(400, 401, 403, 404) },
      detail: { summary: "The bot's members (owner first)", description: OWNER_ONLY },
    })
    .get("/:id/assignees", async ({ user, params }) => ok(await assigneesOfBot(platform.db, user.id, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(AssignableMember)), ...errors(400, 401, 404) },
      detail: {
        summary: "Who conversations of the bot can be assigned to",
        description: "Any member (owner first, then by e-mail): the assignee picker. Managing members stays the owner's.",
      },
    })
    .delete("/:id/members/:user_id", async ({ user, params }) => ok(await removeMember(platform, user.id, params.id, params.user_id)), {
      user: true,
      params: MemberParams,
      response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Remove an operator from the bot",
        description: `${OWNER_ONLY} The owner cannot be removed (400). The operator's assignments on this bot are cleared.`,
      },
    })
    .post(
      "/:id/invites",
      async ({ user, params, body }) => {
        const invite = await createInvite(platform.db, user.id, params.id, body.email);
        return ok({ ...toInvite(invite), code: invite.code, invite_url: `${platform.config.publicUrl}/#invite=${invite.code}` });
      },
      {
        user: true,
        params: BotIdParams,
        body: InviteRequest,
        response: { 200: Ok(CreatedInvite), ...errors(400, 401, 403, 404, 409) },
        detail: {
          summary: "Invite an operator by e-mail",
          description:
            `${OWNER_ONLY} No mail is sent: the answer holds the code and a link, shown once (only a hash is stored); ` +
            "share them with the invitee, who accepts after logging in with that e-mail. Invites expire after 7 days.",
        },
      },
    )
    .get("/:id/invites", async ({ user, params }) => ok((await pendingInvites(platform.db, user.id, params.id)).map(toInvite)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(Invite)), ...errors(400, 401, 403, 404) },
      detail: { summary: "Pending invites of the bot", description: `${OWNER_ONLY} Accepted and expired invites are not listed.` },
    })
    .delete("/:id/invites/:invite_id", async ({ user, params }) => ok(await revokeInvite(platform.db, user.id, params.id, params.invite_id)), {
      user: true,
      params: InviteParams,
      response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 403, 404) },
      detail: { summary: "Revoke a pending invite", description: OWNER_ONLY },
    })
    .get("/:id/canned-replies", async ({ user, params }) => ok((await cannedReplies(platform.db, user.id, params.id)).map(toCannedReply)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(CannedReply)), ...errors(400, 401, 404) },
      detail: { summary: "Canned replies of the bot", description: "Any member; `/shortcut` in the reply box inserts the text." },
    })
    .post(
      "/:id/canned-replies",
      async ({ user, params, body }) => ok(toCannedReply(await addCannedReply(platform.db, user.id, params.id, body.shortcut, body.text))),
      {
        user: true,
        params: BotIdParams,
        body: CannedReplyRequest,
        response: { 200: Ok(CannedReply), ...errors(400, 401, 404, 409) },
        detail: { summary: "Add a canned reply", description: "Any member. A shortcut is unique per bot, whatever its case (409)." },
      },
    )
    .delete(
      "/:id/canned-replies/:reply_id",
      async ({ user, params }) => ok(await removeCannedReply(platform.db, user.id, params.id, params.reply_id)),
      {
        user: true,
        params: CannedReplyParams,
        response: { 200: Ok(t.Literal(true)), ...errors(400, 401, 404) },
        detail: { summary: "Delete a canned reply", description: "Any member." },
      },
    );

const inviteRoutes = (platform: Platform) =>
  feature({ prefix: "/api/invites", tags: ["Team"] })
    .use(userAuth(platform))
    .post("/accept", async ({ user, body }) => ok(await acceptInvite(platform, user.id, body.code)), {
      user: true,
      body: AcceptInviteRequest,
      response: { 200: Ok(AcceptedInvite), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Accept an invite",
        description:
          "Any logged-in user whose e-mail is the invite's (any case; 403 otherwise) joins the bot with the invite's role. " +
          "An unknown, expired or already used code is 404.",
      },
    });

export const teamRoutes = (platform: Platform) => feature().use(memberRoutes(platform)).use(inviteRoutes(platform));
