/**
 * Data-quality findings: what the spec does not promise (count bounds, whole numbers, valid text,
 * full pages) is checked and recorded, never a reason to fail a run. One finding per offending
 * item (or per page or run for page- and run-level kinds).
 */
export const FINDING_KINDS = [
  'total_out_of_bounds',
  'fractional_count',
  'short_page',
  'truncated',
  'invalid_text',
  'thread_not_found',
  'cursor_restarted',
] as const;

export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Finding {
  kind: FindingKind;
  /** One line: where (item key, field) and what was seen, with the raw value. */
  detail: string;
}

/** Findings of one page beyond this are summarized in one more finding, so memory stays bounded. */
export const MAX_FINDINGS_PER_PAGE = 200;

/** Collects the findings of one page, capped. */
export class FindingLog {
  readonly findings: Finding[] = [];
  #dropped = new Map<FindingKind, number>();

  add(kind: FindingKind, detail: string): void {
    if (this.findings.length < MAX_FINDINGS_PER_PAGE) this.findings.push({ kind, detail });
    else this.#dropped.set(kind, (this.#dropped.get(kind) ?? 0) + 1);
  }

  /** The findings, with one summary line per kind that went over the cap. */
  drain(): Finding[] {
    const all = [...this.findings];
    for (const [kind, count] of this.#dropped) all.push({ kind, detail: `${count} more ${kind} findings on this page (not listed)` });
    this.findings.length = 0;
    this.#dropped.clear();
    return all;
  }
}
