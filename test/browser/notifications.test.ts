// Push notifications in the cabinet, in a real Chromium: /sw.js registers, the header's
// control renders and reports a failed subscribe (there is no push service on this closed
// network) without breaking the page, and a notification's link (#/inbox/<id>) opens the
// conversation, also through the login page.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { RunningServer } from "../../src/server.ts";
import { uniqueEmail } from "../support/harness.ts";
import { apiCall, launch, localContext, screenshot, skipBrowser, SLOW_MS, startPlatform, UI_WAIT_MS } from "./support.ts";
import { SUBSCRIBE_TIMEOUT_MS } from "../../web/cabinet/push.ts";

setDefaultTimeout(SLOW_MS);
/** A failed subscribe may only show once the cabinet's own timeout has passed. */
const FAILURE_WAIT_MS = SUBSCRIBE_TIMEOUT_MS + UI_WAIT_MS;
/**
 * Chromium's own console line when a page in an incognito-like context (every Playwright
 * context) subscribes: the failure this test provokes, not one of the cabinet's.
 */
const POLL_MS = 100;
/** The narrowest phone the cabinet is laid out for. */
const NARROW_PX = 360;
const CHROMIUM_INCOGNITO_PUSH = "does not support the Push API in incognito mode";

/** The push service's address for the fake subscription; the test config allows private hosts. */
const FAKE_ENDPOINT = "http://127.0.0.1:9/push/fake-subscription";

/**
 * Runs in the page: a push service that always answers, standing in for the real one this
 * closed network cannot reach. Its subscription lives in localStorage, so it survives reloads.
 */
function fakePushService(endpoint: string) {
  const toBase64Url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const fromBase64Url = (text: string) => Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const P256DH = new Uint8Array(65).fill(4);
  const AUTH = new Uint8Array(16).fill(7);
  const subscription = () => {
    const key = localStorage.getItem("fake-push:key");
    if (!localStorage.getItem("fake-push:endpoint") || !key) return null;
    return {
      endpoint,
      options: { applicationServerKey: fromBase64Url(key).buffer, userVisibleOnly: true },
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: toBase64Url(P256DH), auth: toBase64Url(AUTH) } }),
      unsubscribe: async () => {
        localStorage.removeItem("fake-push:endpoint");
        return true;
      },
    };
  };
  PushManager.prototype.getSubscription = async function () {
    return subscription() as unknown as PushSubscription;
  };
  PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
    localStorage.setItem("fake-push:key", toBase64Url(new Uint8Array(options!.applicationServerKey as Uint8Array)));
    localStorage.setItem("fake-push:endpoint", endpoint);
    return subscription() as unknown as PushSubscription;
  };
}

/** Why: a dropped push is handed over again after this; a shown one never waits for it. */
const PUSH_REDELIVER_MS = 5000;

async function waitUntil(check: () => Promise<boolean>, ms = UI_WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(POLL_MS);
  }
}

