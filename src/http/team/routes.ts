// Teams: the owner's members and invites, invite acceptance, and the canned replies every
// member shares.
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { errors, Ok, ok, withExample } from "../envelope.ts";
import { feature } from "../feature.ts";
import {
  AcceptedInvite, AcceptInviteRequest, AssignableMember, BotIdParams, CannedReply, CannedReplyParams, CannedReplyRequest, CreatedInvite, Invite,
  InviteParams, InviteRequest, Member, MemberParams,
} from "../bots/model.ts";

const OWNER_ONLY = "Owner only: an operator gets 403, a non-member 404.";

const memberRoutes = (services: Services) =>
  feature({ prefix: "/api/bots", tags: ["Team"] })
    .use(userAuth(services))
    .get("/:id/members", async ({ user, params }) => ok(await services.team.members(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(Member), "Owner and operators of the bot"), ...errors(400, 401, 403, 404) },
      detail: { summary: "The bot's members (owner first)", description: OWNER_ONLY },
    })
    .get("/:id/assignees", async ({ user, params }) => ok(await services.team.assignees(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(AssignableMember), "Members a conversation can be assigned to"), ...errors(400, 401, 404) },
      detail: {
        summary: "Who conversations of the bot can be assigned to",
        description: "Any member (owner first, then by e-mail): the assignee picker. Managing members stays the owner's.",
      },
    })
    .delete("/:id/members/:user_id", async ({ user, params }) => ok(await services.team.removeMember(user, params.id, params.user_id)), {
      user: true,
      params: MemberParams,
      response: { 200: Ok(withExample(t.Literal(true), true), "The member is removed"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Remove an operator from the bot",
        description: `${OWNER_ONLY} The owner cannot be removed (400). The operator's assignments on this bot are cleared.`,
      },
    })
    .post(
      "/:id/invites",
      async ({ user, params, body }) => {
        return ok(await services.team.invite(user, params.id, body.email));
      },
      {
        user: true,
        params: BotIdParams,
        body: InviteRequest,
        response: { 200: Ok(CreatedInvite, "The invite with its one-time code"), ...errors(400, 401, 403, 404, 409) },
        detail: {
          summary: "Invite an operator by e-mail",
          description:
            `${OWNER_ONLY} The answer holds the code and a link, shown once (only a hash is stored); with SMTP_URL set the link ` +
            "is also mailed to the invitee (mailed: true), otherwise share it yourself. The invitee accepts after logging in with that e-mail. Invites expire after 7 days.",
        },
      },
    )
    .get("/:id/invites", async ({ user, params }) => ok(await services.team.invites(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(Invite), "Open invites of the bot"), ...errors(400, 401, 403, 404) },
      detail: { summary: "Pending invites of the bot", description: `${OWNER_ONLY} Accepted and expired invites are not listed.` },
    })
    .delete("/:id/invites/:invite_id", async ({ user, params }) => ok(await services.team.revokeInvite(user, params.id, params.invite_id)), {
      user: true,
      params: InviteParams,
      response: { 200: Ok(withExample(t.Literal(true), true), "The invite is revoked"), ...errors(400, 401, 403, 404) },
      detail: { summary: "Revoke a pending invite", description: OWNER_ONLY },
    })
    .get("/:id/canned-replies", async ({ user, params }) => ok(await services.team.cannedReplies(user, params.id)), {
      user: true,
      params: BotIdParams,
      response: { 200: Ok(t.Array(CannedReply), "The bot's canned replies"), ...errors(400, 401, 404) },
      detail: { summary: "Canned replies of the bot", description: "Any member; `/shortcut` in the reply box inserts the text." },
    })
    .post(
      "/:id/canned-replies",
      async ({ user, params, body }) => ok(await services.team.addCannedReply(user, params.id, body.shortcut, body.text)),
      {
        user: true,
        params: BotIdParams,
        body: CannedReplyRequest,
        response: { 200: Ok(CannedReply, "The stored canned reply"), ...errors(400, 401, 404, 409) },
        detail: { summary: "Add a canned reply", description: "Any member. A shortcut is unique per bot, whatever its case (409)." },
      },
    )
    .delete(
      "/:id/canned-replies/:reply_id",
      async ({ user, params }) => ok(await services.team.removeCannedReply(user, params.id, params.reply_id)),
      {
        user: true,
        params: CannedReplyParams,
        response: { 200: Ok(withExample(t.Literal(true), true), "The canned reply is deleted"), ...errors(400, 401, 404) },
        detail: { summary: "Delete a canned reply", description: "Any member of the bot may delete one; it disappears from every operator's list." },
      },
    );

const inviteRoutes = (services: Services) =>
  feature({ prefix: "/api/invites", tags: ["Team"] })
    .use(userAuth(services))
    .post("/accept", async ({ user, body }) => ok(await services.team.acceptInvite(user, body.code)), {
      user: true,
      body: AcceptInviteRequest,
      response: { 200: Ok(AcceptedInvite, "The bot the caller is now a member of"), ...errors(400, 401, 403, 404) },
      detail: {
        summary: "Accept an invite",
        description:
          "Any logged-in user whose e-mail is the invite's (any case; 403 otherwise) joins the bot with the invite's role. " +
          "An unknown, expired or already used code is 404.",
      },
    });

export const teamRoutes = (services: Services) => feature().use(memberRoutes(services)).use(inviteRoutes(services));
