// A streaming multipart/form-data reader: text fields are collected, each file part is
// handed on as a stream while the body is still arriving, so a 50 MB upload is never held
// whole. busboy is lenient where real clients are sloppy (grammY writes `filename=a.png`
// unquoted; a strict parser such as Request.formData() refuses it) and respects back-pressure.
import busboy from "busboy";
import { Readable } from "node:stream";
import { badRequest } from "../core/errors.ts";

export interface FilePart {
  field: string;
  filename: string | undefined;
  /** The part's bytes; must be read to the end (or the whole read fails). */
  stream: AsyncIterable<Uint8Array>;
  /** The text fields that came before this part. */
  fieldsSoFar: Record<string, string>;
}

export interface MultipartLimits {
  maxFiles: number;
  /** Each text field's bound: a "field" holding megabytes is someone probing, not a client. */
  maxFieldBytes: number;
  /** Text fields at most; Telegram's methods have a few dozen parameters. */
  maxFields?: number;
}

/** Why: Telegram's richest method has about 30 parameters; hundreds is a flood, not a call. */
const MAX_FIELDS = 200;

export function readMultipart<T>(
  contentType: string, body: ReadableStream<Uint8Array>, onFile: (part: FilePart) => Promise<T>, limits: MultipartLimits,
): Promise<{ fields: Record<string, string>; files: Map<string, T> }> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { "content-type": contentType },
        limits: { files: limits.maxFiles, fieldSize: limits.maxFieldBytes, fields: limits.maxFields ?? MAX_FIELDS },
      });
    } catch {
      reject(badRequest("can't parse multipart/form-data body: no boundary"));
      return;
    }
    const source = Readable.fromWeb(body as never);
    const fields: Record<string, string> = {};
    const files = new Map<string, T>();
    const pending: Promise<unknown>[] = [];
    let failed = false;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      source.unpipe(parser);
      source.destroy();
      parser.removeAllListeners("close");
      reject(err);
    };
    parser.on("field", (name, value, info) => {
      if (info.valueTruncated) fail(badRequest(`${name}: a form field may hold at most ${limits.maxFieldBytes} bytes`));
      else fields[name] = value;
    });
    parser.on("file", (field, stream, info) => {
      if (failed) {
        stream.resume();
        return;
      }
      pending.push(onFile({ field, filename: info.filename, stream, fieldsSoFar: { ...fields } }).then((r) => files.set(field, r), fail));
    });
    parser.on("filesLimit", () => fail(badRequest(`at most ${limits.maxFiles} files per request`)));
    parser.on("fieldsLimit", () => fail(badRequest("too many form fields")));
    parser.on("error", () => fail(badRequest("can't parse multipart/form-data body")));
    source.on("error", () => fail(badRequest("the request body ended early")));
    parser.on("close", () => {
      Promise.all(pending).then(() => {
        if (!failed) resolve({ fields, files });
      });
    });
    source.pipe(parser);
  });
}
