import { SETTINGS, type SettingName, type SettingValues } from './settings.js';

/** The environment: process.env, or a test's own map. */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigIssue {
  key: string;
  problem: string;
}

export interface ParsedSettings {
  values: SettingValues;
  /** Whether the variable is set (non-blank), valid or not: "required" rules ask this. */
  given(name: SettingName): boolean;
  /** Every problem found so far, in table order; cross-field rules add theirs with `fail`. */
  issues: ConfigIssue[];
  fail(key: SettingName, problem: string): void;
}

/**
 * Reads every setting in the table out of the environment, collecting every problem instead of
 * stopping at the first, so that start-up fails once with the whole list.
 */
export function parseSettings(env: Env): ParsedSettings {
  const issues: ConfigIssue[] = [];
  const values: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const entry of SETTINGS) {
    const raw = env[entry.name]?.trim() || undefined;
    if (raw === undefined) {
      values[entry.name] = entry.default;
      continue;
    }
    given.add(entry.name);
    const value = entry.type.parse(raw, (problem) => issues.push({ key: entry.name, problem }));
    values[entry.name] = value ?? entry.default;
  }
  return {
    values: values as SettingValues,
    given: (name) => given.has(name),
    issues,
    fail: (key, problem) => issues.push({ key, problem }),
  };
}

/** The values of the settings marked secret that are set: credentials no output may carry. */
export function secretValues(env: Env): string[] {
  return SETTINGS.filter((entry) => entry.secret)
    .map((entry) => env[entry.name]?.trim())
    .filter((value): value is string => Boolean(value));
}
