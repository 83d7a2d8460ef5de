// The reports as CSV (RFC 4180): what a team lead opens in a spreadsheet. Same figures as
// the JSON, one row per point; the heatmap is 7 rows of 24 hours, Monday first.
import type { ReportHeatmap, ReportSeries, ReportSummary } from "./reports.ts";

const cell = (v: string | number | null | undefined): string => {
  const text = v === null || v === undefined ? "" : String(v);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};
const lines = (rows: (string | number | null | undefined)[][]) => rows.map((r) => r.map(cell).join(",")).join("\r\n") + "\r\n";

export const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"] as const;

export function summaryCsv(s: ReportSummary): string {
  return lines([
    ["metric", "value"],
    ["conversations_opened", s.conversations.opened],
    ["conversations_closed", s.conversations.closed],
    ["first_response_median_s", s.first_response.median_s],
    ["first_response_p90_s", s.first_response.p90_s],
    ["resolution_median_s", s.resolution.median_s],
    ["resolution_p90_s", s.resolution.p90_s],
    ["bot_containment", s.bot_containment],
    ["handoff_rate", s.handoff_rate],
    ["csat_count", s.csat.count],
    ["csat_average", s.csat.average],
  ]);
}

export function seriesCsv(s: ReportSeries): string {
  return lines([["t", "key", "value"], ...s.points.map((p) => [p.t, p.key ?? "", p.value])]);
}

export function heatmapCsv(h: ReportHeatmap): string {
  return lines([["weekday", ...Array.from({ length: 24 }, (_, i) => String(i))], ...h.counts.map((row, i) => [WEEKDAYS[i]!, ...row])]);
}
