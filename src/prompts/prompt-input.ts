/**
 * One prompt as read from a file, and the check every line goes through. The ids are trimmed
 * (surrounding spaces in an id are always a mistake); the prompt text is kept exactly as given.
 */
import { Buffer } from 'node:buffer';

/** A prompt to send: the agent job it goes to and its text. */
export interface PromptInput {
  projectId: string;
  jobId: string;
  prompt: string;
}

/** A good line of a prompt file, with where it came from. */
export interface PromptLine extends PromptInput {
  /** 1-based line of the file where the record starts. */
  line: number;
}

/** A bad line: where it is and what is wrong, printed as `FILE:LINE: reason`. */
export interface LineProblem {
  line: number;
  reason: string;
}

export interface PromptLimits {
  /** Largest prompt in bytes of UTF-8. */
  maxPromptBytes: number;
}

/** Ids that cannot be a URL path segment (URL parsing resolves dot segments). */
const UNUSABLE_IDS = new Set(['.', '..']);

function checkId(name: string, value: unknown): string | { reason: string } {
  if (value === undefined || value === null) return { reason: `${name}: missing` };
  if (typeof value !== 'string') return { reason: `${name}: expected a string, got ${typeof value}` };
  const id = value.trim();
  if (id === '') return { reason: `${name}: empty` };
  if (UNUSABLE_IDS.has(id)) return { reason: `${name}: "${id}" cannot be an id` };
  if (/[\u0000-\u001f\u007f]/.test(id)) return { reason: `${name}: contains control characters` };
  return id;
}

/** Checks one record's fields; returns the normalized prompt or the first problem found. */
export function validatePrompt(fields: Record<string, unknown>, limits: PromptLimits): PromptInput | { reason: string } {
  const projectId = checkId('projectId', fields.projectId);
  if (typeof projectId !== 'string') return projectId;
  const jobId = checkId('jobId', fields.jobId);
  if (typeof jobId !== 'string') return jobId;
  const prompt = fields.prompt;
  if (prompt === undefined || prompt === null) return { reason: 'prompt: missing' };
  if (typeof prompt !== 'string') return { reason: `prompt: expected a string, got ${typeof prompt}` };
  if (prompt.trim() === '') return { reason: 'prompt: empty' };
  const bytes = Buffer.byteLength(prompt, 'utf8');
  if (bytes > limits.maxPromptBytes) return { reason: `prompt: ${bytes} bytes, more than the limit of ${limits.maxPromptBytes}` };
  return { projectId, jobId, prompt };
}
