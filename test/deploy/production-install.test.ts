// What a production build does, in a clean copy of the project: `npm ci --omit=dev`, then
// the Procfile's entries exactly as written (release, web, webhook, push) on a database and
// a NATS server of their own. A message sent to the web process reaches one bot through
// get-updates and another through its webhook. Fails when a runtime dependency sits in
// devDependencies, or when an entry point needs anything `npm ci --omit=dev` does not install.
import { expect } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  chaosTest, createBot, FlakyReceiver, onCleanup, PrivateNats, probe, Proc, ROOT, setWebhook, tempDir, useCleanup, waitFor, freePort,
} from "../chaos/support.ts";
import { procfileCommands } from "../../bench/procfile.ts";

useCleanup();

const JWT_SECRET = "production-install-secret-0123456789-abcdef";
/** npm ci downloads every runtime dependency (bun's binary the largest); a slow mirror needs minutes. */
const INSTALL_TIMEOUT_MS = 300_000;

async function sh(argv: string[], cwd: string, env: Record<string, string> = {}, timeoutMs = 60_000): Promise<string> {
  const proc = Bun.spawn(argv, { cwd, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), timeoutMs);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}\n${out}\n${err}`);
  return out;
}

chaosTest("npm ci --omit=dev, then the Procfile's release, web, webhook, push and mail start; they deliver a message by get-updates and by webhook", async () => {
  // A clean copy: only what git tracks (the working tree's versions), no node_modules.
  const app = tempDir("install");
  await sh(["sh", "-c", `git ls-files -z | tar --null -T - -cf - | tar -xf - -C "${app}"`], ROOT);
  await sh(["npm", "ci", "--omit=dev", "--no-audit", "--no-fund"], app, {}, INSTALL_TIMEOUT_MS);
  expect(existsSync(join(app, "node_modules/.bin/bun"))).toBe(true);
  // A dev dependency present would hide a missing runtime one.
  expect(existsSync(join(app, "node_modules/dependency-cruiser"))).toBe(false);
  expect(existsSync(join(app, "node_modules/playwright-core"))).toBe(false);

  const nats = new PrivateNats("install");
  const database = `install_${Date.now()}_${Math.random().toString(36).slice(2, 8)}`;
  await sh(["createdb", "-h", "127.0.0.1", "-U", "postgres", database], app);
  onCleanup(() => sh(["dropdb", "-h", "127.0.0.1", "-U", "postgres", "--force", database], app).then(() => undefined));
  await nats.start();

  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    // A Procfile runner puts the app's node_modules/.bin on PATH; nothing else from this machine's install.
    PATH: `${join(app, "node_modules/.bin")}:/usr/local/bin:/usr/bin:/bin`,
    HOME: process.env.HOME ?? "/root",
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/${database}`,
    NATS_URL: nats.url,
    JWT_SECRET,
    PORT: String(port),
    HOST: "127.0.0.1",
    ALLOW_PRIVATE_WEBHOOKS: "1",
    LOG_LEVEL: "info",
  };
  const commands = procfileCommands(app);
  expect(Object.keys(commands).sort()).toEqual(["mail", "push", "release", "web", "webhook"]);
  const run = (type: string) => new Proc(`install.${type}`, ["sh", "-c", `exec ${commands[type]!}`], env, app).start();

  const release = run("release");
  const released = await release.child!.exited;
  if (released !== 0) throw new Error(`release exited ${released}\n${release.tail()}`);
  expect(readFileSync(release.log, "utf8")).toContain("migrations applied");

  const web = run("web");
  const webhook = run("webhook");
  const push = run("push");
  const mail = run("mail");
  await waitFor("web /readyz", async () => (await probe(`${url}/readyz`)) === 200, 60_000, () => web.tail(), () => web.alive);
  await waitFor("webhook worker start line", () => readFileSync(webhook.log, "utf8").includes("delivering webhooks"), 60_000, () => webhook.tail(), () => webhook.alive);
  await waitFor("push worker start line", () => readFileSync(push.log, "utf8").includes("sending operator push notifications"), 60_000, () => push.tail(), () => push.alive);
  await waitFor("mail worker start line", () => readFileSync(mail.log, "utf8").includes("e-mail channel's mail"), 60_000, () => mail.tail(), () => mail.alive);

  const polled = await createBot(url);
  const hooked = await createBot(url);
  const receiver = new FlakyReceiver({ failRate: 0, hangRate: 0, hangMs: 0, maxFailuresPerUpdate: 0 });
  onCleanup(() => receiver.stop());
  await setWebhook(url, hooked, receiver.url, 4);

  const send = async (botId: string, key: string) => {
    const res = await fetch(`${url}/api/messages`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ bot_id: botId, chat_id: "install-chat", text: "hello from production", metadata: { client_message_id: key } }),
    });
    expect(res.status).toBe(200);
  };
  await send(polled.id, "install:0:0");
  await send(hooked.id, "install:1:0");

  const updates = await fetch(`${url}/api/bots/${polled.id}/get-updates?timeout=20`, { headers: { authorization: `Bearer ${polled.token}` } });
  const body = (await updates.json()) as { result: Array<{ message: { text: string } }> };
  expect(body.result.map((u) => u.message.text)).toEqual(["hello from production"]);
  await waitFor("the webhook delivery", () => receiver.delivered.length >= 1, 30_000, () => webhook.tail());
  expect(receiver.delivered.map((d) => d.key)).toEqual(["install:1:0"]);

  for (const p of [web, webhook, push, mail]) {
    expect(p.alive).toBe(true);
    await p.kill("SIGTERM");
  }
  expect([web, webhook, push, mail].map((p) => p.child!.exitCode)).toEqual([0, 0, 0, 0]);
}, { timeoutMs: INSTALL_TIMEOUT_MS + 180_000, services: true });