describe.skipIf(skipBrowser)("push notifications in the cabinet", () => {
  let server: RunningServer;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const blocked: string[] = [];
  const failures: string[] = [];
  const email = uniqueEmail("notify");
  const password = "secret123";
  let token: string;
  let conversationId: string;

  /** A page that records its errors; `loggedIn` puts the token in place before any script runs. */
  async function openPage(options: { loggedIn?: boolean; withoutPush?: boolean; fakePushService?: boolean; permissions?: string[] } = {}): Promise<Page> {
    const context = await localContext(browser, blocked, { viewport: { width: 1280, height: 800 } });
    contexts.push(context);
    if (options.permissions) await context.grantPermissions(options.permissions, { origin: server.url });
    if (options.loggedIn) {
      await context.addInitScript(([t, e]) => {
        localStorage.setItem("botinbox:token", t!);
        localStorage.setItem("botinbox:email", e!);
      }, [token, email]);
    }
    if (options.withoutPush) await context.addInitScript(() => void delete (window as any).PushManager);
    if (options.fakePushService) await context.addInitScript(fakePushService, FAKE_ENDPOINT);
    const page = await context.newPage();
    page.on("requestfailed", (req) => {
      if (!(req.url().includes("/stream") && req.failure()?.errorText.includes("ERR_ABORTED"))) failures.push(`${req.url()} ${req.failure()?.errorText}`);
    });
    page.on("pageerror", (err) => failures.push(`page error: ${err.message}`));
    page.on("console", (msg) => {
      if (msg.type() === "error" && !msg.text().includes(CHROMIUM_INCOGNITO_PUSH)) failures.push(`console: ${msg.text()}`);
    });
    return page;
  }

  beforeAll(async () => {
    server = await startPlatform();
    browser = await launch();
    token = (await apiCall(server.url, "POST", "/api/auth/register", { email, password })).token;
    const bot = await apiCall(server.url, "POST", "/api/bots", { name: "Pager" }, token);
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: "paged", channel: "web", text: "Is anyone there?", user: { first_name: "Pat" } });
    await apiCall(server.url, "POST", "/api/messages", { bot_id: bot.id, chat_id: "other", channel: "web", text: "Another chat", user: { first_name: "Quinn" } });
    const conversations = await apiCall(server.url, "GET", "/api/inbox", undefined, token);
    conversationId = conversations.find((c: any) => c.chat_id === "paged").id;
  }, SLOW_MS);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  }, SLOW_MS);

  test("/sw.js is JavaScript at the root and registers in Chromium", async () => {
    const res = await fetch(`${server.url}/sw.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^(text|application)\/javascript\b/);
    expect(res.headers.get("cache-control")).toBe("no-cache");

    const page = await openPage();
    await page.goto(`${server.url}/`);
    const registered = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.register("/sw.js");
      const { active } = await navigator.serviceWorker.ready;
      // `ready` may resolve while the worker is still activating.
      if (active?.state === "activating") await new Promise((done) => active.addEventListener("statechange", done, { once: true }));
      return { scope: registration.scope, active: active?.state, script: active?.scriptURL };
    });
    expect(registered).toEqual({ scope: `${server.url}/`, active: "activated", script: `${server.url}/sw.js` });
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
  });

  test("a push delivered to the worker shows its notification", async () => {
    const page = await openPage({ permissions: ["notifications"] });
    await page.goto(`${server.url}/`);
    // DevTools can hand the worker a push message as if the push service had sent one.
    const cdp = await page.context().newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on("ServiceWorker.workerRegistrationUpdated", (event) => void registrations.push(...event.registrations));
    await cdp.send("ServiceWorker.enable");
    await page.evaluate(async () => {
      await navigator.serviceWorker.register("/sw.js");
      await navigator.serviceWorker.ready;
    });
    const registration = registrations.find((r) => r.scopeURL === `${server.url}/` && !r.isDeleted)!;
    const url = `${server.url}/#/inbox/${conversationId}`;
    const deliver = () => cdp.send("ServiceWorker.deliverPushMessage", {
      origin: server.url,
      registrationId: registration.registrationId,
      data: JSON.stringify({ title: "Pat · Pager", body: "Is anyone there?", conversation_id: conversationId, bot_id: "b", url }),
    });
    const shown = () => page.evaluate(async () =>
      (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })));
    // On a loaded machine DevTools can drop a push handed over while the worker is still
    // starting; a push service redelivers too. The same tag replaces, so one shows either way.
    let lastDelivery = 0;
    await waitUntil(async () => {
      if ((await shown()).length > 0) return true;
      if (Date.now() - lastDelivery > PUSH_REDELIVER_MS) {
        lastDelivery = Date.now();
        await deliver();
      }
      return false;
    });
    await expect(shown()).resolves.toEqual([{ title: "Pat · Pager", body: "Is anyone there?", tag: conversationId, data: { url } }]);
    expect(failures).toEqual([]);
  });

  test("a notification's link opens the conversation after logging in", async () => {
    const page = await openPage();
    await page.goto(`${server.url}/#/inbox/${conversationId}`);
    await page.getByRole("heading", { name: "Log in to your inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.locator(".bubble", { hasText: "Is anyone there?" }).waitFor({ timeout: UI_WAIT_MS });
    expect(page.url()).toEndWith(`#/inbox/${conversationId}`);

    // Already logged in: the link opens the conversation straight away.
    const direct = await openPage({ loggedIn: true });
    await direct.goto(`${server.url}/#/inbox/${conversationId}`);
    await direct.getByRole("heading", { name: "Pat" }).waitFor({ timeout: UI_WAIT_MS });
    await direct.locator(".bubble", { hasText: "Is anyone there?" }).waitFor({ timeout: UI_WAIT_MS });
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
  });

  test("a clicked notification's message moves an open cabinet to the conversation", async () => {
    const page = await openPage({ loggedIn: true });
    await page.goto(`${server.url}/#/inbox`);
    await page.locator(".conv").nth(1).waitFor({ timeout: UI_WAIT_MS });
    // What the service worker posts on notificationclick (web/sw/handlers.ts), and a
    // message naming something else, which is ignored.
    await page.evaluate(() => navigator.serviceWorker.dispatchEvent(new MessageEvent("message", { data: { type: "botinbox:open-route", hash: "javascript:alert(1)" } })));
    await page.evaluate((id) => navigator.serviceWorker.dispatchEvent(new MessageEvent("message", { data: { type: "botinbox:open-route", hash: `#/inbox/${id}` } })), conversationId);
    await page.locator(".bubble", { hasText: "Is anyone there?" }).waitFor({ timeout: UI_WAIT_MS });
    expect(page.url()).toEndWith(`#/inbox/${conversationId}`);
    expect(failures).toEqual([]);
  });

  test("the control renders, and a failing subscribe shows an error, not a broken page", async () => {
    const page = await openPage({ loggedIn: true, permissions: ["notifications"] });
    await page.goto(`${server.url}/#/inbox`);
    const control = page.getByRole("button", { name: /^Notifications/ });
    await page.locator('.notify[data-state="off"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(control.getAttribute("aria-pressed")).resolves.toBe("false");
    await screenshot(page, "cabinet-notifications-off");

    // Watched from before the click: the toast disappears after a few seconds, which a
    // loaded machine can spend between the state change and a later check.
    const toastShown = page.locator(".toast.error").first().waitFor({ timeout: FAILURE_WAIT_MS });
    await control.click();
    await page.locator('.notify[data-state="error"]').waitFor({ timeout: FAILURE_WAIT_MS });
    await toastShown;
    await expect(control.getAttribute("aria-label")).resolves.toBe("Notifications: Error");
    await expect(control.getAttribute("title")).resolves.toBeTruthy();
    await expect(control.isEnabled()).resolves.toBe(true);
    await screenshot(page, "cabinet-notifications-error");
    // The service worker was registered on the way, and nothing reached the server.
    await expect(page.evaluate(async () => Boolean((await navigator.serviceWorker.getRegistration("/"))?.active))).resolves.toBe(true);
    await expect(apiCall(server.url, "GET", "/api/push/subscriptions", undefined, token)).resolves.toEqual([]);

    // The page still works.
    await page.locator(".conv", { hasText: "Pat" }).click();
    await page.locator(".bubble", { hasText: "Is anyone there?" }).waitFor({ timeout: UI_WAIT_MS });
    expect(blocked).toEqual([]);
    expect(failures).toEqual([]);
  });

  test("with a push service: on, still on after a reload, off, and off again on logout", async () => {
    // Log-out revokes the page's token: the page gets a session of its own, so the other pages keep theirs.
    const shared = token;
    token = (await apiCall(server.url, "POST", "/api/auth/login", { email, password })).token;
    const pageToken = token;
    const page = await openPage({ loggedIn: true, permissions: ["notifications"], fakePushService: true });
    token = shared;
    const control = page.getByRole("button", { name: /^Notifications/ });
    const serverEndpoints = async () => (await apiCall(server.url, "GET", "/api/push/subscriptions", undefined, token)).map((s: any) => s.endpoint);
    const { public_key } = await apiCall(server.url, "GET", "/api/push/public-key", undefined, token);
    await page.goto(`${server.url}/#/inbox`);
    await page.locator('.notify[data-state="off"]').waitFor({ timeout: UI_WAIT_MS });

    await control.click();
    await page.locator('.notify[data-state="on"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(control.getAttribute("aria-pressed")).resolves.toBe("true");
    // subscribe() got the server's VAPID key as bytes.
    await expect(page.evaluate(() => localStorage.getItem("fake-push:key"))).resolves.toBe(public_key.replace(/=+$/, ""));
    await expect(serverEndpoints()).resolves.toEqual([FAKE_ENDPOINT]);
    await screenshot(page, "cabinet-notifications-on");

    await page.reload();
    await page.locator('.notify[data-state="on"]').waitFor({ timeout: UI_WAIT_MS });
    await control.click();
    await page.locator('.notify[data-state="off"]').waitFor({ timeout: UI_WAIT_MS });
    await expect(serverEndpoints()).resolves.toEqual([]);
    await expect(page.evaluate(() => localStorage.getItem("fake-push:endpoint"))).resolves.toBeNull();

    await control.click();
    await page.locator('.notify[data-state="on"]').waitFor({ timeout: UI_WAIT_MS });
    await page.getByRole("button", { name: "Log out" }).click();
    await waitUntil(async () => (await serverEndpoints()).length === 0);
    await waitUntil(async () => (await fetch(`${server.url}/api/auth/me`, { headers: { authorization: `Bearer ${pageToken}` } })).status === 401);
    expect(failures).toEqual([]);
  });

  test("the control is hidden where the browser has no Web Push", async () => {
    const page = await openPage({ loggedIn: true, withoutPush: true });
    await page.goto(`${server.url}/#/inbox`);
    await page.getByRole("heading", { name: "Inbox" }).waitFor({ timeout: UI_WAIT_MS });
    await expect(page.locator(".notify").count()).resolves.toBe(0);
    expect(failures).toEqual([]);
  });

  test(`fits the header on a ${NARROW_PX} px screen`, async () => {
    const page = await openPage({ loggedIn: true });
    await page.setViewportSize({ width: NARROW_PX, height: 640 });
    await page.goto(`${server.url}/#/inbox`);
    await page.locator('.notify[data-state="off"]').waitFor({ timeout: UI_WAIT_MS });
    await screenshot(page, "cabinet-notifications-narrow");
    for (const selector of [".notify", ".topbar-end button.ghost:not(.notify)"]) {
      const box = (await page.locator(selector).boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(NARROW_PX);
    }
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(NARROW_PX);
  });
});
