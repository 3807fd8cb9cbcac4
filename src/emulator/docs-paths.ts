/**
 * Names for synthetic documentation pages (`/guides/webhooks/overview`). Path number `i` of a
 * project maps to a name through a mixed-radix bijection over three word lists, so names are unique
 * for any number of paths (past the lists' capacity a `-2`, `-3`… suffix keeps them unique).
 * The word lists are shuffled per project, so projects differ but a project's page `i` keeps its
 * name in every window: popular pages stay popular, and longer windows see more of the tail.
 *
 * Each path also has a numeric key whose order is the names' string order, computed from the same
 * decomposition. Sorting a million paths by key is a typed-array sort (~0.1 s); by name it is ~3 s.
 */
import { hashNumbers, hashString, seededShuffle } from './seeded-random.js';

/** The most visited pages of every Mintlify site; they take the first path numbers. At most two segments. */
const LANDING_PAGES = ['/introduction', '/quickstart', '/development', '/api-reference/introduction', '/changelog'];

const SECTIONS = [
  'guides', 'api-reference', 'concepts', 'integrations', 'sdks', 'deployment', 'components', 'settings',
  'tutorials', 'platform',
];

const TOPICS = [
  'authentication', 'webhooks', 'analytics', 'users', 'projects', 'billing', 'search', 'navigation', 'themes',
  'domains', 'editor', 'agents', 'deployments', 'permissions', 'teams', 'api-keys', 'pages', 'snippets',
  'openapi', 'files', 'events', 'errors', 'pagination', 'rate-limits', 'cli', 'github', 'gitlab', 'slack',
  'sessions', 'organizations',
];

/** No word here may be a prefix of another: the key order relies on it (checked below). */
const PAGES = [
  'overview', 'quickstart', 'create', 'update', 'delete', 'list', 'get', 'configuration', 'best-practices',
  'troubleshooting', 'migration', 'examples', 'limits', 'reference', 'setup', 'faq', 'tokens', 'scopes',
  'testing', 'local-development', 'monitoring', 'security', 'versioning', 'retries', 'filters', 'sorting',
  'exports', 'imports', 'logs', 'metrics', 'alerts', 'roles', 'invites', 'sso', 'custom-fields', 'templates',
  'environments', 'previews', 'redirects', 'caching',
];

for (const a of PAGES) {
  for (const b of PAGES) if (a !== b && b.startsWith(a)) throw new Error(`page word ${a} is a prefix of ${b}`);
}

const S = SECTIONS.length;
const T = TOPICS.length;
const P = PAGES.length;
/** Key slots per three-segment path; landing pages take the odd slots in between. */
const SLOT = 8;

/** The paths 0…count-1 of one project: their names, and sort keys in the names' string order. */
export class DocsPathSpace {
  /** Keys are integers in [0, keySpace). */
  readonly keySpace: number;
  private readonly sections: string[];
  private readonly topics: string[];
  private readonly pages: string[];
  private readonly variants: number;
  private readonly sectionRank: Int32Array;
  private readonly sectionAt: Int32Array;
  private readonly topicRank: Int32Array;
  private readonly topicAt: Int32Array;
  private readonly pageRank: Int32Array;
  private readonly pageAt: Int32Array;
  private readonly variantRank: Int32Array;
  private readonly variantAt: Int32Array;
  private readonly landingKeys: number[];
  private readonly landingByKey: Map<number, number>;

