// axe-core (the accessibility engine) run inside a page the test drives: the library's source
// is evaluated in the page (no network, no CSP in the way), then `axe.run` checks the whole
// document, open shadow roots (the widget) included. Serious and critical violations are
// what the tests refuse; each comes back as one line naming the rule and where.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** What a user of assistive technology cannot get past, or only with great effort. */
const REFUSED_IMPACTS = ["serious", "critical"];

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/**
 * Serious and critical violations on the page as it is now, one line each (empty: none).
 * `include`: a selector to check alone (the widget on a host page that is not ours).
 */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(`${AXE_SOURCE};0`);
  const violations = (await page.evaluate((selector) =>
    (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: unknown[] }> } }).axe
      .run(selector ? { include: [[selector]] } : document, { resultTypes: ["violations"] })
      .then((r) => r.violations), include ?? null,
  )) as AxeViolation[];
  return violations
    .filter((v) => REFUSED_IMPACTS.includes(v.impact ?? ""))
    .map((v) => `${v.impact} ${v.id} (${v.help}): ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ""}`).join("; ")}`);
}
