import type { SandboxCategory } from '../data/categories.js';
import { PLACEHOLDER_LOGO_FILE } from '../data/logo-files.js';
import { CATEGORY_KEYWORDS, MERCHANTS, type MerchantDefinition } from '../data/merchants.js';
import { sandboxId } from '../data/sandbox-ids.js';

export interface SearchQuery {
  description: string;
  amount?: number;
  direction?: 'DEBIT' | 'CREDIT';
  connectionId?: string;
}

export interface SearchResult {
  confidence: number;
  category: SandboxCategory;
  merchant?: { _id: string; name: string; logo: string; website?: string };
}

interface IndexedMerchant {
  definition: MerchantDefinition;
  id: string;
  category: SandboxCategory;
  /** Normalised patterns; short ones only count at the start of a description. */
  patterns: { words: string; compact: string; prefixOnly: boolean; first: string; padded: string }[];
}

const MAX_RESULTS = 3;
const MIN_CONFIDENCE = 0.5;
const MAX_CONFIDENCE = 0.99;
/** Overseas descriptions get the platform's "limited support": global merchants only, capped. */
const OVERSEAS_CAP = 0.75;
const CURRENCY_MARKER = /\b(?:USD|AUD|GBP|EUR|CAD|SGD|JPY|HKD|CNY|CHF|FJD)\b/;
const COUNTRY_SUFFIX = /\s(?:AU|AUS|US|USA|GB|GBR|UK|SG|IE|IRL|NL|LU|CA|FR|DE|JP|HK|CN)$/;
const OVERSEAS_WORDS =
  /\b(?:INTL|INTERNATIONAL|FOREIGN|OVERSEAS|SAN FRANCISCO|SEATTLE|SYDNEY|MELBOURNE|LONDON|STOCKHOLM|AMSTERDAM|DUBLIN|SINGAPORE)\b/;

export interface MerchantMatcher {
  search(query: SearchQuery): SearchResult[];
}

/**
 * The sandbox's stand-in for the platform's enrichment model: deterministic, explainable scores
 * from how a description mentions a merchant. Good enough to demo and to test against; it makes
 * no claim to match the live model's numbers.
 *
 * By default only the merchants a description could match are scored: an index by pattern word,
 * by the first four letters of each pattern without spaces, and by one-letter deletions of long
 * first words (the typo rule) yields a superset of the merchants with a non-zero score, which are
 * then scored exactly as the simple scan would, in the same order. `indexed: false` is that scan
 * (kept for the test that compares the two on every statement line of the demo world).
 */
