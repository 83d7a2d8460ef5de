// The Reports page: a range, a bot and a channel; the summary figures; three charts (drawn by
// uPlot from /assets/charts.js, loaded when this page first opens) each with a table for
// screen readers; the weekday × hour heatmap as a table; CSV downloads of every report.
import type { Static } from "@sinclair/typebox";
import { useEffect, useRef, useState } from "preact/hooks";
import type { ReportHeatmap, ReportSeries, ReportSummary } from "../../src/http/reports/model.ts";
import type { LineChart } from "../charts/index.ts";
import { get, session, type Bot } from "./api.ts";
import { errorText, useLatest, useTitle } from "./ui.tsx";
import { formatSeconds } from "../shared/duration.ts";

type Summary = Static<typeof ReportSummary>;
type Series = Static<typeof ReportSeries>;
type Heatmap = Static<typeof ReportHeatmap>;

const CHANNELS = ["widget", "web", "website", "sitecms", "crm", "email", "mobile_app", "custom_api"] as const;
const PRESETS = [[7, "7 days"], [30, "30 days"], [90, "90 days"]] as const;
const WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const TZ = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** Today in the browser's zone, as YYYY-MM-DD. */
const localDate = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
const daysBefore = (date: string, days: number) => {
  const d = new Date(`${date}T12:00:00`);
  d.setDate(d.getDate() - days);
  return localDate(d);
};

let chartsLoading: Promise<NonNullable<Window["BotinboxCharts"]>> | undefined;
/** The chart library arrives with the first Reports page, once per page load. */
function loadCharts(): Promise<NonNullable<Window["BotinboxCharts"]>> {
  chartsLoading ??= new Promise((resolve, reject) => {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/assets/charts.css";
    document.head.append(css);
    const script = document.createElement("script");
    script.src = "/assets/charts.js";
    script.onload = () => (window.BotinboxCharts ? resolve(window.BotinboxCharts) : reject(new Error("charts did not load")));
    script.onerror = () => {
      chartsLoading = undefined;
      reject(new Error("The charts could not be loaded."));
    };
    document.head.append(script);
  });
  return chartsLoading;
}

const percent = (v: number | null) => (v === null ? "–" : `${Math.round(v * 100)}%`);

interface Filters {
  bot: string;
  channel: string;
  from: string;
  to: string;
}

function query(f: Filters, extra: Record<string, string> = {}) {
  const q: Record<string, string> = { from: f.from, to: f.to, tz: TZ, ...extra };
  if (f.bot) q.bot_id = f.bot;
  if (f.channel) q.channel = f.channel;
  return new URLSearchParams(q).toString();
}

/** Charts are by day; a range of three days or less is by hour. */
const groupOf = (f: Filters) => ((Date.parse(f.to) - Date.parse(f.from)) / 86_400_000 <= 2 ? "hour" : "day");

const CHARTS = [
  { id: "conversations", title: "Conversations opened", metric: "conversations", by: "channel", unit: "count" },
  { id: "first_response", title: "Median first response", metric: "first_response", by: "", unit: "seconds" },
  { id: "resolution", title: "Median resolution time", metric: "resolution", by: "", unit: "seconds" },
] as const;

