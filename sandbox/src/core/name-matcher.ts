/**
 * Name matching as the platform describes it (specification rules plus the live platform's
 * published examples): case-insensitive, titles ignored, an initial matches only as an initial
 * (partial), only the components the caller supplied are judged, and a source whose family name
 * does not match is left out. Joint holders ("A M NGATA & J R WILSON") are judged per person.
 */

export interface NameInput {
  family_name: string;
  given_name?: string;
  middle_name?: string;
}

export interface Verification {
  family_name: boolean;
  given_name: boolean;
  given_initial: boolean;
  middle_name: boolean;
  middle_initial: boolean;
}

export interface NameJudgement {
  match_result: 'MATCH' | 'PARTIAL_MATCH';
  verification: Verification;
}

const TITLES = new Set(['MR', 'MRS', 'MS', 'MISS', 'MX', 'DR', 'SIR', 'DAME', 'MASTER', 'PROF', 'REV']);

interface ParsedName {
  given?: string;
  middle: string[];
  family: string;
}

function words(text: string): string[] {
  return text
    .toUpperCase()
    .replaceAll(/[^A-Z\s'-]/g, ' ')
    .split(/\s+/)
    .filter((word) => word.length > 0);
}

/** Splits a holder string into the people it names. */
export function splitHolders(holder: string): string[] {
  return holder.split(/\s*(?:&|\bAND\b|,|\/)\s*/i).filter((part) => part.trim().length > 0);
}

function parse(person: string): ParsedName | undefined {
  const parts = words(person).filter((word) => !TITLES.has(word));
  if (parts.length === 0) return undefined;
  const family = parts.at(-1)!;
  const rest = parts.slice(0, -1);
  return { given: rest[0], middle: rest.slice(1), family };
}

/** Full match, initial-only match, or none, for one name component. */
function compare(supplied: string, held: string | undefined): 'full' | 'initial' | 'none' {
  if (!held) return 'none';
  const a = supplied.toUpperCase();
  if (a === held) return 'full';
  const eitherIsInitial = a.length === 1 || held.length === 1;
  return eitherIsInitial && a[0] === held[0] ? 'initial' : 'none';
}

function judgePerson(input: NameInput, person: ParsedName): NameJudgement | undefined {
  if (input.family_name.trim().toUpperCase() !== person.family) return undefined;
  const verification: Verification = {
    family_name: true,
    given_name: false,
    given_initial: false,
    middle_name: false,
    middle_initial: false,
  };
  let allFull = true;

  const given = input.given_name?.trim();
  if (given) {
    const result = compare(given, person.given);
    verification.given_name = result === 'full';
    verification.given_initial = result === 'initial';
    allFull &&= result === 'full';
  }

  const middles = input.middle_name ? words(input.middle_name) : [];
  if (middles.length > 0) {
    const results = middles.map((middle, index) => compare(middle, person.middle[index]));
    verification.middle_name = results.every((result) => result === 'full');
    verification.middle_initial = !verification.middle_name && results.every((result) => result !== 'none');
    allFull &&= verification.middle_name;
  }

  return { match_result: allFull ? 'MATCH' : 'PARTIAL_MATCH', verification };
}

function score(judgement: NameJudgement): number {
  const v = judgement.verification;
  return (
    (judgement.match_result === 'MATCH' ? 100 : 0) +
    Number(v.given_name) * 4 +
    Number(v.middle_name) * 4 +
    Number(v.given_initial) +
    Number(v.middle_initial)
  );
}

/** Best judgement over the people a name source holds; undefined when no family name matches. */
export function judgeName(input: NameInput, heldName: string): NameJudgement | undefined {
  let best: NameJudgement | undefined;
  for (const person of splitHolders(heldName)) {
    const parsed = parse(person);
    const judgement = parsed && judgePerson(input, parsed);
    if (judgement && (!best || score(judgement) > score(best))) best = judgement;
  }
  return best;
}
