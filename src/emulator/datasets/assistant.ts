/**
 * Assistant: `GET assistant`, one page by ULID cursor of a window's assistant conversations
 * (caller stats and threads are drawn from the same turns).
 *
 * Data: turns of one window, newest first. Each turn (a row) belongs to a conversation of 1–4
 * turns whose id is the id of its first turn; ids are ULIDs of the turn's time. Each turn also has
 * a caller (web, api, other), which caller stats count, and an answer time, which threads use.
 * Knobs: seeded order, a lone surrogate in some queries or responses; with `extraFields` rows carry
 * `conversationId` and a thread is a whole conversation, without it each row is its own thread.
 */
import type { WindowFixture } from '../analytics-dataset.js';
import { itemCountFor, type DailyItems, type ResolvedAnalyticsKnobs } from '../analytics-knobs.js';
import { cursorAnswer } from '../analytics-paging.js';
import { DocsPathSpace } from '../docs-paths.js';
import type { EmulatorContext } from '../emulator-context.js';
import { hasInvalidText, knobKey, seededPermutation, withLoneSurrogate } from '../knob-draws.js';
import { hash2, hashNumbers, hashString, unitFloat } from '../seeded-random.js';
import { ANSWERS, CLARIFYING_QUESTIONS, QUERY_CATEGORIES, QUESTIONS, pick } from '../text-samples.js';
import { ulidOf } from '../ulid.js';
import type { WindowRef } from '../window-ref.js';

const DAILY: DailyItems = { perDay: [50, 200], grows: 'days' };

export interface AssistantWindow {
  /** Every row in serving order. */
  conversations: AssistantRow[];
  /** Every turn, newest first, its row as served. */
  turns: AssistantTurn[];
  /** The window's knob key (caller stats and threads draw from it too). */
  key: number;
}

export const assistant: WindowFixture<{ items: AssistantRow[] }> = {
  kind: 'window',
  path: 'assistant',
  query: { limit: { min: 1, max: 1000, default: 100, integer: false }, cursor: true },
  answer: (ctx, query, ref) =>
    cursorAnswer(ctx, 'assistant', query, ref, cachedAssistant(ctx, ref).conversations, (page) => ({
      conversations: page.items,
      nextCursor: page.nextCursor,
      hasMore: page.hasMore,
    })),
  truth: (options, ref) => ({ items: servedAssistant(options.seed, options, ref).conversations }),
};

/** The window's assistant data from the emulator's cache; its threads become findable. */
export function cachedAssistant(ctx: EmulatorContext, ref: WindowRef): AssistantWindow {
  return ctx.windows.cached('assistant', ref, () => {
    const window = servedAssistant(ctx.options.seed, ctx.options, ref);
    ctx.windows.addThreads(ref, window.turns.map((turn) => threadIdOf(ctx.options, turn)));
    return { value: window, weight: window.conversations.length * 16 };
  });
}

/** The thread a turn belongs to: its conversation with extra fields, else the turn alone. */
export function threadIdOf(knobs: ResolvedAnalyticsKnobs, turn: AssistantTurn): string {
  return knobs.extraFields ? turn.conversationId : turn.row.id;
}

export function servedAssistant(seed: number, knobs: ResolvedAnalyticsKnobs, ref: WindowRef): AssistantWindow {
  const count = itemCountFor(knobs, 'assistant', ref, DAILY);
  const key = knobKey(seed, 'assistant', ref.projectId, ref.fromMs, ref.toMs, ref.revision);
  const turns = computeAssistant(seed, ref.projectId, ref.fromMs, ref.toMs, count, ref.revision).map((turn, i) => {
    const row = { ...turn.row };
    if (hasInvalidText(key, i, knobs.invalidText)) {
      if (i % 2 === 0) row.query = withLoneSurrogate(row.query, key, i);
      else row.response = withLoneSurrogate(row.response, key, i);
    }
    if (knobs.extraFields) row.conversationId = turn.conversationId;
    return { ...turn, row };
  });
  const rows = turns.map((turn) => turn.row);
  const conversations = knobs.shuffle ? Array.from(seededPermutation(rows.length, key), (i) => rows[i]!) : rows;
  return { conversations, turns, key };
}

