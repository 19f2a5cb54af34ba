/**
 * The standalone sandbox's settings (`npm run sandbox`), declared once as data: each variable,
 * its default and how its text is read. `readStandaloneSettings` reads them all and reports every
 * bad one in one error, as the gateway's settings do; a value is never echoed back. (Embedded in
 * the gateway, the sandbox takes its options from the gateway's settings instead.)
 */

/** The value, or what is wrong with the text (worded to follow the variable's name). */
type Reader<T> = (raw: string) => T | Problem;

class Problem {
  constructor(readonly text: string) {}
}

const port: Reader<number> = (raw) =>
  /^\d{1,5}$/.test(raw) && Number(raw) <= 65_535 ? Number(raw) : new Problem('must be a port from 0 to 65535');

const word: Reader<string> = (raw) => (/^\S+$/.test(raw) ? raw : new Problem('must not contain spaces'));

const name: Reader<string> = (raw) => (raw.length <= 100 ? raw : new Problem('must be at most 100 characters'));

function httpUrl(raw: string): string | Problem {
  try {
    if (['http:', 'https:'].includes(new URL(raw).protocol)) return raw;
  } catch {
    // reported below
  }
  return new Problem('must be an absolute http(s) URL');
}

const urlList: Reader<string[]> = (raw) => {
  const urls = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return urls.length > 0 && urls.every((url) => typeof httpUrl(url) === 'string')
    ? urls
    : new Problem('must be a comma-separated list of absolute http(s) URLs');
};

const timeScale: Reader<number> = (raw) =>
  /^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= 3_600_000
    ? Number(raw)
    : new Problem('must be a whole number from 1 to 3600000');

const headerPrefix: Reader<string> = (raw) =>
  /^X-[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/.test(raw) ? raw : new Problem('must look like X-Service or X-Akahu');

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const logLevel: Reader<string> = (raw) =>
  LOG_LEVELS.includes(raw) ? raw : new Problem(`must be one of ${LOG_LEVELS.join(', ')}`);

interface Entry<T, D extends T | undefined> {
  read: Reader<T>;
  /** Applies when the variable is unset or blank; undefined: derived at start (from the seed, the host). */
  default: D;
}

function entry<T>(read: Reader<T>): Entry<T, undefined>;
function entry<T>(read: Reader<T>, fallback: T): Entry<T, T>;
function entry<T>(read: Reader<T>, fallback?: T): Entry<T, T | undefined> {
  return { read, default: fallback };
}

/** The app's name at the platform until it is given one: the gateway's own APP_NAME default. */
export const DEFAULT_APP_NAME = 'Open Finance Demo';

/** Every setting, with the defaults `.env.example` and the README show. */
export const STANDALONE_SETTINGS = {
  SANDBOX_HOST: entry(word, '127.0.0.1'),
  SANDBOX_CORE_PORT: entry(port, 4010),
  SANDBOX_ENRICHMENT_PORT: entry(port, 4011),
  SANDBOX_IDENTITY_PORT: entry(port, 4012),
  SANDBOX_SEED: entry(word, 'open-finance-sandbox'),
  SANDBOX_APP_NAME: entry(name, DEFAULT_APP_NAME),
  SANDBOX_APP_TOKEN: entry(word),
  SANDBOX_APP_SECRET: entry(word),
  SANDBOX_ENRICHMENT_KEY: entry(word),
  SANDBOX_REDIRECT_URIS: entry(urlList, ['http://localhost:4000/auth/callback']),
  SANDBOX_IDENTITY_ISSUER: entry(httpUrl),
  SANDBOX_WEBHOOK_URL: entry(httpUrl, 'http://localhost:4000/webhooks'),
  SANDBOX_WEBHOOK_TIME_SCALE: entry(timeScale, 120),
  PLATFORM_HEADER_PREFIX: entry(headerPrefix, 'X-Service'),
  LOG_LEVEL: entry(logLevel, 'info'),
};

type Settings = typeof STANDALONE_SETTINGS;

/** Each setting's value: its default when unset, undefined where there is none. */
export type StandaloneSettings = {
  [K in keyof Settings]: Settings[K] extends Entry<infer T, infer D>
    ? undefined extends D
      ? T | undefined
      : T
    : never;
};

/** Every bad setting at once, on one line: `SANDBOX_CORE_PORT must be a port from 0 to 65535; …`. */
export class StandaloneSettingsError extends Error {
  constructor(readonly issues: Array<{ key: string; problem: string }>) {
    super(`invalid sandbox settings: ${issues.map(({ key, problem }) => `${key} ${problem}`).join('; ')}`);
    this.name = 'StandaloneSettingsError';
  }
}

/** Reads every setting from the environment; throws one StandaloneSettingsError naming each bad key. */
export function readStandaloneSettings(env: Readonly<Record<string, string | undefined>>): StandaloneSettings {
  const values: Record<string, unknown> = {};
  const issues: Array<{ key: string; problem: string }> = [];
  for (const [key, { read, default: fallback }] of Object.entries(STANDALONE_SETTINGS) as Array<
    [string, Entry<unknown, unknown>]
  >) {
    const raw = env[key]?.trim();
    const value = raw ? read(raw) : fallback;
    if (value instanceof Problem) issues.push({ key, problem: value.text });
    else values[key] = value;
  }
  if (issues.length > 0) throw new StandaloneSettingsError(issues);
  return values as StandaloneSettings;
}
