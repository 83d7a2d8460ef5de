// Scratch: a power cut of a single NATS server simulated by restoring its store from a snapshot.
import { startBenchServer } from "./server.ts";
import { $ } from "bun";
const PORT = 4811, DIR = "/tmp/pc";
await $`rm -rf ${DIR} && mkdir -p ${DIR}`;
const startNats = () => Bun.spawn(["/usr/sbin/nats-server", "-a", "127.0.0.1", "-p", String(PORT), "-js", "-sd", `${DIR}/js`], { stdout: "ignore", stderr: "ignore" });
let nats = startNats();
await Bun.sleep(800);
process.env.NATS_URL = `nats://127.0.0.1:${PORT}`;
const { server, request } = await startBenchServer();
const json = (path: string, body: unknown, token?: string) => request("POST", path, body, token);
const { token } = (await json("/api/auth/register", { email: `pc-${Date.now()}@example.com`, password: "secret123" })).result;
const bot = (await json("/api/bots", { name: "PowerCut" }, token)).result;
const sent = new Map<number, string>();
async function send(from: number, n: number) {
  for (let i = from; i < from + n; i++) {
    for (;;) {
      const r = await json("/api/messages", { bot_id: bot.id, chat_id: `c${i % 7}`, text: `m${i}`, metadata: { client_message_id: `k${i}` } });
      if (r.ok) { sent.set(i, `m${i}`); break; }
      await Bun.sleep(200);
    }
  }
}
await send(0, 50);
console.log("50 sent; snapshot");
nats.kill("SIGSTOP");
await $`cp -a ${DIR}/js ${DIR}/snap`;
nats.kill("SIGCONT");
await send(50, 50);
console.log("100 sent; power cut");
await Bun.sleep(500);
nats.kill("SIGKILL");
await nats.exited;
await $`rm -rf ${DIR}/js && mv ${DIR}/snap ${DIR}/js`;
nats = startNats();
await Bun.sleep(1500);
await send(100, 50);
console.log("150 sent; reading");
const got: { id: number; text: string }[] = [];
let offset = 0;
const deadline = Date.now() + 30_000;
while (Date.now() < deadline) {
  const r = await fetch(`${server.url}/api/bots/${bot.id}/get-updates?timeout=2&offset=${offset}&limit=100`, { headers: { authorization: `Bearer ${bot.token}` } }).then((x) => x.json() as any);
  if (!r.ok) { console.log("poll error", r); await Bun.sleep(500); continue; }
  if (r.result.length === 0) { if (got.length >= 150) break; continue; }
  for (const u of r.result) got.push({ id: u.update_id, text: u.message?.text });
  offset = r.result[r.result.length - 1].update_id + 1;
}
const texts = got.map((g) => g.text);
const missing = [...sent.values()].filter((t) => !texts.includes(t));
const dup = texts.filter((t, i) => texts.indexOf(t) !== i);
console.log(`read ${got.length} updates; missing ${missing.length}: ${missing.slice(0, 60).join(",")}; duplicates ${dup.length}`);
console.log("ids", got.map((g) => `${g.id}:${g.text}`).join(" "));
await server.stop();
nats.kill("SIGKILL");
process.exit(0);
