// Telegraf's Buffer uploads, run under Node.js: on Bun its multipart body never ends (Bun's
// Readable.read() returns one buffered chunk where Node returns them all, and sandwich-stream
// reads once per 'readable'; see docs/decisions.md). Unchanged Telegraf but for its API root.
// Input: argv[2] = JSON {apiRoot, token, chat, png (base64)}; output: one JSON line of results.
const { Telegraf } = require("telegraf");

async function main() {
  const { apiRoot, token, chat, png } = JSON.parse(process.argv[2]);
  const bytes = Buffer.from(png, "base64");
  const bot = new Telegraf(token, { telegram: { apiRoot } });
  const sent = await bot.telegram.sendPhoto(chat, { source: bytes, filename: "chart.png" }, { caption: "<b>Sales</b> chart", parse_mode: "HTML" });
  // replyWithPhoto: the visitor's waiting message handled as an update, answered from a Buffer.
  let replied;
  bot.on("message", async (ctx) => {
    replied = await ctx.replyWithPhoto({ source: bytes }, { caption: "<i>again</i>", parse_mode: "HTML" });
  });
  const updates = await bot.telegram.getUpdates(0, 100, 0, undefined);
  for (const update of updates) await bot.handleUpdate(update);
  const album = await bot.telegram.sendMediaGroup(chat, [
    { type: "photo", media: { source: bytes, filename: "one.png" } },
    { type: "photo", media: { source: bytes, filename: "two.png" } },
  ]);
  const link = await bot.telegram.getFileLink(sent.photo.at(-1).file_id);
  const res = await fetch(link.href);
  const downloaded = Buffer.from(await res.arrayBuffer()).toString("base64");
  process.stdout.write(JSON.stringify({ sent, replied, album, downloaded }) + "\n");
}

main().catch((err) => {
  process.stdout.write(JSON.stringify({ error: String(err && err.stack || err) }) + "\n");
  process.exit(1);
});
