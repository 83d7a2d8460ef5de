// Requests from a chosen loopback source address (127.0.0.2, 127.0.0.3, …): how a test
// makes two clients that the server tells apart by their socket, as real ones are.
import http from "node:http";
import type { Config } from "../../src/config.ts";
import { createLogger } from "../../src/logger.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { createTestBot, registerUser, sharedDb, testClient, testConfig, type Client, type TestBot, type TestUser } from "../support/harness.ts";

export interface Reply {
  status: number;
  body: any;
}

export function requestFrom(
  localAddress: string,
  url: string,
  options: { method?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const target = new URL(url);
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const headers: Record<string, string> = { ...options.headers };
  if (payload !== undefined) headers["content-type"] ??= "application/json";
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: target.hostname, port: target.port, path: `${target.pathname}${target.search}`, method: options.method ?? "GET", headers, localAddress },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          let body: unknown = text;
          try {
            body = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** A real server on 127.0.0.1 with rate limits on, sharing the test database. */
export async function limitedServer(overrides: Partial<Config>): Promise<RunningServer> {
  const config = testConfig({ rateLimits: true, ...overrides });
  return startServer(config, createLogger(config), { db: await sharedDb(), migrate: false });
}

export interface Target {
  client: Client;
  user: TestUser;
  bot: TestBot;
  conversationId: string;
  messageId: number;
}

/** A bot with a visitor conversation and one message the bot sent in it: what the hostile requests aim at. */
export async function targetWithTraffic(): Promise<Target> {
  const client = await testClient();
  const user = await registerUser(client);
  const bot = await createTestBot(client, user);
  const first = await client.post("/api/messages", { bot_id: bot.id, chat_id: "visitor", text: "hello" });
  const sent = await client.request("POST", `/api/bots/${bot.id}/send-message`, { body: { chat_id: "visitor", text: "hi" }, token: bot.token });
  return { client, user, bot, conversationId: first.body.result.conversation_id, messageId: Number(sent.body.result.message_id) };
}

