/**
 * Reads typed values out of an environment map while collecting every problem, so that start-up
 * fails once with the whole list instead of once per bad key.
 */
export type Env = Readonly<Record<string, string | undefined>>;

export interface ConfigIssue {
  key: string;
  problem: string;
}

export class EnvReader {
  readonly issues: ConfigIssue[] = [];

  constructor(private readonly env: Env) {}

  /** The trimmed value, or undefined when unset or blank. */
  raw(key: string): string | undefined {
    const value = this.env[key]?.trim();
    return value ? value : undefined;
  }

  fail(key: string, problem: string): void {
    this.issues.push({ key, problem });
  }

  int(key: string, fallback: number, min: number, max: number): number {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.fail(key, `must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return Number(value);
  }

  bool(key: string, fallback: boolean): boolean {
    const value = this.raw(key)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.fail(key, 'must be true or false');
    return fallback;
  }

  /** A calendar date (YYYY-MM-DD), not in the future. */
  pastDate(key: string): Date | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    const date = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : undefined;
    if (!date || Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== value) {
      this.fail(key, 'must be a date: YYYY-MM-DD');
      return undefined;
    }
    if (date.getTime() > Date.now()) {
      this.fail(key, 'must not be in the future');
      return undefined;
    }
    return date;
  }

  /** An http(s) URL without query or fragment, returned without a trailing slash. */
  url(key: string): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      this.fail(key, 'must be an absolute http(s) URL');
      return undefined;
    }
    if (!['http:', 'https:'].includes(parsed.protocol) || parsed.search || parsed.hash || parsed.username) {
      this.fail(key, 'must be an http(s) URL without credentials, query or fragment');
      return undefined;
    }
    return parsed.href.replace(/\/+$/, '');
  }

  oneOf<T extends string>(key: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(key);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.fail(key, `must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }

  /** A secret: checked against `pattern`, never echoed in the error. */
  secret(key: string, pattern: RegExp, shape: string): string | undefined {
    const value = this.raw(key);
    if (value === undefined) return undefined;
    if (!pattern.test(value)) {
      this.fail(key, `has the wrong form: ${shape}`);
      return undefined;
    }
    return value;
  }
}
