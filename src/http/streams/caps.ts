// Open streams hold a socket, a subscription and a heartbeat timer each; without a cap one
// user (or one client address, for the public widget stream) could hold thousands.
import { AppError } from "../../core/errors.ts";

/** A cap is lifted as soon as one of the caller's streams closes; a short wait is the honest hint. */
const STREAM_CAP_RETRY_AFTER_SECONDS = 5;

export class OpenStreams {
  private readonly open = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly who: string,
  ) {}

  /** Takes a slot for `key` or throws 429; the returned release frees it once, however often it is called. */
  reserve(key: string): () => void {
    const count = this.open.get(key) ?? 0;
    if (count >= this.limit) {
      throw new AppError("rate_limited", `too many open streams: at most ${this.limit} per ${this.who}`, STREAM_CAP_RETRY_AFTER_SECONDS);
    }
    this.open.set(key, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(key) ?? 1) - 1;
      if (left <= 0) this.open.delete(key);
      else this.open.set(key, left);
    };
  }

  count(key: string): number {
    return this.open.get(key) ?? 0;
  }
}