export function createMerchantMatcher(
  categories: Map<string, SandboxCategory>,
  logoBaseUrl: string,
  knownConnectionIds: Set<string>,
  options: { indexed?: boolean } = {},
): MerchantMatcher {
  const merchants: IndexedMerchant[] = MERCHANTS.map((definition) => ({
    definition,
    id: sandboxId('merchant', definition.slug),
    category: requireCategory(categories, definition.category),
    patterns: definition.patterns.map((pattern) => {
      const words = normalise(pattern);
      return {
        words,
        compact: words.replaceAll(' ', ''),
        prefixOnly: words.length <= 3 || pattern.endsWith(' '),
        // Made once here, not per query: the first word (the typo rule) and the words between spaces.
        first: words.split(' ')[0]!,
        padded: ` ${words} `,
      };
    }),
  }));
  const keywords = CATEGORY_KEYWORDS.map(([keyword, category], position) => ({
    keyword,
    position,
    category: requireCategory(categories, category),
  }));
  const NONE: typeof keywords = [];
  const candidates = options.indexed === false ? () => merchants : candidateFinder(merchants);
  const keywordsByFirstWord = new Map<string, typeof keywords>();
  for (const entry of keywords) {
    const first = entry.keyword.split(' ')[0]!;
    keywordsByFirstWord.set(first, [...(keywordsByFirstWord.get(first) ?? []), entry]);
  }
  // The keywords whose first word the description has, in table order (the order decides ties).
  const keywordCandidates = (wordList: string[]) => {
    if (options.indexed === false) return keywords;
    let found: typeof keywords | undefined;
    for (const word of wordList) {
      const entries = keywordsByFirstWord.get(word);
      if (entries) (found ??= []).push(...entries);
    }
    if (!found) return NONE;
    return found.length > 1 ? [...new Set(found)].sort((a, b) => a.position - b.position) : found;
  };

  // One merchant object per merchant, shared by every result that names it (its JSON is reused).
  const payloads = new Map(
    merchants.map((merchant) => {
      const { definition } = merchant;
      const payload = {
        _id: merchant.id,
        name: definition.name,
        logo: `${logoBaseUrl}/logos/merchants/${definition.noLogo ? PLACEHOLDER_LOGO_FILE : `${definition.slug}.png`}`,
        ...(definition.website ? { website: definition.website } : {}),
      };
      return [merchant, payload] as const;
    }),
  );

  function merchantResult(merchant: IndexedMerchant, confidence: number): SearchResult {
    return { confidence, category: merchant.category, merchant: payloads.get(merchant)! };
  }

  // Answers by description: an app's statement lines repeat (the demo world has 98 distinct among
  // 568), and the gateway sends a page's lines again on every read. Bounded: emptied when full.
  const answers = new Map<string, SearchResult[]>();
  const MAX_ANSWERS = 10_000;

  return {
    search(query) {
      const credit = query.direction === 'CREDIT' || (query.amount !== undefined && query.amount > 0);
      const bonus = query.connectionId && knownConnectionIds.has(query.connectionId) ? 0.02 : 0;
      const key = `${credit ? 'C' : 'D'}${bonus ? '+' : '-'}${query.description}`;
      let results = answers.get(key);
      if (!results) {
        if (answers.size >= MAX_ANSWERS) answers.clear();
        answers.set(key, (results = match(query.description, credit, bonus)));
      }
      return results;
    },
  };

  /** The results for one description, best first (see createMerchantMatcher). */
  function match(description: string, credit: boolean, bonus: number): SearchResult[] {
    const words = normalise(description);
    if (words.length === 0) return [];
    const overseas = isOverseas(words);
    const wordList = words.split(' ');
    const compact = wordList.join('');
    const firstWord = wordList[0]!;
    const padded = ` ${words} `;

    const scored: SearchResult[] = [];
    for (const merchant of candidates(wordList, compact, firstWord)) {
      if (overseas && !merchant.definition.global) continue;
      let score = scoreMerchant(merchant, padded, compact, firstWord);
      if (score === 0) continue;
      // A credit at a shop is usually a refund: still that merchant, but less certain.
      if (credit) score -= 0.08;
      score += bonus;
      if (overseas) score = Math.min(score, OVERSEAS_CAP);
      scored.push(merchantResult(merchant, round(score)));
    }
    if (!overseas) {
      for (const { keyword, category } of keywordCandidates(wordList)) {
        if (padded.includes(` ${keyword} `) && !scored.some((result) => result.category._id === category._id)) {
          scored.push({ confidence: round(0.55 + bonus), category });
        }
      }
    }
    return scored
      .filter((result) => result.confidence >= MIN_CONFIDENCE)
      .sort((a, b) => b.confidence - a.confidence)
      .slice(0, MAX_RESULTS);
  }
}

const GRAM = 4;

/** One-letter deletions of a word, and the word itself: two words within one edit share one. */
function deletionKeys(word: string): string[] {
  const keys = [word];
  for (let index = 0; index < word.length; index += 1) keys.push(word.slice(0, index) + word.slice(index + 1));
  return keys;
}

/**
 * The four characters from `index` as one number (normalised text is ASCII): looking grams up by
 * number spares a string per position of every description, the matcher's largest cost.
 */
function gramKey(text: string, index: number): number {
  return (
    ((text.charCodeAt(index) << 21) |
      (text.charCodeAt(index + 1) << 14) |
      (text.charCodeAt(index + 2) << 7) |
      text.charCodeAt(index + 3)) >>>
    0
  );
}

