// What the cabinet fills itself in with (the bots, the team strip) is asked again after a
// failure that passes (the server unreachable, restarting or rate-limiting), waiting longer
// each time, as the live feed reconnects: a cabinet opened at such a moment fills in without
// a reload instead of showing no bots until the next one.
import { ApiError } from "./api.ts";

/** Why: soon enough that a moment's 503 goes unnoticed, late enough not to add to a burst of 429s. */
export const FIRST_RETRY_MS = 1_000;
/** Why: a server down for minutes is asked twice a minute per open cabinet, not hammered. */
export const MAX_RETRY_MS = 30_000;

/** A failure that asking again may cure: no answer, 429, or a 5xx. A 4xx is the answer. */
export function isPassing(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 0 || err.status === 429 || err.status >= 500);
}

/**
 * Runs `load` until it succeeds or fails for good (isPassing says no); the returned function
 * stops it: a retry not yet due is dropped, and `load` sees `stopped()` once its caller has gone.
 */
export function keepLoading(load: (stopped: () => boolean) => Promise<void>): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wait = FIRST_RETRY_MS;
  const attempt = (): void => {
    load(() => stopped).catch((err: unknown) => {
      if (stopped || !isPassing(err)) return;
      timer = setTimeout(attempt, wait);
      wait = Math.min(wait * 2, MAX_RETRY_MS);
    });
  };
  attempt();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
