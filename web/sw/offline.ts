// The offline shell: the cabinet's page, script, style, manifest and icons are kept in a
// cache at install and answered from it when the network is away, so the installed app
// opens (and shows that it is offline) without a connection. Network first: the cabinet is
// served `no-cache`, and an operator must never run yesterday's code while online. The API
// is never cached (it is live data behind a token).

export const SHELL_CACHE = "botinbox-shell-v1";
export const SHELL_URLS = ["/", "/assets/cabinet.js", "/assets/cabinet.css", "/manifest.webmanifest", "/icons/icon-192.png", "/icons/icon-512.png"];

interface CacheLike {
  add(url: string): Promise<void>;
  put(request: Request | string, response: Response): Promise<void>;
  match(request: Request | string): Promise<Response | undefined>;
}
export interface OfflineScope {
  location: { origin: string };
  caches?: { open(name: string): Promise<CacheLike>; keys(): Promise<string[]>; delete(name: string): Promise<boolean> };
}
interface FetchEventLike {
  request: Request;
  respondWith(response: Promise<Response>): void;
}

/** The shell's URL a request stands for: any page navigation is the cabinet's page. */
export function shellUrlOf(request: Request, origin: string): string | null {
  if (request.method !== "GET") return null;
  const url = new URL(request.url);
  if (url.origin !== origin) return null;
  if (request.mode === "navigate" && url.pathname === "/") return "/";
  return SHELL_URLS.includes(url.pathname) && url.pathname !== "/" ? url.pathname : null;
}

export async function cacheShell(scope: OfflineScope): Promise<void> {
  if (!scope.caches) return;
  const cache = await scope.caches.open(SHELL_CACHE);
  // One file failing must neither stop the worker installing (push still works) nor leave
  // the others out (addAll is all or nothing): each is cached on its own.
  await Promise.all(SHELL_URLS.map((url) => cache.add(url).catch(() => undefined)));
  for (const name of await scope.caches.keys()) if (name.startsWith("botinbox-shell-") && name !== SHELL_CACHE) await scope.caches.delete(name);
}

export function answerFromShell(scope: OfflineScope, event: FetchEventLike): void {
  const { caches } = scope;
  if (!caches) return;
  const shellUrl = shellUrlOf(event.request, scope.location.origin);
  if (!shellUrl) return;
  event.respondWith((async () => {
    try {
      const response = await fetch(event.request);
      if (response.ok) {
        const cache = await caches.open(SHELL_CACHE);
        await cache.put(shellUrl, response.clone());
      }
      return response;
    } catch (err) {
      const cached = await (await caches.open(SHELL_CACHE)).match(shellUrl);
      if (cached) return cached;
      throw err;
    }
  })());
}
