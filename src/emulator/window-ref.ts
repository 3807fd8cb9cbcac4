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
}
