// The installable app: the service worker (push and the offline shell, web/sw/) is
// registered on every load, not only when push is switched on, so the cabinet opens
// without a network once it has been opened with one.
import { SERVICE_WORKER_URL } from "./push.ts";

export function registerOfflineShell(): void {
  if (!("serviceWorker" in navigator)) return;
  // A browser that refuses (private mode, an insecure origin) still runs the cabinet online.
  navigator.serviceWorker.register(SERVICE_WORKER_URL, { scope: "/" }).catch(() => undefined);
}
