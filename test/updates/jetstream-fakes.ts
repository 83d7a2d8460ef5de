// Connections that behave as a NATS server in some state would, for the JetStream update log's tests.
import type { JetStreamManager, MsgRequest } from "nats";

/** `target` with some members replaced: a connection that behaves as a server in some state would. */
export const bound = <T extends object>(target: T, override: Record<string | symbol, unknown>): T => new Proxy(target, {
  get: (t, k) => {
    if (k in override) return override[k];
    const value: unknown = Reflect.get(t, k);
    return typeof value === "function" ? value.bind(t) : value;
  },
});

/** A getMessage whose answer to "the next message on the subject" passes the one at `skip.seq`, once. */
export const skippingOnce = (realJsm: JetStreamManager, skip: { seq: number }) => async (stream: string, query: MsgRequest) => {
  const answer = await realJsm.streams.getMessage(stream, query);
  const q = query as { next_by_subj?: string };
  if (!q.next_by_subj || answer.seq !== skip.seq) return answer;
  skip.seq = 0;
  return realJsm.streams.getMessage(stream, { ...q, seq: answer.seq + 1 } as unknown as MsgRequest);
};