  constructor(seed: number, projectId: string, count: number) {
    const projectSeed = hashNumbers(seed, hashString(projectId));
    this.sections = seededShuffle(SECTIONS, projectSeed ^ 1);
    this.topics = seededShuffle(TOPICS, projectSeed ^ 2);
    this.pages = seededShuffle(PAGES, projectSeed ^ 3);
    this.variants = Math.max(1, Math.ceil((count - LANDING_PAGES.length) / (S * T * P)));
    // A segment is followed by '/', which sorts after '-': rank `api/` vs `api-keys/`, not the bare words.
    [this.sectionRank, this.sectionAt] = ranks(this.sections.map((w) => `${w}/`));
    [this.topicRank, this.topicAt] = ranks(this.topics.map((w) => `${w}/`));
    [this.pageRank, this.pageAt] = ranks(this.pages);
    [this.variantRank, this.variantAt] = ranks(Array.from({ length: this.variants }, (_, v) => suffix(v)));
    const compounds = S * T * P * this.variants;
    this.keySpace = (compounds + 1) * SLOT;
    const landingOrder = ranks(LANDING_PAGES)[0];
    this.landingKeys = LANDING_PAGES.map((page, i) => this.nextCompound(page) * SLOT + 1 + landingOrder[i]!);
    this.landingByKey = new Map(this.landingKeys.map((key, i) => [key, i]));
  }

  /** The docs path of path number `index`. */
  name(index: number): string {
    if (index < LANDING_PAGES.length) return LANDING_PAGES[index]!;
    const [s, t, p, v] = this.decompose(index);
    return `/${this.sections[s]}/${this.topics[t]}/${this.pages[p]}${suffix(v)}`;
  }

  /** A key whose numeric order is the string order of `name(index)`. */
  key(index: number): number {
    if (index < LANDING_PAGES.length) return this.landingKeys[index]!;
    const [s, t, p, v] = this.decompose(index);
    const compound =
      ((this.sectionRank[s]! * T + this.topicRank[t]!) * P + this.pageRank[p]!) * this.variants + this.variantRank[v]!;
    return (compound + 1) * SLOT;
  }

  /** The path number whose key is `key` (the inverse of `key`). */
  indexOf(key: number): number {
    if (key % SLOT !== 0) return this.landingByKey.get(key)!;
    let compound = key / SLOT - 1;
    const v = this.variantAt[compound % this.variants]!;
    compound = Math.floor(compound / this.variants);
    const p = this.pageAt[compound % P]!;
    compound = Math.floor(compound / P);
    const t = this.topicAt[compound % T]!;
    const s = this.sectionAt[Math.floor(compound / T)]!;
    return LANDING_PAGES.length + ((v * P + p) * T + t) * S + s;
  }

  /** Section varies fastest so the popular head spreads over every section, as on real sites. */
  private decompose(index: number): [number, number, number, number] {
    let rest = index - LANDING_PAGES.length;
    const s = rest % S;
    rest = Math.floor(rest / S);
    const t = rest % T;
    rest = Math.floor(rest / T);
    return [s, t, rest % P, Math.floor(rest / P)];
  }

  /** The compound number of the first three-segment path after a landing page (or the end). */
  private nextCompound(page: string): number {
    for (let sr = 0; sr < S; sr++) {
      const block = `/${this.sections[this.sectionAt[sr]!]}/`;
      if (page.startsWith(block)) {
        const rest = page.slice(block.length);
        for (let tr = 0; tr < T; tr++) {
          const topic = `${this.topics[this.topicAt[tr]!]}/`;
          if (rest.startsWith(topic)) throw new Error(`landing page ${page} has too many segments`);
          if (rest < topic) return (sr * T + tr) * P * this.variants;
        }
        continue;
      }
      // Not inside this section's block, so it sorts before or after all of the block at once.
      if (page < block) return sr * T * P * this.variants;
    }
    return S * T * P * this.variants;
  }
}

function suffix(variant: number): string {
  return variant === 0 ? '' : `-${variant + 1}`;
}

/** For words in list order: each word's rank in string order, and the word position at each rank. */
function ranks(words: readonly string[]): [Int32Array, Int32Array] {
  const at = Int32Array.from(words.keys()).sort((a, b) => (words[a]! < words[b]! ? -1 : words[a]! > words[b]! ? 1 : 0));
  const rank = new Int32Array(words.length);
  at.forEach((position, r) => (rank[position] = r));
  return [rank, at];
}
