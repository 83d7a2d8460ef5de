// The fuzz's vocabulary: a seeded generator, hostile JSON values (as raw text, so a
// 10,000-deep value costs no recursion to build), hostile query-string values and the
// facade methods with plausible parameters.

export type Rng = () => number;

/** A small seeded PRNG: the same seed gives the same run. */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DEEP_OBJECT = `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`;
const DEEP_ARRAY = `${"[".repeat(10_000)}${"]".repeat(10_000)}`;

/** JSON texts, each one value. */
const HOSTILE_JSON = [
  DEEP_OBJECT, DEEP_ARRAY, '"\\u0000"', '"a\\u0000b"', '"\\ud800"', '"x\\udfffy"', '"\\ud83d"', "1e308", "-1e308", "9223372036854775808",
  "-9223372036854775809", "9007199254740993", "99999999999999999999999999", "1.5", "-1", "0", "true", "false", "null", "[]",
  "{}", "[[[[[]]]]]", '""', '" "', `"${"x".repeat(5000)}"`, `"${"y".repeat(70_000)}"`, '"🙂"', '"<script>alert(1)</script>"',
  "\"' OR 1=1 --\"", '"../../etc/passwd"', '"%00"', '"NaN"', '"1e308"', '"9223372036854775808"', '"\\u202e\\ufeff"',
  '{"__proto__":{"x":1}}', '["a",1,null,{"b":[]}]', '"http://[::ffff:0:127.0.0.1]/"', '"http://[2001:0::1]/"', '"javascript:alert(1)"',
];

export function hostileValues(rng: Rng): string {
  return HOSTILE_JSON[Math.floor(rng() * HOSTILE_JSON.length)]!;
}

/** Already percent-encoded query values (some deliberately invalid UTF-8 or escapes). */
export const QUERY_VALUES = [
  "%00", "a%00b", "%ED%A0%80", "%C0%80", "%ZZ", "%", "1e308", "9223372036854775808", "-9223372036854775809", "99999999999999999999",
  "-1", "1.5", "abc", "", "true", "[]", "%7B%7D", "x".repeat(5000), "NaN", "Infinity", "%F0%9F%99%82", "0x10",
];

interface FacadeContext {
  chat: string;
  messageId: number;
  url: string;
}

/** Every facade method with a plausible call. */
export const FACADE_METHODS = (ctx: () => FacadeContext): Record<string, Record<string, unknown>> => {
  const { chat, messageId, url } = ctx();
  return {
    getMe: {},
    getUpdates: { offset: 0, limit: 5, timeout: 0 },
    sendMessage: { chat_id: chat, text: "hello", reply_markup: { inline_keyboard: [[{ text: "a", callback_data: "b" }]] } },
    editMessageText: { chat_id: chat, message_id: messageId, text: "edited" },
    deleteMessage: { chat_id: chat, message_id: messageId },
    sendChatAction: { chat_id: chat, action: "typing" },
    setMyCommands: { commands: [{ command: "start", description: "Start" }] },
    getMyCommands: {},
    deleteMyCommands: {},
    setWebhook: { url, max_connections: 5, allowed_updates: ["message"] },
    deleteWebhook: { drop_pending_updates: false },
    getWebhookInfo: {},
    logOut: {},
    close: {},
    noSuchMethod: { x: 1 },
  };
};
