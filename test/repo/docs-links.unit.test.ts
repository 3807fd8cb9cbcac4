/** The README stays a front door that fits on a few screens, and no link between the docs is dead. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const README_MAX_BYTES = 12_288;

/** Markdown files by path relative to the repository root. */
type Pages = Map<string, string>;

function repositoryPages(): Pages {
  const names = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];
  return new Map(names.map((name) => [name, readFileSync(join(ROOT, name), 'utf8')]));
}

/** The text outside fenced code blocks and inline code, where a `[x](y)` is a link. */
function prose(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  for (const match of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (match[1] ?? '').toLowerCase().replace(/[^\p{L}\p{N}\p{M}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    result.add(count === 0 ? base : `${base}-${count}`);
  }
  return result;
}

/**
 * Every relative link of the pages whose file or heading does not exist, as `page: target (why)`.
 * `exists` answers for files outside `pages` (a link to source code, say).
 */
function brokenLinks(pages: Pages, exists: (path: string) => boolean): string[] {
  const broken: string[] = [];
  for (const [page, markdown] of pages) {
    for (const match of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [pathPart = '', anchor] = target.split('#', 2);
      const path = pathPart === '' ? page : normalize(join(dirname(page), decodeURIComponent(pathPart)));
      if (!pages.has(path) && !exists(path)) {
        broken.push(`${page}: ${target} (no file ${path})`);
        continue;
      }
      const text = pages.get(path);
      if (anchor !== undefined && text !== undefined && !anchors(text).has(anchor)) {
        broken.push(`${page}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
  }
  return broken;
}

function existsInRepository(path: string): boolean {
  const full = join(ROOT, path);
  if (relative(ROOT, full).startsWith('..')) return false;
  try {
    statSync(full);
    return true;
  } catch {
    return false;
  }
}

describe('the README and docs/', () => {
  it(`keep README.md within ${README_MAX_BYTES} bytes`, () => {
    expect(Buffer.byteLength(readFileSync(join(ROOT, 'README.md')))).toBeLessThanOrEqual(README_MAX_BYTES);
  });

  it('show the two set-up commands in the README', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm install && npm start');
    expect(readme).toContain('npm install && npm test');
  });

  it('link only to files and headings that exist', () => {
    const pages = repositoryPages();
    expect(pages.size).toBeGreaterThan(1);
    expect(brokenLinks(pages, existsInRepository)).toEqual([]);
  });
});

describe('the link check', () => {
  const pages: Pages = new Map([
    ['README.md', '# mintpipe\n\nSee [ops](docs/ops.md#redis-cluster), [top](#mintpipe) and [web](https://example.com).\n'],
    ['docs/ops.md', '# Operations\n\n## Redis Cluster\n\nBack to [the README](../README.md). `[not](a-link.md)`\n\n```\n[nor](this.md)\n```\n'],
  ]);

  it('accepts links to pages and headings that exist, and ignores code and absolute URLs', () => {
    expect(brokenLinks(pages, () => false)).toEqual([]);
  });

  it('names a link to a missing file and one to a missing heading', () => {
    const withDeadLinks = new Map(pages);
    withDeadLinks.set('docs/prompts.md', '# Prompts\n\n[gone](design.md) and [moved](ops.md#redis) and [self](#nowhere)\n');
    expect(brokenLinks(withDeadLinks, () => false)).toEqual([
      'docs/prompts.md: design.md (no file docs/design.md)',
      'docs/prompts.md: ops.md#redis (no heading #redis in docs/ops.md)',
      'docs/prompts.md: #nowhere (no heading #nowhere in docs/prompts.md)',
    ]);
  });

  it('numbers repeated headings as GitHub does', () => {
    expect([...anchors('# A\n## Notes\n### Notes\n## One engine, several `commands`\n')]).toEqual(['a', 'notes', 'notes-1', 'one-engine-several-commands']);
  });
});
