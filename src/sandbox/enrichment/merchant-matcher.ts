import type { SandboxCategory } from '../data/categories.js';
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
  patterns: { words: string; compact: string; prefixOnly: boolean }[];
}

const MAX_RESULTS = 3;
const MIN_CONFIDENCE = 0.5;
const MAX_CONFIDENCE = 0.99;
/** Overseas descriptions get the platform's "limited support": global merchants only, capped. */
const OVERSEAS_CAP = 0.75;
const CURRENCY_MARKER = /\b(?:USD|AUD|GBP|EUR|CAD|SGD|JPY|HKD|CNY|CHF|FJD)\b/;
const COUNTRY_SUFFIX = /\s(?:AU|AUS|US|USA|GB|GBR|UK|SG|IE|IRL|NL|LU|CA|FR|DE|JP|HK|CN)$/;
const OVERSEAS_WORDS = /\b(?:INTL|INTERNATIONAL|FOREIGN|OVERSEAS|SAN FRANCISCO|SEATTLE|SYDNEY|MELBOURNE|LONDON|STOCKHOLM|AMSTERDAM|DUBLIN|SINGAPORE)\b/;

export interface MerchantMatcher {
  search(query: SearchQuery): SearchResult[];
}

/**
 * The sandbox's stand-in for the platform's enrichment model: deterministic, explainable scores
 * from how a description mentions a merchant. Good enough to demo and to test against; it makes
 * no claim to match the live model's numbers.
 */
export function createMerchantMatcher(categories: Map<string, SandboxCategory>, logoBaseUrl: string, knownConnectionIds: Set<string>): MerchantMatcher {
  const merchants: IndexedMerchant[] = MERCHANTS.map((definition) => ({
    definition,
    id: sandboxId('merchant', definition.slug),
    category: requireCategory(categories, definition.category),
    patterns: definition.patterns.map((pattern) => {
      const words = normalise(pattern);
      return { words, compact: words.replaceAll(' ', ''), prefixOnly: words.length <= 3 || pattern.endsWith(' ') };
    }),
  }));
  const keywords = CATEGORY_KEYWORDS.map(([keyword, category]) => ({ keyword, category: requireCategory(categories, category) }));

  function merchantResult(merchant: IndexedMerchant, confidence: number): SearchResult {
    const { definition } = merchant;
    return {
      confidence,
      category: merchant.category,
      merchant: {
        _id: merchant.id,
        name: definition.name,
        logo: `${logoBaseUrl}/logos/merchants/${definition.noLogo ? 'default' : definition.slug}.png`,
        ...(definition.website ? { website: definition.website } : {}),
      },
    };
  }

  return {
    search(query) {
      const words = normalise(query.description);
      if (words.length === 0) return [];
      const overseas = isOverseas(words);
      const credit = query.direction === 'CREDIT' || (query.amount !== undefined && query.amount > 0);
      const bonus = query.connectionId && knownConnectionIds.has(query.connectionId) ? 0.02 : 0;

      const scored: SearchResult[] = [];
      for (const merchant of merchants) {
        if (overseas && !merchant.definition.global) continue;
        let score = scoreMerchant(merchant, words);
        if (score === 0) continue;
        // A credit at a shop is usually a refund: still that merchant, but less certain.
        if (credit) score -= 0.08;
        score += bonus;
        if (overseas) score = Math.min(score, OVERSEAS_CAP);
        scored.push(merchantResult(merchant, round(score)));
      }
      if (!overseas) {
        for (const { keyword, category } of keywords) {
          if (containsWords(words, keyword) && !scored.some((result) => result.category._id === category._id)) {
            scored.push({ confidence: round(0.55 + bonus), category });
          }
        }
      }
      return scored
        .filter((result) => result.confidence >= MIN_CONFIDENCE)
        .sort((a, b) => b.confidence - a.confidence)
        .slice(0, MAX_RESULTS);
    },
  };
}

function scoreMerchant(merchant: IndexedMerchant, words: string): number {
  let best = 0;
  const compact = words.replaceAll(' ', '');
  for (const pattern of merchant.patterns) {
    if (words === pattern.words || words.startsWith(`${pattern.words} `)) best = Math.max(best, 0.95);
    else if (pattern.prefixOnly) continue;
    else if (containsWords(words, pattern.words)) best = Math.max(best, 0.88);
    else if (pattern.compact.length >= 5 && compact.includes(pattern.compact)) best = Math.max(best, 0.8);
    else if (isNearMiss(words.split(' ')[0]!, pattern.words.split(' ')[0]!)) best = Math.max(best, 0.62);
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

function containsWords(haystack: string, needle: string): boolean {
  return ` ${haystack} `.includes(` ${needle} `);
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
