/**
 * Reads a prompt file: JSONL or CSV by extension (`.jsonl`, `.ndjson` / `.csv`), else by content
 * (a first non-blank character `{` means JSONL). A file that cannot be read or holds no record at
 * all is a UsageError (one line); bad lines are returned, not thrown, so good ones still go. What
 * each good line does (create, message, a chain's follow-up) is planned for the whole file.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { UsageError } from '../errors.js';
import { inertLine } from '../inert-text.js';
import { readProblem } from '../read-problem.js';
import { parseCsv } from './parse-csv.js';
import { parseJsonl, type ParsedPrompts } from './parse-jsonl.js';
import { planChains, type PlannedPrompt } from './plan-chains.js';
import { promptFileText } from './prompt-file-text.js';
import type { LineProblem, PromptLimits, PromptLine } from './prompt-input.js';

export type PromptFileFormat = 'jsonl' | 'csv';

export interface PromptFile {
  path: string;
  format: PromptFileFormat;
  /** Good lines, in file order, with what each does. */
  prompts: Array<PlannedPrompt<PromptLine>>;
  /** Bad lines, in file order. */
  problems: LineProblem[];
}

export interface PromptFileOptions {
  /** Lines without `jobId` may start new agent jobs (`--allow-create`). @default false */
  allowCreate?: boolean;
}

export function detectFormat(path: string, text: string): PromptFileFormat {
  const ext = extname(path).toLowerCase();
  if (ext === '.jsonl' || ext === '.ndjson') return 'jsonl';
  if (ext === '.csv') return 'csv';
  return text.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? 'jsonl' : 'csv';
}

export async function readPromptFile(path: string, limits: PromptLimits, options: PromptFileOptions = {}): Promise<PromptFile> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new UsageError(`${path}: cannot read the prompt file (${readProblem(err)})`);
  }
  return parsePromptText(path, promptFileText(path, bytes), limits, options);
}

/** Parses the text of a prompt file named `path` (the name picks the format and labels errors). */
export async function parsePromptText(path: string, text: string, limits: PromptLimits, options: PromptFileOptions = {}): Promise<PromptFile> {
  if (text.replace(/^\uFEFF/, '').trim() === '') throw new UsageError(`${path}: the prompt file is empty`);
  const format = detectFormat(path, text);
  if (extname(path).toLowerCase() !== '.csv') refuseWholeJsonDocument(path, text);
  const parsed: ParsedPrompts = format === 'jsonl' ? parseJsonl(text, limits) : await parseCsv(text, limits, path);
  if (parsed.prompts.length === 0 && parsed.problems.length === 0) throw new UsageError(`${path}: the prompt file holds no prompts`);
  const plan = planChains(parsed.prompts, { allowCreate: options.allowCreate, refused: parsed.problems });
  const planProblems = plan.problems.map(({ index, reason }) => ({ line: parsed.prompts[index]!.line, reason }));
  const problems = [...parsed.problems, ...planProblems].sort((a, b) => a.line - b.line);
  return { path, format, prompts: plan.prompts, problems };
}

/**
 * A `.json` export (an array of prompt objects, or one object pretty-printed) is not JSON Lines:
 * read line by line it would be a screenful of bad lines, or, without an extension, a bad CSV header.
 */
function refuseWholeJsonDocument(path: string, text: string): void {
  const source = text.replace(/^\uFEFF/, '').trim();
  if (!source.startsWith('[') && !(source.startsWith('{') && source.includes('\n'))) return;
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch {
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const what = Array.isArray(value) ? 'array' : 'object';
  throw new UsageError(`${path}: one JSON ${what} over the whole file, not JSON Lines: put each prompt object on a line of its own`);
}

/** Bad lines shown on a terminal before the rest are only counted. */
export const SHOWN_PROBLEMS = 5;

/**
 * The first SHOWN_PROBLEMS problems as `label(line): reason` (`FILE:LINE: …`, the form editors
 * link to), then how many more. Inert: a reason may quote the input's bytes (`not JSON
 * (Unexpected token … "ok\x1b]0;…")`).
 */
export function problemLines(problems: readonly LineProblem[], label: (line: number) => string): string[] {
  const shown = problems.slice(0, SHOWN_PROBLEMS).map((problem) => inertLine(`${label(problem.line)}: ${problem.reason}`));
  const more = problems.length - shown.length;
  return more > 0 ? [...shown, `… and ${more} more bad line${more === 1 ? '' : 's'}`] : shown;
}
