// The JetStream API error codes we act on, and how to read one off what the client threw.
// Plain data: the embedded process imports this without loading the NATS client.

/** A failed expected-last-sequence check: a KV compare-and-set lost to another writer. */
export const JS_WRONG_LAST_SEQUENCE = 10071;
/**
 * "subjects overlap with an existing stream": nats-server 2.9 can answer it to the later of two
 * processes creating the same stream at once (KV and object store create on first use), while
 * the first is being made; asked again, the stream exists.
 */
export const JS_STREAM_SUBJECTS_OVERLAP = 10065;

export const jetStreamErrorCode = (err: unknown): number | undefined =>
  (err as { api_error?: { err_code?: number } } | undefined)?.api_error?.err_code;

export const isWrongLastSequence = (err: unknown) => jetStreamErrorCode(err) === JS_WRONG_LAST_SEQUENCE;
