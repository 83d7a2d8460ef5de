// The Reports page's charts: uPlot, in a script of its own that the cabinet loads only when
// the page opens, so the cabinet's main bundle never carries the library. No Preact here:
// the page hands over a container and plain series; this draws and redraws on resize.
// uPlot's stylesheet comes as /assets/charts.css (the cabinet's CSP allows no inline <style>).
import uPlot from "uplot";
import { formatSeconds } from "../shared/duration.ts";

export interface LineChart {
  /** Seconds since the epoch, one per point. */
  xs: number[];
  series: { label: string; values: (number | null)[] }[];
  /** How a value reads on the axis and in the legend. */
  unit: "count" | "seconds";
  /** Day or hour buckets: the axis labels follow. */
  group: "day" | "hour";
  tz: string;
  /** The report's range in epoch seconds: the x axis spans it even with one point. */
  from: number;
  to: number;
}

const COLORS = ["#2563eb", "#16a34a", "#d97706", "#9333ea", "#dc2626", "#0891b2", "#4b5563", "#db2777"];


/** Draws into `el` (emptied first) and follows its width; returns how to take it down. */
export function drawLine(el: HTMLElement, chart: LineChart): () => void {
  el.replaceChildren();
  const label = new Intl.DateTimeFormat(undefined, chart.group === "day"
    ? { month: "short", day: "numeric", timeZone: chart.tz }
    : { month: "short", day: "numeric", hour: "2-digit", timeZone: chart.tz });
  const value = (v: number | null) => (v === null ? "–" : chart.unit === "seconds" ? formatSeconds(v) : String(v));
  const width = () => Math.max(260, el.clientWidth);
  const plot = new uPlot({
    width: width(),
    height: 220,
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    scales: {
      x: { time: true, range: () => [chart.from, chart.to] },
      y: { range: (_u, _min, max) => [0, Math.max(chart.unit === "seconds" ? 60 : 1, max) * 1.1] },
    },
    axes: [
      { values: (_u, splits) => splits.map((s) => label.format(new Date(s * 1000))), space: 70 },
      { values: (_u, splits) => splits.map((s) => value(s)), size: 60 },
    ],
    series: [
      { value: (_u, v) => (v === null ? "–" : label.format(new Date(v * 1000))) },
      ...chart.series.map((s, i) => ({
        label: s.label, stroke: COLORS[i % COLORS.length], width: 2, points: { show: true, size: 5 },
        value: (_u: uPlot, v: number | null) => value(v),
      })),
    ],
  }, [chart.xs, ...chart.series.map((s) => s.values)], el);
  const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
  resize.observe(el);
  return () => {
    resize.disconnect();
    plot.destroy();
  };
}

declare global {
  interface Window {
    BotinboxCharts?: { drawLine: typeof drawLine };
  }
}
window.BotinboxCharts = { drawLine };
