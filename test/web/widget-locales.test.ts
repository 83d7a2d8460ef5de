// The widget's languages: every served language has every English key, is served to any
// site (CORS) and cached like widget.js, and none of them is inside widget.js itself.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { bundleScript, SCRIPT_ENTRIES, WEB_DIR } from "../../src/http/web/assets.ts";
import { LOCALES } from "../../web/widget/i18n.ts";
import { testClient } from "../support/harness.ts";

const strings = (lang: string) => JSON.parse(readFileSync(join(WEB_DIR, `widget/locales/${lang}.json`), "utf8")) as Record<string, string>;

describe("widget languages", () => {
  test("en, ru, de, es, fr and ar are served, each with every English key and its {n} placeholders", () => {
    expect(LOCALES).toEqual(expect.arrayContaining(["en", "ru", "de", "es", "fr", "ar"]));
    const english = strings("en");
    for (const lang of LOCALES) {
      const table = strings(lang);
      expect({ lang, keys: Object.keys(table).sort() }).toEqual({ lang, keys: Object.keys(english).sort() });
      for (const [key, text] of Object.entries(english)) {
        expect({ lang, key, placeholder: table[key]!.includes("{n}") }).toEqual({ lang, key, placeholder: text.includes("{n}") });
        if (lang !== "en") expect({ lang, key, same: table[key] === text && !/^(Online|Offline|Messages|Message|OK)$/.test(text) }).toEqual({ lang, key, same: false });
      }
    }
  });

  test("a language file is served to any site, revalidates, and an unknown one is 404", async () => {
    const client = await testClient();
    try {
      const res = await client.app.handle(new Request("http://localhost/widget/locales/ar.json", { headers: { origin: "https://shop.example" } }));
      expect(res.status).toBe(200);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(res.headers.get("content-type")).toStartWith("application/json");
      expect((await res.json()).send).toBe("إرسال");
      const again = await client.app.handle(new Request("http://localhost/widget/locales/ar.json", { headers: { "if-none-match": res.headers.get("etag")! } }));
      expect(again.status).toBe(304);
      for (const path of ["/widget/locales/xx.json", "/widget/locales/ar", "/widget/locales/..%2Fen.json"]) {
        expect((await client.app.handle(new Request(`http://localhost${path}`))).status).toBe(404);
      }
    } finally {
      await client.platform.close();
    }
  });

  test("widget.js carries English only: other languages load when a page needs them", async () => {
    const source = await bundleScript(SCRIPT_ENTRIES.widget);
    expect(source).toContain(strings("en").placeholder!);
    for (const lang of ["ru", "de", "ar"]) expect(source).not.toContain(strings(lang).placeholder!);
  });
});
