/**
 * The shape of one entry in the settings table, and the value types an entry can have. Each type
 * parses the environment's text and says, for the settings reference, what it accepts; the table
 * (src/config/settings/) is then plain data.
 */

/** Reports one problem with the setting being parsed; the message follows the setting's name. */
export type Fail = (problem: string) => void;

export interface SettingType<T> {
  /** The value, or undefined after calling `fail` (the default then stands in). Never echoes `raw`. */
  parse(raw: string, fail: Fail): T | undefined;
  /** The reference's Bounds line, unless the entry states its own. */
  bounds: string;
}

export interface Setting<N extends string = string, T = unknown> {
  /** The environment variable. */
  name: N;
  /**
   * The variable's former name, deprecated: still read when `name` is unset, with a warning at
   * start and a note in the settings reference, until the next version removes it.
   */
  formerly?: string;
  type: SettingType<T>;
  /** Applies when the variable is unset or blank (or invalid, though that stops the start anyway). */
  default?: T;
  /** The reference's Default line when it is not the default value itself (computed, or "none: …"). */
  defaultText?: string;
  /** Appended to the Default line, e.g. `(12 h)`. */
  defaultNote?: string;
  /** Replaces the type's Bounds line. */
  bounds?: string;
  /** Appended to the Bounds line, e.g. `; required with \`CORE_API_URL\``. */
  boundsNote?: string;
  /** The feature that reads it (the reference's Used by line). */
  usedBy: string;
  /** What it does, in Markdown; paragraphs separated by a blank line. */
  description: string;
  /** A credential: included in what the gateway scrubs from upstream text; never shown in examples. */
  secret?: boolean;
  /** The value shown in .env.example; the default when omitted. */
  example?: string;
  /** A short comment after the line in .env.example. */
  envNote?: string;
}

/** A table entry that remembers whether it has a default, so the parsed value's type can say so. */
export interface DeclaredSetting<N extends string, T, V> extends Setting<N, T> {
  readonly __value?: V;
}

export function setting<const N extends string, T, D extends T | undefined = undefined>(
  spec: Omit<Setting<N, T>, 'default'> & { default?: D },
): DeclaredSetting<N, T, [D] extends [undefined] ? T | undefined : T> {
  return spec;
}

export type ValueOf<S> = S extends DeclaredSetting<string, unknown, infer V> ? V : never;

export interface SettingGroup {
  /** The section of the reference and of .env.example. */
  title: string;
  settings: ReadonlyArray<DeclaredSetting<string, any, unknown>>;
}

/** Thousands separators from 10,000 up, as the reference writes numbers. */
export function formatNumber(value: number): string {
  return value >= 10_000 ? value.toLocaleString('en-US') : String(value);
}

export function int(min: number, max: number): SettingType<number> {
  return {
    bounds: `integer, ${formatNumber(min)} to ${formatNumber(max)}`,
    parse(raw, fail) {
      if (/^\d+$/.test(raw) && Number(raw) >= min && Number(raw) <= max) return Number(raw);
      fail(`must be a whole number from ${min} to ${max}`);
      return undefined;
    },
  };
}

export function bool(): SettingType<boolean> {
  return {
    bounds: 'boolean',
    parse(raw, fail) {
      const value = raw.toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(value)) return true;
      if (['0', 'false', 'no', 'off'].includes(value)) return false;
      fail('must be true or false');
      return undefined;
    },
  };
}

export function oneOf<const T extends string>(allowed: readonly T[]): SettingType<T> {
  const shown = allowed.map((value) => `\`${value}\``);
  return {
    bounds: `${shown.slice(0, -1).join(', ')} or ${shown.at(-1)}`,
    parse(raw, fail) {
      if ((allowed as readonly string[]).includes(raw)) return raw as T;
      fail(`must be one of ${allowed.join(', ')}`);
      return undefined;
    },
  };
}

/**
 * Free text, optionally of a form. `problem` is the whole message; `shape` words it for a secret
 * ("has the wrong form: <shape>"), never quoting the value, and is also the reference's Bounds.
 */
export function text(form?: {
  pattern: RegExp;
  problem?: string;
  shape?: string;
  bounds?: string;
}): SettingType<string> {
  const problem = form?.problem ?? `has the wrong form: ${form?.shape}`;
  return {
    bounds: form?.bounds ?? form?.shape ?? 'text',
    parse(raw, fail) {
      if (!form || form.pattern.test(raw)) return raw;
      fail(problem);
      return undefined;
    },
  };
}

/** An http(s) URL without credentials, query or fragment, returned without a trailing slash. */
export function url(options: { originOnly?: boolean; bounds?: string } = {}): SettingType<string> {
  return {
    bounds: options.bounds ?? 'an http(s) URL',
    parse(raw, fail) {
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        fail('must be an absolute http(s) URL');
        return undefined;
      }
      if (!['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash || parsed.username) {
        fail('must be an http(s) URL without credentials, query or fragment');
        return undefined;
      }
      if (options.originOnly && parsed.pathname !== '/')
        fail('must be an origin (scheme, host and port) without a path');
      return parsed.href.replace(/\/+$/, '');
    },
  };
}

/** A calendar date (YYYY-MM-DD), not in the future. */
export function pastDate(): SettingType<Date> {
  return {
    bounds: '`YYYY-MM-DD`, not in the future',
    parse(raw, fail) {
      const date = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? new Date(`${raw}T00:00:00Z`) : undefined;
      if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw) {
        fail('must be a date: YYYY-MM-DD');
        return undefined;
      }
      if (date.getTime() > Date.now()) {
        fail('must not be in the future');
        return undefined;
      }
      return date;
    },
  };
}

/** A comma-separated list; `parse` gets the trimmed, non-empty items. */
export function list<T>(bounds: string, parse: (items: string[], fail: Fail) => T | undefined): SettingType<T> {
  return {
    bounds,
    parse: (raw, fail) =>
      parse(
        raw
          .split(',')
          .map((item) => item.trim())
          .filter(Boolean),
        fail,
      ),
  };
}
