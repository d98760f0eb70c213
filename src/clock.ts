// Time is injected wherever schedules are computed (DESIGN §1), so tests drive retry
// windows and alert deadlines with a controllable clock instead of sleeping.

export interface Clock {
  /** Microseconds since the Unix epoch. */
  nowMicros(): number;
}

export const systemClock: Clock = {
  nowMicros: () => Math.floor((performance.timeOrigin + performance.now()) * 1000),
};

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private micros: number = Date.UTC(2026, 10, 22, 10, 0, 0) * 1000) {}

  nowMicros(): number {
    return this.micros;
  }

  advanceMs(ms: number): void {
    this.micros += Math.round(ms * 1000);
  }

  setMicros(micros: number): void {
    this.micros = micros;
  }
}

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_MINUTE = 60 * MICROS_PER_SECOND;
export const MICROS_PER_HOUR = 60 * MICROS_PER_MINUTE;

/** `2026-11-22T10:15:03.123456Z`: the six-digit form `received_at` uses (DESIGN §2). */
export function isoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const base = new Date(ms).toISOString(); // …T10:15:03.123Z
  const extra = String(micros % 1000).padStart(3, '0');
  return `${base.slice(0, -1)}${extra}Z`;
}

/** Other times are shown to the millisecond. */
export function isoMillis(micros: number | null): string | null {
  return micros === null ? null : new Date(Math.floor(micros / 1000)).toISOString();
}

/** Parses an ISO-8601 instant to microseconds, keeping up to six fractional digits. */
export function parseIsoMicros(text: string): number | null {
  const m =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?)?$/.exec(
      text,
    );
  if (!m) return null;
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', zone = 'Z'] = m;
  const ms = Date.parse(
    `${y}-${mo}-${d}T${h}:${mi}:${s}${zone === 'Z' ? 'Z' : normaliseZone(zone)}`,
  );
  if (Number.isNaN(ms)) return null;
  const check = new Date(ms);
  if (
    zone === 'Z' &&
    (check.getUTCDate() !== Number(d) || check.getUTCMonth() + 1 !== Number(mo))
  ) {
    return null; // 2026-02-31 and the like
  }
  const micros = Number(frac.padEnd(6, '0').slice(0, 6));
  return ms * 1000 + micros;
}

function normaliseZone(zone: string): string {
  return zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
}
