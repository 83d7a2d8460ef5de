// A browser's side of Web Push for tests: a subscription key pair, and RFC 8291/8188
// decryption of what the push service receives, so tests can read the notification.

export interface BrowserKeys {
  p256dh: string;
  auth: string;
  privateKey: CryptoKey;
  publicRaw: Uint8Array<ArrayBuffer>;
  authRaw: Uint8Array<ArrayBuffer>;
}

export async function browserKeys(): Promise<BrowserKeys> {
  const pair = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
  const publicRaw = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const authRaw = crypto.getRandomValues(new Uint8Array(16));
  return {
    p256dh: Buffer.from(publicRaw).toString("base64url"),
    auth: Buffer.from(authRaw).toString("base64url"),
    privateKey: pair.privateKey,
    publicRaw,
    authRaw,
  };
}

async function hkdf(salt: BufferSource, ikm: BufferSource, info: BufferSource, length: number): Promise<Uint8Array<ArrayBuffer>> {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info }, key, length * 8));
}

const text = (s: string) => new TextEncoder().encode(s);
const concat = (...parts: Uint8Array[]): Uint8Array<ArrayBuffer> => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

/** Decrypts a single-record aes128gcm body (what web-push sends) with the browser's keys. */
export async function decryptPush(body: Uint8Array<ArrayBuffer>, keys: BrowserKeys): Promise<string> {
  const salt = body.slice(0, 16);
  const idLength = body[20]!;
  const serverPublic = body.slice(21, 21 + idLength);
  const ciphertext = body.slice(21 + idLength);
  const serverKey = await crypto.subtle.importKey("raw", serverPublic, { name: "ECDH", namedCurve: "P-256" }, false, []);
  const shared = new Uint8Array(await crypto.subtle.deriveBits({ name: "ECDH", public: serverKey }, keys.privateKey, 256));
  const ikm = await hkdf(keys.authRaw, shared, concat(text("WebPush: info\0"), keys.publicRaw, serverPublic), 32);
  const cek = await hkdf(salt, ikm, text("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, text("Content-Encoding: nonce\0"), 12);
  const aes = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["decrypt"]);
  const padded = new Uint8Array(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce }, aes, ciphertext));
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("missing last-record delimiter");
  return new TextDecoder().decode(padded.slice(0, end));
}
