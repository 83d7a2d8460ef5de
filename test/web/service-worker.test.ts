// The service worker's handlers (web/sw/handlers.ts) against a fake worker scope: what a
// push shows, and where a click on the notification leads.
import { describe, expect, test } from "bun:test";
import { FALLBACK_ROUTE, FALLBACK_TITLE, listen, type WindowClientLike, type WorkerScope } from "../../web/sw/handlers.ts";
import { OPEN_ROUTE } from "../../web/sw/messages.ts";
import { testClient } from "../support/harness.ts";

const ORIGIN = "https://cabinet.example";
const CONVERSATION = "0b6f2a4e-9d7c-4a51-8f0e-3c2d1b0a9e87";

function fakeWorker(tabs: WindowClientLike[] = []) {
  const listeners = new Map<string, (event: any) => void>();
  const shown: { title: string; options: NotificationOptions }[] = [];
  const opened: string[] = [];
  const scope: WorkerScope = {
    location: { origin: ORIGIN },
    registration: { showNotification: async (title, options) => void shown.push({ title, options }) },
    clients: {
      matchAll: async () => tabs,
      openWindow: async (url) => void opened.push(url),
      claim: async () => {},
    },
    skipWaiting: async () => {},
    addEventListener: (type, listener) => void listeners.set(type, listener),
  };
  listen(scope);
  /** Dispatches like the browser, and resolves once the worker's waitUntil work is done. */
  const fire = async (type: string, event: object) => {
    const pending: Promise<unknown>[] = [];
    listeners.get(type)!({ ...event, waitUntil: (work: Promise<unknown>) => pending.push(work) });
    await Promise.all(pending);
    return pending.length;
  };
  return { shown, opened, fire };
}

const pushOf = (payload: unknown) => ({ data: { json: () => (typeof payload === "string" ? JSON.parse(payload) : payload) } });
const clickOn = (data: unknown) => {
  const notification = { data, closed: false, close: () => void (notification.closed = true) };
  return notification;
};

function tab(url: string) {
  const posted: unknown[] = [];
  const client = { url, focused: false, posted, focus: async () => void (client.focused = true), postMessage: (m: unknown) => void posted.push(m) };
  return client;
}

describe("service worker", () => {
  test("/sw.js is served as JavaScript, revalidated on every load", async () => {
    const client = await testClient();
    try {
      const res = await client.app.handle(new Request("http://localhost/sw.js"));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/javascript");
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(res.headers.get("service-worker-allowed")).toBeNull();
      const script = await res.text();
      expect(script).toContain("notificationclick");
      const again = await client.app.handle(new Request("http://localhost/sw.js", { headers: { "if-none-match": res.headers.get("etag")! } }));
      expect(again.status).toBe(304);
    } finally {
      await client.platform.close();
    }
  });

  test("a push shows its title and body, tagged by conversation, with the url to open", async () => {
    const worker = fakeWorker();
    const url = `${ORIGIN}/#/inbox/${CONVERSATION}`;
    const waited = await worker.fire("push", pushOf({ title: "Ada · Shop helper", body: "Where is my order?", conversation_id: CONVERSATION, bot_id: "b1", url }));
    expect(waited).toBe(1);
    expect(worker.shown).toEqual([{ title: "Ada · Shop helper", options: { body: "Where is my order?", tag: CONVERSATION, data: { url } } }]);
  });

  test("an unreadable payload still shows a notification (userVisibleOnly promises one)", async () => {
    const worker = fakeWorker();
    await worker.fire("push", pushOf("not json {"));
    await worker.fire("push", { data: null });
    await worker.fire("push", pushOf({ title: 42, body: ["x"] }));
    expect(worker.shown.map((s) => s.title)).toEqual([FALLBACK_TITLE, FALLBACK_TITLE, FALLBACK_TITLE]);
    expect(worker.shown[2]!.options).toEqual({ body: "", data: { url: "" } });
  });

  test("a click focuses an open cabinet tab and asks it to open the conversation", async () => {
    const other = tab("https://elsewhere.example/");
    const cabinet = tab(`${ORIGIN}/#/bots`);
    const worker = fakeWorker([other, cabinet]);
    const notification = clickOn({ url: `http://localhost:3000/#/inbox/${CONVERSATION}` });
    await worker.fire("notificationclick", { notification });
    expect(notification.closed).toBe(true);
    // Only the hash counts: PUBLIC_URL may name another address than this cabinet's.
    expect(cabinet.posted).toEqual([{ type: OPEN_ROUTE, hash: `#/inbox/${CONVERSATION}` }]);
    expect(cabinet.focused).toBe(true);
    expect(other.posted).toEqual([]);
    expect(worker.opened).toEqual([]);
  });

  test("without an open cabinet a click opens one at the conversation", async () => {
    const worker = fakeWorker([tab(`${ORIGIN}/widget.js`)]);
    await worker.fire("notificationclick", { notification: clickOn({ url: `${ORIGIN}/#/inbox/${CONVERSATION}` }) });
    expect(worker.opened).toEqual([`${ORIGIN}/#/inbox/${CONVERSATION}`]);
  });

  test("a url without a cabinet route leads to the inbox", async () => {
    const worker = fakeWorker();
    for (const url of ["javascript:alert(1)", "https://evil.example/#javascript:alert(1)", "not a url", ""]) {
      await worker.fire("notificationclick", { notification: clickOn({ url }) });
    }
    await worker.fire("notificationclick", { notification: clickOn(null) });
    expect(worker.opened).toEqual(Array(5).fill(`${ORIGIN}/${FALLBACK_ROUTE}`));
  });
});
