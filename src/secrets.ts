import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Embedded mode has no operator to set JWT_SECRET, so one is generated on first start
 * and kept next to the database: tokens survive restarts, and each install has its own.
 */
export function loadOrCreateEmbeddedSecret(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "jwt-secret");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(48).toString("base64url");
  writeFileSync(file, secret, { mode: 0o600, flag: "wx" });
  return secret;
}

/** AES-256-GCM for values we must show again (bot tokens) but never store in clear. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(masterSecret: string) {
    this.key = createHash("sha256").update(`bot-token-encryption:${masterSecret}`).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    const data = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
    return [iv, cipher.getAuthTag(), data].map((b) => b.toString("base64url")).join(".");
  }

  open(sealed: string): string {
    const [iv, tag, data] = sealed.split(".").map((p) => Buffer.from(p, "base64url"));
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv!);
    decipher.setAuthTag(tag!);
    return Buffer.concat([decipher.update(data!), decipher.final()]).toString("utf8");
  }
}

/** Lookup hash for tokens: fast and deterministic, safe because tokens carry 190+ bits of entropy. */
export const hashToken = (token: string): string => createHash("sha256").update(token).digest("hex");

export const randomKey = (bytes: number): string => randomBytes(bytes).toString("base64url");
