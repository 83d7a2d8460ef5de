// Chaos harness, files: a bot uploading files in a loop to the web processes while a scenario
// breaks things; every upload answered 200 is acknowledged and must later download, from every
// web process, with the same bytes.
import { createHash, randomBytes } from "node:crypto";
import type { Bot } from "./traffic.ts";

/** Big enough to span several Object Store chunks (128 KiB each), small enough to send many. */
const UPLOAD_BYTES = 300 * 1024;
const REQUEST_TIMEOUT_MS = 15_000;
/** Downloads checked in parallel at the end, so a scenario's budget is not spent on them. */
const CHECKS_AT_ONCE = 8;

interface Acked {
  file_id: string;
  url: string;
  sha256: string;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

export class Uploads {
  readonly acked: Acked[] = [];
  readonly refused: string[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly urls: () => string[], private readonly bot: Bot) {}

  start(): this {
    this.running = true;
    this.loop = (async () => {
      for (let i = 0; this.running; i++) {
        const bytes = randomBytes(UPLOAD_BYTES);
        const base = this.urls()[i % this.urls().length]!;
        const data = new FormData();
        data.append("file", new Blob([bytes]), `upload-${i}.bin`);
        try {
          const res = await fetch(`${base}/api/bots/${this.bot.id}/upload-file`, {
            method: "POST", body: data, headers: { authorization: `Bearer ${this.bot.token}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
          });
          const body = (await res.json()) as any;
          if (res.status === 200) this.acked.push({ file_id: body.result.file_id, url: body.result.url, sha256: sha256(bytes) });
          else this.refused.push(`${res.status} ${body.error}`);
        } catch (err) {
          this.refused.push(String(err));
        }
      }
    })();
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Acknowledged uploads that some web process cannot serve with the same bytes (checked a few at a time). */
  async lost(): Promise<string[]> {
    const problems: string[] = [];
    const checks = this.acked.flatMap((file, index) => this.urls().map((base) => ({ file, index, base })));
    const worker = async () => {
      for (let next = checks.shift(); next; next = checks.shift()) {
        const problem = await this.check(next.file, next.base);
        if (problem) problems.push(`upload #${next.index} ${next.file.file_id} from ${next.base}: ${problem}`);
      }
    };
    await Promise.all(Array.from({ length: CHECKS_AT_ONCE }, worker));
    return problems;
  }

  private async check(file: Acked, base: string): Promise<string | undefined> {
    const link = new URL(file.url);
    try {
      const res = await fetch(`${base}${link.pathname}${link.search}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
      if (res.status !== 200) return `status ${res.status}`;
      if (sha256(new Uint8Array(await res.arrayBuffer())) !== file.sha256) return "other bytes";
    } catch (err) {
      return String(err);
    }
    return undefined;
  }
}
