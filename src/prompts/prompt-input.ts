/**
 * One prompt as read from a file, and the check every line goes through. The ids are trimmed
 * (surrounding spaces in an id are always a mistake); the prompt text is kept exactly as given.
 * A row without `jobId` would start a new agent job; whether it may, and how rows of one `chain`
 * fit together, is decided for the whole file (plan-chains.ts).
 */
import { projectIdProblem } from '../../config/project-id.js';
import { Buffer } from 'node:buffer';

/** A prompt to send: the agent job it goes to (none: a new one) and its text. */
export interface PromptInput {
  projectId: string;
  /** The agent job; absent for a create, or for a follow-up of a chain (its first row names the job). */
  jobId?: string;
  prompt: string;
  /** Rows sharing this key (scoped to the file) run in order on one agent job. */
  chain?: string;
  /**
   * The row's own identity, given by a query's row (`prompts send --from-query`, triage recipes):
   * a later row with the same key is not sent again within the dedupe window. Files have none.
   */
  key?: string;
  /** Ids of the reader input behind a triage row (feedback ids, …), kept for lineage (`triage_items`). */
  sources?: readonly string[];
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
  /** The row's chain, when it could be read (later rows of that chain cannot go without it). */
  chain?: string;
}

/** Longest accepted chain key, in characters. */
export const MAX_CHAIN_LENGTH = 200;

export interface PromptLimits {
  /** Largest prompt in bytes of UTF-8. */
  maxPromptBytes: number;
}

/** The fields a prompt row may have. */
export const PROMPT_FIELDS = ['projectId', 'jobId', 'prompt', 'chain'] as const;

const normalizedName = (name: string) => name.toLowerCase().replace(/[\s_-]/g, '');

/**
 * Fields (or CSV columns) that are not PROMPT_FIELDS but read like one (`job_id`, `JobID`,
 * `project-id`), with the field meant: typos that would silently drop the value, and a dropped
 * jobId turns a follow-up into a create, which cannot be undone. Other unknown names (a notes
 * column) are left alone.
 */
function misspellings(names: readonly string[]): Array<{ name: string; meant: (typeof PROMPT_FIELDS)[number] }> {
  return names.flatMap((name) => {
    const meant = (PROMPT_FIELDS as readonly string[]).includes(name) ? undefined : PROMPT_FIELDS.find((field) => normalizedName(field) === normalizedName(name));
    return meant ? [{ name, meant }] : [];
  });
}

/** The problem with the first misspelled field among `names`, naming the field meant. */
export function misspelledField(names: readonly string[]): string | undefined {
  const [first] = misspellings(names);
  return first && `unknown field "${first.name}" (did you mean "${first.meant}"? fields are case-sensitive)`;
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

/**
 * An optional id: absent (or an empty CSV cell, given as '') is undefined; anything else must be a
 * usable id. A blank value (spaces only) is an error, not an absence: for jobId that would turn a
 * follow-up into a create.
 */
function optionalId(name: string, value: unknown): string | undefined | { reason: string } {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string' && value.trim() === '') return { reason: `${name}: blank (leave it out for none)` };
  return checkId(name, value);
}

/**
 * Checks one record's fields; returns the normalized prompt or the first problem found (with the
 * row's chain when that much could be read).
 */
export function validatePrompt(fields: Record<string, unknown>, limits: PromptLimits, options: { emptyIsAbsent?: boolean } = {}): PromptInput | { reason: string; chain?: string } {
  // The chain is read first, even under a misspelled name: a refused row still names its chain,
  // so the chain's later rows are refused too (else the next one would become the chain's create).
  const chainKey = 'chain' in fields ? 'chain' : misspellings(Object.keys(fields)).find((m) => m.meant === 'chain')?.name;
  const chain = optionalId('chain', chainKey === undefined ? undefined : fields[chainKey]);
  if (typeof chain === 'object') return chain;
  if (chain !== undefined && chain.length > MAX_CHAIN_LENGTH) return { reason: `chain: longer than ${MAX_CHAIN_LENGTH} characters` };
  const problem = (reason: string) => (chain === undefined ? { reason } : { reason, chain });
  const misspelled = misspelledField(Object.keys(fields));
  if (misspelled) return problem(misspelled);
  // JSON can leave a field out; an explicit "" or null is a mistake there (CSV has no other way to say none).
  if (!options.emptyIsAbsent) {
    const empty = (['jobId', 'chain'] as const).find((name) => fields[name] === '' || fields[name] === null);
    if (empty) return problem(`${empty}: ${fields[empty] === null ? 'null' : 'empty'} (leave the field out for none)`);
  }
  const projectId = checkId('projectId', fields.projectId);
  if (typeof projectId !== 'string') return problem(projectId.reason);
  // The rule every project id of mintpipe follows: one segment of the API's URL path.
  const unusable = projectIdProblem(projectId);
  if (unusable) return problem(`projectId: ${unusable}`);
  const jobId = optionalId('jobId', fields.jobId);
  if (typeof jobId === 'object') return problem(jobId.reason);
  if (jobId !== undefined && /[/\\]/.test(jobId)) return problem(`jobId: "${jobId}" contains a slash (it is one segment of the API's URL path)`);
  const prompt = fields.prompt;
  if (prompt === undefined || prompt === null) return problem('prompt: missing');
  if (typeof prompt !== 'string') return problem(`prompt: expected a string, got ${typeof prompt}`);
  if (prompt.trim() === '') return problem('prompt: empty');
  const bytes = Buffer.byteLength(prompt, 'utf8');
  if (bytes > limits.maxPromptBytes) return problem(`prompt: ${bytes} bytes, more than the limit of ${limits.maxPromptBytes}`);
  return { projectId, prompt, ...(jobId === undefined ? {} : { jobId }), ...(chain === undefined ? {} : { chain }) };
}
