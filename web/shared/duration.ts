/** A duration in seconds as a person reads it: "45 s", "12 min", "3.5 h", "2.1 d"; null (no data) is a dash. */
export function formatSeconds(s: number | null): string {
  if (s === null) return "–";
  if (s < 90) return `${Math.round(s)} s`;
  if (s < 5400) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}
