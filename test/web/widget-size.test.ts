// The widget stays small. Built exactly as /widget.js serves it, gzipped, and
// checked against the 12 KB budget; the size is printed for the CI log.
import { describe, expect, test } from "bun:test";
import { bundleScript, makeAsset, SCRIPT_ENTRIES, WIDGET_GZIP_BUDGET_BYTES } from "../../src/http/web/assets.ts";
import { testClient } from "../support/harness.ts";

describe("widget.js", () => {
  test(`is at most ${WIDGET_GZIP_BUDGET_BYTES} bytes gzipped`, async () => {
    const asset = makeAsset(await bundleScript(SCRIPT_ENTRIES.widget), "text/javascript");
    console.log(`widget.js: ${asset.body.byteLength} bytes minified, ${asset.gzip.byteLength} bytes gzipped (budget ${WIDGET_GZIP_BUDGET_BYTES})`);
    expect(WIDGET_GZIP_BUDGET_BYTES).toBe(12 * 1024);
    expect(asset.gzip.byteLength).toBeLessThanOrEqual(WIDGET_GZIP_BUDGET_BYTES);
  });

  test("is served gzipped with an ETag, revalidates with 304, and loads cross-origin", async () => {
    const client = await testClient();
    try {
      const res = await client.app.handle(new Request("http://localhost/widget.js", { headers: { "accept-encoding": "gzip, br" } }));
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith("text/javascript");
      expect(res.headers.get("content-encoding")).toBe("gzip");
      expect(res.headers.get("cross-origin-resource-policy")).toBe("cross-origin");
      const gzipped = new Uint8Array(await res.arrayBuffer());
      expect(gzipped.byteLength).toBeLessThanOrEqual(WIDGET_GZIP_BUDGET_BYTES);
      const source = new TextDecoder().decode(Bun.gunzipSync(gzipped));
      for (const name of ["Open chat", "Message", "Send"]) expect(source).toContain(`aria-label="${name}"`);
      const again = await client.app.handle(new Request("http://localhost/widget.js", { headers: { "if-none-match": res.headers.get("etag")! } }));
      expect(again.status).toBe(304);
      const plain = await client.app.handle(new Request("http://localhost/widget.js"));
      expect(plain.headers.get("content-encoding")).toBeNull();
      expect((await plain.text()).length).toBe(source.length);
    } finally {
      await client.platform.close();
    }
  });

  test("the cabinet page and its assets are served, loading nothing from elsewhere", async () => {
    const client = await testClient();
    try {
      const page = await client.app.handle(new Request("http://localhost/"));
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('src="/assets/cabinet.js"');
      expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
      const css = await (await client.app.handle(new Request("http://localhost/assets/cabinet.css"))).text();
      expect(css).not.toMatch(/url\(|@import|@font-face/);
      const js = await client.app.handle(new Request("http://localhost/assets/cabinet.js"));
      expect(js.status).toBe(200);
    } finally {
      await client.platform.close();
    }
  });
});
