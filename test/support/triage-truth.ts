/**
 * What each triage recipe should find, per the emulator's own data for some day windows: the
 * expectations the triage tests compare the warehouse's answer with.
 */
import { analyticsTruth, type EmulatorOptions } from '../../src/emulator/index.js';

/** Day windows as `[dateFrom, dateTo]`. */
export type DayWindows = ReadonlyArray<readonly [string, string]>;

export const normalised = (text: string) => text.toLowerCase().trim().replace(/\s+/g, ' ');

/** Pages with at least 3 commented not-helpful items, with their ids and comments. */
export function expectedHotspots(options: EmulatorOptions, projectId: string, days: DayWindows): Map<string, Map<string, string>> {
  const byPage = new Map<string, Map<string, string>>();
  for (const [from, to] of days) {
    for (const item of analyticsTruth(options, 'feedback', projectId, from, to).items) {
      const notHelpful = (item.source === 'contextual' && item.helpful === false) || item.source === 'code_snippet';
      if (!notHelpful || !item.comment?.trim()) continue;
      byPage.set(item.path, (byPage.get(item.path) ?? new Map()).set(item.id, item.comment));
    }
  }
  return new Map([...byPage].filter(([, items]) => items.size >= 3));
}

/** Groups of at least 2 clarifying or sourceless turns by normalised query. */
export function expectedQuestions(options: EmulatorOptions, projectId: string, days: DayWindows): Map<string, Set<string>> {
  const groups = new Map<string, Set<string>>();
  for (const [from, to] of days) {
    for (const row of analyticsTruth(options, 'assistant', projectId, from, to).items) {
      if (row.responseType !== 'clarifying_question' && row.sources.length > 0) continue;
      const key = normalised(row.query);
      groups.set(key, (groups.get(key) ?? new Set()).add(row.id));
    }
  }
  return new Map([...groups].filter(([, ids]) => ids.size >= 2));
}

/** Normalised terms searched at least 3 times with no click in any window. */
export function expectedSearchGaps(options: EmulatorOptions, projectId: string, days: DayWindows): Set<string> {
  const terms = new Map<string, { hits: number; clicked: boolean }>();
  for (const [from, to] of days) {
    for (const row of analyticsTruth(options, 'searches', projectId, from, to).items) {
      const t = terms.get(normalised(row.searchQuery)) ?? { hits: 0, clicked: false };
      terms.set(normalised(row.searchQuery), { hits: t.hits + Math.round(row.hits), clicked: t.clicked || row.ctr > 0 || row.topClickedPage !== null });
    }
  }
  return new Set([...terms].filter(([, t]) => !t.clicked && t.hits >= 3).map(([term]) => term));
}
