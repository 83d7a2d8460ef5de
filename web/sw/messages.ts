// What the service worker tells an open cabinet tab. Shared by both sides so the names
// cannot drift apart.

/** Sent to a cabinet tab when the operator clicks a notification: open this route. */
export const OPEN_ROUTE = "botinbox:open-route";

export interface OpenRouteMessage {
  type: typeof OPEN_ROUTE;
  /** A cabinet route such as `#/inbox/<conversation id>`. */
  hash: string;
}

/** Only the cabinet's own routes are followed, whatever a payload says. */
export const isCabinetRoute = (hash: string) => /^#\/[\w/-]*$/.test(hash);
