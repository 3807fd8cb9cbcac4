/**
 * A recipe row's prompt: the template with `{{column}}` replaced by the row's values and
 * `{{quotes}}` by its reader input, fenced (reader-text.ts). Every value is cleaned as reader text
 * is (one line, no fence characters, no secrets, capped): a page path or a count comes from the
 * same upstream data as a comment does.
 */
import { RecipeError } from './recipe.js';
import { cleanReaderText, quoteReaderText, readerRedactor, type QuotedItem } from './reader-text.js';

export interface RenderContext {
  /** Values of the row's columns (and `days`). */
  values: Record<string, unknown>;
  items: readonly QuotedItem[];
  maxQuotes: number;
  secrets: ReadonlyArray<string | undefined>;
  /** Named in an error about a placeholder the row lacks. */
  templatePath: string;
}

/** Longest value of a placeholder other than {{quotes}}, in characters. */
const MAX_VALUE_CHARS = 200;

export function renderPrompt(template: string, ctx: RenderContext): string {
  const redact = readerRedactor(ctx.secrets);
  const quotes = quoteReaderText(ctx.items.slice(0, ctx.maxQuotes), { secrets: ctx.secrets });
  return template.replace(/\{\{([a-z_][a-z0-9_]*)\}\}/g, (_match, name: string) => {
    if (name === 'quotes') return quotes;
    if (!(name in ctx.values)) throw new RecipeError(`${ctx.templatePath}: {{${name}}} is not a column of the recipe's query (nor quotes, days)`);
    const value = ctx.values[name];
    return cleanReaderText(value === null || value === undefined ? '' : String(value), MAX_VALUE_CHARS, redact);
  }).trim();
}
