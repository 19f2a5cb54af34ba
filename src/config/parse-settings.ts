import { SETTINGS, type SettingName, type SettingValues } from './settings.js';

/** The environment: process.env, or a test's own map. */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigIssue {
  key: string;
  problem: string;
}

/** A setting given under its former name (read, with a warning at start). */
export interface DeprecatedSetting {
  name: string;
  replacedBy: SettingName;
}

export interface ParsedSettings {
  values: SettingValues;
  /** Settings given under a former name, in table order. */
  deprecated: DeprecatedSetting[];
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
  const deprecated: DeprecatedSetting[] = [];
  for (const entry of SETTINGS) {
    const { name, raw } = readVariable(env, entry);
    if (raw === undefined) {
      values[entry.name] = entry.default;
      continue;
    }
    given.add(entry.name);
    if (name !== entry.name) deprecated.push({ name, replacedBy: entry.name });
    // A problem is reported under the name the operator set.
    const value = entry.type.parse(raw, (problem) => issues.push({ key: name, problem }));
    values[entry.name] = value ?? entry.default;
  }
  return {
    values: values as SettingValues,
    deprecated,
    given: (name) => given.has(name),
    issues,
    fail: (key, problem) => issues.push({ key, problem }),
  };
}

/** The variable that holds the setting: its name, or while that is unset, its former name. */
function readVariable(env: Env, entry: (typeof SETTINGS)[number]): { name: string; raw: string | undefined } {
  const raw = env[entry.name]?.trim() || undefined;
  const former = entry.formerly;
  if (raw !== undefined || former === undefined) return { name: entry.name, raw };
  return { name: former, raw: env[former]?.trim() || undefined };
}

/** The values of the settings marked secret that are set: credentials no output may carry. */
export function secretValues(env: Env): string[] {
  return SETTINGS.filter((entry) => entry.secret)
    .map((entry) => readVariable(env, entry).raw)
    .filter((value): value is string => Boolean(value));
}