/** One row of the assistant endpoint as the spec lists it (`conversationId` only with extra fields). */
export interface AssistantRow {
  id: string;
  timestamp: string;
  query: string;
  response: string;
  responseType?: 'answer' | 'clarifying_question';
  sources: { title: string; url: string }[];
  resolutionStatus: 'answered' | 'unanswered';
  queryCategory: string | null;
  pageUrl: string | null;
  conversationId?: string;
  [extra: string]: unknown;
}

export type Caller = 'web' | 'api' | 'other';

/** A turn: its row, and what the row does not show. */
export interface AssistantTurn {
  row: AssistantRow;
  conversationId: string;
  caller: Caller;
  atMs: number;
  answeredAtMs: number;
}

const ASSISTANT_SALT = 0xa5515;
const MAX_TURNS = 4;
/** Source pages are drawn from a project's most visited pages. */
const SOURCE_PAGES = 200;

function computeAssistant(seed: number, projectId: string, fromMs: number, toMs: number, count: number, revision: number): AssistantTurn[] {
  const key = hashNumbers(seed, hashString(projectId), fromMs, toMs, revision, ASSISTANT_SALT);
  const pages = new DocsPathSpace(seed, projectId, SOURCE_PAGES);
  const site = `https://${projectId.toLowerCase().replace(/[^a-z0-9-]/g, '-') || 'docs'}.mintlify.app`;
  const turns: AssistantTurn[] = [];
  for (let i = 0; i < count; ) {
    const conversation = hash2(key, i);
    const size = Math.min(count - i, 1 + Math.floor(unitFloat(hash2(conversation, 1)) * MAX_TURNS));
    let atMs = fromMs + Math.floor(unitFloat(hash2(conversation, 2)) * (toMs - fromMs));
    const pageUrl = unitFloat(hash2(conversation, 3)) < 0.2 ? null : site + pages.name(Math.floor(SOURCE_PAGES * unitFloat(hash2(conversation, 4)) ** 2));
    const caller: Caller = pickCaller(unitFloat(hash2(conversation, 5)));
    let conversationId = '';
    for (let turn = 0; turn < size; turn++, i++) {
      const k = hash2(key, i + 0x10000000);
      const draw = (n: number) => unitFloat(hash2(k, n));
      if (turn > 0) atMs = Math.min(toMs - 1, atMs + 20_000 + Math.floor(draw(1) * 280_000));
      const id = ulidOf(atMs, hash2(k, 2), hash2(k, 3), i);
      if (turn === 0) conversationId = id;
      const clarifying = draw(4) < 0.1;
      const unanswered = !clarifying && draw(5) < 0.15;
      const row: AssistantRow = {
        id,
        timestamp: new Date(atMs).toISOString(),
        query: pick(QUESTIONS, hash2(k, 6)),
        response: clarifying ? pick(CLARIFYING_QUESTIONS, hash2(k, 7)) : pick(ANSWERS, hash2(k, 7)),
        sources: unanswered || clarifying ? [] : sources(pages, site, k),
        resolutionStatus: unanswered ? 'unanswered' : 'answered',
        queryCategory: draw(8) < 0.3 ? null : pick(QUERY_CATEGORIES, hash2(k, 9)),
        pageUrl,
      };
      // The spec: responseType "defaults to answer when not present"; some answers leave it out.
      if (clarifying) row.responseType = 'clarifying_question';
      else if (draw(10) >= 0.4) row.responseType = 'answer';
      turns.push({ row, conversationId, caller, atMs, answeredAtMs: atMs + 2_000 + Math.floor(draw(11) * 18_000) });
    }
  }
  return turns.sort((a, b) => b.atMs - a.atMs || (a.row.id < b.row.id ? 1 : -1));
}

function pickCaller(u: number): Caller {
  return u < 0.7 ? 'web' : u < 0.9 ? 'api' : 'other';
}

function sources(pages: DocsPathSpace, site: string, k: number): { title: string; url: string }[] {
  const count = 1 + Math.floor(unitFloat(hash2(k, 20)) * 3);
  return Array.from({ length: count }, (_, n) => {
    const path = pages.name(Math.floor(SOURCE_PAGES * unitFloat(hash2(k, 21 + n)) ** 2));
    const words = path.split('/').slice(-2).join(' ').replace(/-/g, ' ');
    return { title: words.replace(/^\w/, (c) => c.toUpperCase()), url: site + path };
  });
}
