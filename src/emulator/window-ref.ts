/** One window of one project as a request names it: the dates as sent, parsed, and the data revision. */
export interface WindowRef {
  projectId: string;
  /** The dates as the client sent them (or the defaults): `itemsFor` and `pathsFor` receive these. */
  dateFrom: string;
  dateTo: string;
  fromMs: number;
  toMs: number;
  /** The project's data revision (bumped by `control.mutate`). */
  revision: number;
  /**
   * The window starts after today (UTC) by the emulator's clock. Like the real API, nobody has
   * visited those days yet: every dataset serves no rows for it.
   */
  future: boolean;
}

const DAY_MS = 86_400_000;

/** True when a window starting at `fromMs` starts after the UTC day of `nowMs`. */
function startsAfterToday(fromMs: number, nowMs: number): boolean {
  return fromMs >= (Math.floor(nowMs / DAY_MS) + 1) * DAY_MS;
}

/** A window of a project at data revision `revision`, by the clock's day `nowMs`. */
export function makeWindowRef(where: Omit<WindowRef, 'revision' | 'future'>, revision: number, nowMs: number): WindowRef {
  return { ...where, revision, future: startsAfterToday(where.fromMs, nowMs) };
}
