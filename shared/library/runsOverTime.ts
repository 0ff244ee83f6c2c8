/**
 * Runs per period for the start page's "over time" chart: days when the runs span two months or
 * less, weeks (from Monday) up to two years, months beyond — every period between the first and the
 * last counted, empty ones too, so that the bars' spacing is time's and a quiet week shows as one.
 */
export interface DayCount {
  /** YYYY-MM-DD (UTC). */
  day: string;
  runs: number;
  failed: number;
}

export type Granularity = 'day' | 'week' | 'month';

export interface PeriodCount {
  /** How the period is named: its day, `week of` its Monday, or its month (YYYY-MM). */
  period: string;
  /** Its first and last day (YYYY-MM-DD), for a date filter. */
  from: string;
  to: string;
  runs: number;
  failed: number;
}

const DAY_MS = 86_400_000;
/** More periods than this would not fit a chart: the next coarser granularity is taken. */
const MAX_DAYS = 62;
const MAX_WEEKS = 106;

const isoDay = (millis: number): string => new Date(millis).toISOString().slice(0, 10);
const dayMillis = (day: string): number => Date.parse(`${day}T00:00:00Z`);

/** The first day of the period `day` falls in. */
function periodStart(millis: number, granularity: Granularity): number {
  if (granularity === 'day') return millis;
  const date = new Date(millis);
  if (granularity === 'week') return millis - ((date.getUTCDay() + 6) % 7) * DAY_MS;
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

function nextPeriod(start: number, granularity: Granularity): number {
  if (granularity === 'day') return start + DAY_MS;
  if (granularity === 'week') return start + 7 * DAY_MS;
  const date = new Date(start);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

export function runsOverTime(days: readonly DayCount[]): { granularity: Granularity; periods: PeriodCount[] } {
  const known = days.filter((entry) => !Number.isNaN(dayMillis(entry.day)));
  if (known.length === 0) return { granularity: 'day', periods: [] };
  const millis = known.map((entry) => dayMillis(entry.day));
  const first = Math.min(...millis);
  const last = Math.max(...millis);
  const spanDays = (last - first) / DAY_MS + 1;
  const granularity: Granularity = spanDays <= MAX_DAYS ? 'day' : spanDays <= MAX_WEEKS * 7 ? 'week' : 'month';
  const periods = new Map<number, PeriodCount>();
  for (let start = periodStart(first, granularity); start <= last; start = nextPeriod(start, granularity)) {
    const from = isoDay(start);
    const name = granularity === 'day' ? from : granularity === 'week' ? `week of ${from}` : from.slice(0, 7);
    periods.set(start, { period: name, from, to: isoDay(nextPeriod(start, granularity) - DAY_MS), runs: 0, failed: 0 });
  }
  for (const entry of known) {
    const period = periods.get(periodStart(dayMillis(entry.day), granularity));
    if (period === undefined) continue;
    period.runs += entry.runs;
    period.failed += entry.failed;
  }
  return { granularity, periods: [...periods.values()] };
}
