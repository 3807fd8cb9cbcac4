/** JSON Lines prompt files: one object per line, blank lines skipped. */
import { validatePrompt, type LineProblem, type PromptLimits, type PromptLine } from './prompt-input.js';

export interface ParsedPrompts {
  prompts: PromptLine[];
  problems: LineProblem[];
}

export function parseJsonl(text: string, limits: PromptLimits): ParsedPrompts {
  const prompts: PromptLine[] = [];
  const problems: LineProblem[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    // A byte-order mark only ever starts the file.
    const source = index === 0 ? raw.replace(/^\uFEFF/, '') : raw;
    if (source.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (err) {
      problems.push({ line, reason: `not JSON (${err instanceof Error ? err.message : String(err)})` });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ line, reason: `expected an object with projectId, prompt (and jobId, chain), got ${Array.isArray(value) ? 'an array' : typeof value}` });
      return;
    }
    const checked = validatePrompt(value as Record<string, unknown>, limits);
    if ('reason' in checked) problems.push({ line, ...checked });
    else prompts.push({ ...checked, line });
  });
  return { prompts, problems };
}
