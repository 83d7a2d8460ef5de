// Scenario 4: a flaky webhook receiver (500s and hangs) and kill -9 of the webhook
// process delivering to it. Delivery is at least once, so repeats are allowed, but a takeover
// may resend only what was in flight (bounded by max_connections), never the backlog.
import { expect } from "bun:test";
import {
  assertClean, chaosTest, crashProblems, createBot, FlakyReceiver, Load, migrate, onCleanup, PrivateNats, PrivatePostgres,
  setWebhook, useCleanup, webhookInfo, verdict, waitFor, webProcess, WebhookProc,
} from "./support.ts";

useCleanup();

const MAX_CONNECTIONS = 40;
/** The product gives up on a request after 10 s (src/webhooks/http.ts); a hang outlasts that. */
const HANG_MS = 11_000;

chaosTest("webhook process kill -9 with a flaky receiver: every acknowledged message delivered, repeats bounded", async () => {
  const pg = new PrivatePostgres("webhook-kill");
  const nats = new PrivateNats("webhook-kill");
  await Promise.all([pg.start(), nats.start()]);
  const services = { databaseUrl: pg.url, natsUrl: nats.url };
  await migrate("webhook-kill", services);
  const receiver = new FlakyReceiver({ failRate: 0.4, hangRate: 0.05, hangMs: HANG_MS, maxFailuresPerUpdate: 3 });
  onCleanup(() => receiver.stop());
  const [web, a] = await Promise.all([webProcess("webhook-kill.web", services).up(), new WebhookProc("webhook-kill.webhook-a", services).up()]);
  const b = new WebhookProc("webhook-kill.webhook-b", services);
  const bot = await createBot(web.url);
  await setWebhook(web.url, bot, receiver.url, MAX_CONNECTIONS);

  // Few messages per chat: each chat's updates go one at a time, and a hang costs the product's
  // full 10 s timeout, so a long chat would outlast the time budget without testing more.
  const load = new Load({ urls: () => [web.url], bot, senders: 24, chatsPerSender: 2, messages: 320, pauseMs: 150, deadlineMs: 40_000 });
  const sending = load.start();
  // `a` is the only worker when the first updates arrive, so it holds the bot's lease and `b`
  // is the standby that must take over when `a` dies.
  await waitFor("first webhook deliveries", () => receiver.delivered.length >= 20, 30_000, () => a.tail());
  await b.up();
  await waitFor("a third delivered", () => receiver.delivered.length >= load.planned / 3, 60_000, () => a.tail());
  const killAt = Date.now();
  const deliveredBefore = receiver.delivered.length;
  await a.kill("SIGKILL");
  await Bun.sleep(1000);
  await a.up();

  await sending;
  // The receiver may fail each update up to 3 times and a hang costs the full 10 s timeout, and
  // a chat's updates go one at a time: one CI run's unluckiest chat met 6 hangs in 18 requests
  // and was still retrying, in order, when a 70 s budget ran out. Waiting ends as soon as all
  // are delivered, so a longer budget only lets a legitimate worst case finish.
  await receiver.drain(load, 110_000);

  const v = verdict(load, receiver.delivered, [], true);
  const problems = [...v.problems, ...crashProblems([web, a, b])];
  if (v.lost.length) problems.push(`get-webhook-info: ${await webhookInfo(web.url, bot)}`);
  if (v.lost.length) problems.push(`requests the receiver saw in the chats of the lost messages (times from the kill):\n  ${receiver.explain(v.lost, killAt).join("\n  ")}`);
  if (v.repeats > 2 * MAX_CONNECTIONS) problems.push(`${v.repeats} repeated deliveries: more than 2 × max_connections (${2 * MAX_CONNECTIONS}), so the backlog was resent`);
  // The takeover shows as the longest silence after the kill (the dead worker's lease must expire first).
  const after = receiver.delivered.filter((d) => d.at >= killAt).map((d) => d.at);
  const gap = after.reduce((max, at, i) => Math.max(max, at - (i ? after[i - 1]! : killAt)), 0);
  assertClean(problems, `${v.summary}\nreceiver: ${JSON.stringify(receiver.counts)}; ${v.repeats} repeats (bound ${2 * MAX_CONNECTIONS}); ` +
    `killed ${a.name} at ${deliveredBefore} delivered, longest silence after it ${gap} ms`,
  [web.log, ...a.exits.map((e) => e.log), a.log, b.log]);
  expect(problems).toEqual([]);
}, { timeoutMs: 190_000, services: true });