export function ReportsView() {
  useTitle("Reports · botinbox");
  const today = localDate(new Date());
  const [filters, setFilters] = useState<Filters>({ bot: "", channel: "", from: daysBefore(today, 29), to: today });
  const [bots, setBots] = useState<Bot[]>([]);
  const [summary, setSummary] = useState<Summary | undefined>();
  const [series, setSeries] = useState<Record<string, Series>>({});
  const [heatmap, setHeatmap] = useState<Heatmap | undefined>();
  const [error, setError] = useState("");
  const latest = useLatest();

  useEffect(() => void get<Bot[]>("/api/bots").then(setBots, () => {}), []);
  useEffect(() => {
    setError("");
    const group = groupOf(filters);
    latest.run(() => Promise.all([
      get<Summary>(`/api/reports/summary?${query(filters)}`),
      Promise.all(CHARTS.map((c) => get<Series>(`/api/reports/series?${query(filters, { metric: c.metric, group, ...(c.by ? { by: c.by } : {}) })}`))),
      get<Heatmap>(`/api/reports/heatmap?${query(filters)}`),
    ])).then((loaded) => {
      if (!loaded) return;
      const [s, lines, h] = loaded;
      setSummary(s);
      setSeries(Object.fromEntries(CHARTS.map((c, i) => [c.id, lines[i]!])));
      setHeatmap(h);
    }, (err) => setError(errorText(err)));
  }, [filters.bot, filters.channel, filters.from, filters.to]);

  const set = (patch: Partial<Filters>) => setFilters({ ...filters, ...patch });
  const first = summary?.range.first_conversation_at ?? null;
  return (
    <section class="page reports">
      <div class="page-head"><h1 tabIndex={-1}>Reports</h1></div>
      <form class="card report-filters" aria-label="Report range and filters" onSubmit={(e) => e.preventDefault()}>
        <div class="presets" role="group" aria-label="Range">
          {PRESETS.map(([days, label]) => (
            <button key={days} type="button" class="ghost small" aria-pressed={filters.from === daysBefore(today, days - 1) && filters.to === today}
              onClick={() => set({ from: daysBefore(today, days - 1), to: today })}>{label}</button>
          ))}
        </div>
        <div class="field"><label for="report-from">From</label>
          <input id="report-from" type="date" value={filters.from} max={filters.to} onChange={(e) => e.currentTarget.value && set({ from: e.currentTarget.value })} /></div>
        <div class="field"><label for="report-to">To</label>
          <input id="report-to" type="date" value={filters.to} min={filters.from} onChange={(e) => e.currentTarget.value && set({ to: e.currentTarget.value })} /></div>
        <div class="field"><label for="report-bot">Bot</label>
          <select id="report-bot" value={filters.bot} onChange={(e) => set({ bot: e.currentTarget.value })}>
            <option value="">All bots</option>
            {bots.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
          </select></div>
        <div class="field"><label for="report-channel">Channel</label>
          <select id="report-channel" value={filters.channel} onChange={(e) => set({ channel: e.currentTarget.value })}>
            <option value="">All channels</option>
            {CHANNELS.map((c) => <option key={c} value={c}>{c}</option>)}
          </select></div>
        <p class="muted small">{`Days and hours in ${TZ}.`}</p>
      </form>
      {error && <p class="form-error" role="alert">{error}</p>}
      {summary && <StateNote summary={summary} first={first} />}
      {summary && <SummaryCards summary={summary} filters={filters} />}
      {summary && summary.conversations.opened > 0 && CHARTS.map((c) => series[c.id] && (
        <LineFigure key={c.id} id={c.id} title={c.title} unit={c.unit} series={series[c.id]!} group={groupOf(filters)}
          csv={`/api/reports/series?${query(filters, { metric: c.metric, group: groupOf(filters), ...(c.by ? { by: c.by } : {}), format: "csv" })}`} />
      ))}
      {heatmap && summary && summary.conversations.opened > 0 && <HeatmapFigure heatmap={heatmap} csv={`/api/reports/heatmap?${query(filters, { format: "csv" })}`} />}
    </section>
  );
}

function StateNote({ summary, first }: { summary: Summary; first: string | null }) {
  if (first === null) {
    return (
      <div class="card report-empty" role="status">
        <h2>No conversations yet</h2>
        <p>Reports fill in as visitors write. Put the widget on your site (the bot's page has the snippet) or send a message through the API, and come back here.</p>
      </div>
    );
  }
  if (summary.conversations.opened === 0) {
    return <p class="card report-empty" role="status">No conversations were opened in this range. Try a longer range, another bot or all channels.</p>;
  }
  if (Date.parse(first) > Date.parse(summary.range.from)) {
    const since = new Date(first).toLocaleDateString(undefined, { dateStyle: "medium", timeZone: TZ });
    return <p class="muted report-first-day" role="status">{`Reports start on ${since}, with the first conversation: days before it are empty, not quiet. Times fill in as conversations are answered and closed.`}</p>;
  }
  return null;
}

/** Fetches a CSV with the session's token (a plain link cannot send it) and hands it to the browser as a download. */
async function download(path: string, name: string) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${session.token}` } });
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const CsvButton = ({ path, name, label }: { path: string; name: string; label: string }) => (
  <button type="button" class="ghost small" onClick={() => void download(path, name)} aria-label={label}>CSV</button>
);

function SummaryCards({ summary: s, filters }: { summary: Summary; filters: Filters }) {
  const cards: [string, string, string?][] = [
    ["Conversations", String(s.conversations.opened), `${s.conversations.closed} closed`],
    ["First response", formatSeconds(s.first_response.median_s), `median · p90 ${formatSeconds(s.first_response.p90_s)}`],
    ["Resolution", formatSeconds(s.resolution.median_s), `median · p90 ${formatSeconds(s.resolution.p90_s)}`],
    ["Bot containment", percent(s.bot_containment), "closed with no operator and no handoff"],
    ["Handoff rate", percent(s.handoff_rate), "of closed conversations"],
    ["Satisfaction", s.csat.average === null ? "–" : `${s.csat.average.toFixed(1)} / 5`, `${s.csat.count} rating${s.csat.count === 1 ? "" : "s"}`],
  ];
  return (
    <div class="card report-summary">
      <div class="report-head"><h2>Summary</h2>
        <CsvButton path={`/api/reports/summary?${query(filters, { format: "csv" })}`} name="summary.csv" label="Download the summary as CSV" /></div>
      <dl class="report-cards">
        {cards.map(([name, value, note]) => (
          <div key={name} class="report-card"><dt>{name}</dt><dd><strong>{value}</strong>{note && <span class="muted small">{note}</span>}</dd></div>
        ))}
      </dl>
    </div>
  );
}

/** Points to columns: one x per bucket, one series per key (missing buckets are null: no data). */
function columns(series: Series) {
  const times = [...new Set(series.points.map((p) => p.t))].sort((a, b) => Date.parse(a) - Date.parse(b));
  const keys = [...new Set(series.points.map((p) => p.key ?? "all"))];
  const at = new Map(times.map((t, i) => [t, i]));
  const values = keys.map(() => times.map((): number | null => null));
  for (const p of series.points) values[keys.indexOf(p.key ?? "all")]![at.get(p.t)!] = p.value;
  return { times, keys, values };
}

function LineFigure({ id, title, unit, series, group, csv }: {
  id: string; title: string; unit: "count" | "seconds"; series: Series; group: "day" | "hour"; csv: string;
}) {
  const holder = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState("");
  const [showTable, setShowTable] = useState(false);
  const { times, keys, values } = columns(series);
  useEffect(() => {
    let undraw: (() => void) | undefined;
    let gone = false;
    const chart: LineChart = {
      xs: times.map((t) => Date.parse(t) / 1000), series: keys.map((k, i) => ({ label: k, values: values[i]! })), unit, group, tz: TZ,
      from: Date.parse(series.range.from) / 1000, to: Date.parse(series.range.to) / 1000,
    };
    loadCharts().then((charts) => {
      if (!gone && holder.current && times.length) undraw = charts.drawLine(holder.current, chart);
    }, (err) => setFailed(errorText(err)));
    return () => {
      gone = true;
      undraw?.();
    };
  }, [series]);
  const cell = (v: number | null) => (v === null ? "–" : unit === "seconds" ? formatSeconds(v) : String(v));
  const label = (t: string) => new Date(t).toLocaleString(undefined, group === "day" ? { dateStyle: "medium", timeZone: TZ } : { dateStyle: "short", timeStyle: "short", timeZone: TZ });
  return (
    <figure class="card report-chart" aria-labelledby={`${id}-title`} data-chart={id}>
      <div class="report-head">
        <h2 id={`${id}-title`}>{title}</h2>
        <button type="button" class="ghost small" aria-pressed={showTable} onClick={() => setShowTable(!showTable)}>{showTable ? "Chart" : "Table"}</button>
        <CsvButton path={csv} name={`${id}.csv`} label={`Download ${title.toLowerCase()} as CSV`} />
      </div>
      {times.length === 0 ? <p class="muted">Nothing to draw yet in this range.</p>
        : <div ref={holder} class={showTable ? "chart-canvas hidden-chart" : "chart-canvas"} aria-hidden="true" />}
      {failed && <p class="form-error">{failed}</p>}
      {/* A table box ignores overflow: the wrapper is what hides it from sight (not from screen readers). */}
      <div class={showTable ? undefined : "sr-only"}><table class="report-table">
        <caption>{`${title} by ${group}`}</caption>
        <thead><tr><th scope="col">{group === "day" ? "Day" : "Hour"}</th>{keys.map((k) => <th key={k} scope="col">{k}</th>)}</tr></thead>
        <tbody>{times.map((t, i) => <tr key={t}><th scope="row">{label(t)}</th>{values.map((v, k) => <td key={k}>{cell(v[i]!)}</td>)}</tr>)}</tbody>
      </table></div>
    </figure>
  );
}

function HeatmapFigure({ heatmap, csv }: { heatmap: Heatmap; csv: string }) {
  const max = Math.max(1, ...heatmap.counts.flat());
  return (
    <figure class="card report-chart report-heatmap" aria-labelledby="heatmap-title" data-chart="heatmap">
      <div class="report-head"><h2 id="heatmap-title">When visitors write</h2>
        <CsvButton path={csv} name="heatmap.csv" label="Download the heatmap as CSV" /></div>
      <div class="heatmap-scroll">
        <table class="heatmap">
          <caption class="sr-only">Incoming messages by weekday and hour</caption>
          <thead><tr><th scope="col"><span class="sr-only">Weekday</span></th>{heatmap.counts[0]!.map((_, h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
          <tbody>
            {heatmap.counts.map((row, d) => (
              <tr key={d}><th scope="row">{WEEKDAYS[d]}</th>
                {row.map((n, h) => (
                  <td key={h} title={`${WEEKDAYS[d]} ${h}:00 — ${n}`} style={{ background: n ? `rgba(37, 99, 235, ${0.12 + (0.88 * n) / max})` : undefined }}
                    class={n / max > 0.6 ? "hot" : undefined}>{n || ""}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