/** The merchants a description could score against, in dataset order (see createMerchantMatcher). */
function candidateFinder(
  merchants: IndexedMerchant[],
): (wordList: string[], compact: string, firstWord: string) => IndexedMerchant[] {
  const byWord = new Map<string, number[]>();
  const byGram = new Map<number, number[]>();
  const byDeletion = new Map<string, number[]>();
  const add = <K>(index: Map<K, number[]>, key: K, merchant: number) => {
    let list = index.get(key);
    if (!list) index.set(key, (list = []));
    if (!list.includes(merchant)) list.push(merchant);
  };
  merchants.forEach((merchant, position) => {
    for (const pattern of merchant.patterns) {
      const first = pattern.words.split(' ')[0]!;
      add(byWord, first, position);
      if (pattern.compact.length >= 5) add(byGram, gramKey(pattern.compact, 0), position);
      if (first.length >= 6) for (const key of deletionKeys(first)) add(byDeletion, key, position);
    }
  });
  // Marks found merchants with this call's number instead of building a Set and sorting it: the
  // candidates then come out in dataset order by a scan of the (small) dataset. This and the
  // keyword lookup halved the matcher's time per query (profiled on the demo world's lines).
  const seenIn = new Uint32Array(merchants.length);
  let call = 0;
  return (wordList, compact, firstWord) => {
    call += 1;
    let count = 0;
    const take = (positions: readonly number[] | undefined) => {
      if (positions)
        for (const position of positions)
          if (seenIn[position] !== call) {
            seenIn[position] = call;
            count += 1;
          }
    };
    for (const word of wordList) take(byWord.get(word));
    for (let index = 0; index + GRAM <= compact.length; index += 1) take(byGram.get(gramKey(compact, index)));
    if (firstWord.length >= 6) for (const key of deletionKeys(firstWord)) take(byDeletion.get(key));
    const found: IndexedMerchant[] = [];
    for (let position = 0; count > 0 && position < merchants.length; position += 1)
      if (seenIn[position] === call) {
        found.push(merchants[position]!);
        count -= 1;
      }
    return found;
  };
}

/** `padded` is the description's words between spaces (` ${words} `), made once per query. */
function scoreMerchant(merchant: IndexedMerchant, padded: string, compact: string, firstWord: string): number {
  let best = 0;
  for (const pattern of merchant.patterns) {
    if (padded.startsWith(pattern.padded)) best = Math.max(best, 0.95);
    else if (pattern.prefixOnly) continue;
    else if (padded.includes(pattern.padded)) best = Math.max(best, 0.88);
    else if (pattern.compact.length >= 5 && compact.includes(pattern.compact)) best = Math.max(best, 0.8);
    else if (isNearMiss(firstWord, pattern.first)) best = Math.max(best, 0.62);
  }
  return best;
}

/** Upper case, apostrophes dropped (PAK'NSAVE), everything else that is not a letter or digit a space. */
export function normalise(text: string): string {
  return text
    .toUpperCase()
    .replaceAll(/['’]/g, '')
    .replaceAll(/[^A-Z0-9]+/g, ' ')
    .trim();
}

function isOverseas(words: string): boolean {
  return CURRENCY_MARKER.test(words) || COUNTRY_SUFFIX.test(words) || OVERSEAS_WORDS.test(words);
}

/** One typo in a long first word ("WOOLWORHTS") still suggests the merchant, weakly. */
function isNearMiss(word: string, target: string): boolean {
  if (word.length < 6 || target.length < 6 || Math.abs(word.length - target.length) > 1) return false;
  return editDistanceAtMostOne(word, target);
}

function editDistanceAtMostOne(a: string, b: string): boolean {
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i += 1;
      j += 1;
      continue;
    }
    edits += 1;
    if (edits > 1) return false;
    if (a.length > b.length) i += 1;
    else if (b.length > a.length) j += 1;
    else if (a[i + 1] === b[j] && a[i] === b[j + 1]) {
      i += 2;
      j += 2;
    } else {
      i += 1;
      j += 1;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}

function round(value: number): number {
  return Math.round(Math.min(MAX_CONFIDENCE, value) * 100) / 100;
}

function requireCategory(categories: Map<string, SandboxCategory>, name: string): SandboxCategory {
  const category = categories.get(name);
  if (!category) throw new Error(`sandbox dataset names unknown category "${name}"`);
  return category;
}
