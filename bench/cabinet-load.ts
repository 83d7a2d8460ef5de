// The cabinet's weight and first load: cabinet.js as served (minified, gzipped), and in
// Debian's Chromium the time from navigation start to the first inbox row on screen, the
// median of several cold loads (a fresh browser context each: no cache, no service worker).
// Run: bun bench/cabinet-load.ts [loads]
export {};
process.env.LOG_LEVEL ??= "silent";
process.env.JWT_SECRET ??= "bench-secret-bench-secret-bench-secret-0123456789";
process.env.RATE_LIMITS ??= "off";

const { bundleScript, makeAsset, SCRIPT_ENTRIES } = await import("../src/http/web/assets.ts");
const { apiCall, launch, localContext, startPlatform } = await import("../test/browser/support.ts");

/** Odd, so the median is one measured load. */
const DEFAULT_LOADS = 9;
/** Enough rows to fill the list pane on a desktop. */
const CONVERSATIONS = 30;

const loads = Number(process.argv[2] ?? DEFAULT_LOADS);
const asset = makeAsset(await bundleScript(SCRIPT_ENTRIES.cabinet), "text/javascript");
console.log(`cabinet.js: ${asset.body.byteLength} bytes minified, ${asset.gzip.byteLength} bytes gzipped`);

const server = await startPlatform();
const browser = await launch();
try {
  const email = `bench-${Date.now()}@example.com`;
  const { token } = await apiCall(server.url, "POST", "/api/auth/register", { email, password: "secret123" });
  const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Bench bot" }, token);
  for (let i = 1; i <= CONVERSATIONS; i++) {
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: `bench-${i}`, channel: "web", text: `Question ${i}`, user: { first_name: `Visitor ${i}` } });
  }
  // The server bundles on first request; that one-off cost is not a page load's.
  await fetch(`${server.url}/assets/cabinet.js`);

  const times: number[] = [];
  for (let i = 0; i < loads; i++) {
    const context = await localContext(browser, [], { viewport: { width: 1366, height: 900 } });
    await context.addInitScript(([t, e]) => {
      localStorage.setItem("botinbox:token", t!);
      localStorage.setItem("botinbox:email", e!);
      // The moment the first conversation row is in the DOM, relative to navigation start.
      new MutationObserver((_, observer) => {
        if (document.querySelector(".conv")) {
          (window as unknown as { firstRow: number }).firstRow = performance.now();
          observer.disconnect();
        }
      }).observe(document, { childList: true, subtree: true });
    }, [token, email]);
    const page = await context.newPage();
    await page.goto(`${server.url}/#/inbox`);
    await page.locator(".conv").first().waitFor({ timeout: 30_000 });
    times.push(await page.evaluate(() => (window as unknown as { firstRow: number }).firstRow));
    await context.close();
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(`first inbox row: median ${median.toFixed(0)} ms of ${loads} cold loads (min ${times[0]!.toFixed(0)}, max ${times.at(-1)!.toFixed(0)})`);
} finally {
  await browser.close();
  await server.stop();
}
process.exit(0);
