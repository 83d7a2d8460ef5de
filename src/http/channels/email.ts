// The e-mail channel's "test connection" operation (docs/design.md §13.2). Its config is
// checked, sealed and masked by the channel use cases (domain/channels.ts, domain/mail_channel.ts).
import { t } from "elysia";
import type { Services } from "../../services.ts";
import { userAuth } from "../auth/plugin.ts";
import { BotIdParams } from "../bots/model.ts";
import { errors, Ok, ok } from "../envelope.ts";
import { feature } from "../feature.ts";

const Check = t.Object({ ok: t.Boolean(), error: t.Optional(t.String({ description: "What failed, in plain words: DNS, refused address, connection, TLS, login, folder" })) });
export const EmailTestResult = t.Object(
  { imap: Check, smtp: Check },
  { title: "EmailTestResult", examples: [{ imap: { ok: true }, smtp: { ok: false, error: "login: the server refused the user name or password" } }] },
);

export const emailChannelRoutes = (services: Services) =>
  feature({ prefix: "/api/bots", tags: ["Channels"] })
    .use(userAuth(services))
    .post(
      "/:id/channels/email/test",
      async ({ user, params }) => ok(await services.channels.testEmail(user, params.id)),
      {
        user: true,
        params: BotIdParams,
        response: { 200: Ok(EmailTestResult, "Whether each server accepted a connection and the login"), ...errors(400, 401, 403, { 404: "The caller is not a member of a bot with this id" }) },
        detail: {
          summary: "Test the e-mail channel's mail servers",
          description: "Connects to the stored IMAP and SMTP servers and logs in, reading and sending nothing. Each side says in plain words what failed: the host name (DNS), a private address, the connection, TLS or the login.",
        },
      },
    );
