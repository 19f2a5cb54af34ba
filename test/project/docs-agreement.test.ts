import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CloseCode as ProtocolCloseCode } from 'graphql-ws';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENTS } from '@open-finance-gateway/common/webhook-events';
import { APOLLO_REQUEST_CODES, ErrorCode } from '../../src/graphql/errors.js';

/** Every TypeScript file of the gateway's `src/`, with its text. */
const SOURCES: ReadonlyArray<{ file: string; text: string }> = (readdirSync('src', { recursive: true }) as string[])
  .filter((file) => file.endsWith('.ts'))
  .map((file) => ({ file: join('src', file), text: readFileSync(join('src', file), 'utf8') }));

const matchesIn = (pattern: RegExp, files = SOURCES) =>
  files.flatMap(({ text }) => [...text.matchAll(pattern)].map((match) => match[1]!));

/** The string literals of a type union: `export type Name = 'a' | 'b'` (multi-line, comments allowed). */
function unionMembers(name: string): string[] {
  const declaration = SOURCES.map(({ text }) =>
    new RegExp(`type ${name} =([\\s\\S]*?);`).exec(text.replaceAll(/\/\*\*[\s\S]*?\*\//g, '')),
  ).find(Boolean);
  if (!declaration) throw new Error(`no type ${name} in src/`);
  return [...declaration[1]!.matchAll(/'([a-z_A-Z]+)'/g)].map((match) => match[1]!);
}

/** The Markdown file's table rows, as lists of cells (the header and separator rows left out). */
function tableRows(file: string): string[][] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[-| ]+\|$/.test(line))
    .map((line) =>
      line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
}

const backticked = (text: string) => [...text.matchAll(/`([A-Z0-9_]+)`/g)].map((match) => match[1]!);
const sorted = (values: Iterable<string>): string[] => [...new Set(values)].sort();

describe('docs/reference/close-codes.md', () => {
  /** The gateway's own close codes, wherever the code keeps them, by name. */
  function gatewayCloseCodes(): Record<string, number> {
    const holder = SOURCES.find(({ text }) => /export const CloseCode = \{/.test(text));
    if (!holder) throw new Error('no CloseCode in src/');
    const body = /export const CloseCode = \{([\s\S]*?)\} as const/.exec(holder.text)![1]!;
    return Object.fromEntries([...body.matchAll(/^\s+([A-Z_]+): (\d+),/gm)].map((m) => [m[1]!, Number(m[2])]));
  }

  it('lists every code the gateway closes a socket with, and no other', () => {
    const gateway = gatewayCloseCodes();
    const protocol = ProtocolCloseCode as unknown as Record<string, number>;
    const used = matchesIn(/\bCloseCode\.(\w+)/g).map((name) => {
      const code = gateway[name] ?? protocol[name];
      if (code === undefined) throw new Error(`CloseCode.${name} is neither the gateway's nor graphql-ws's`);
      return code;
    });
    const inCode = sorted([...Object.values(gateway), ...used].map(String));
    expect(inCode.length).toBeGreaterThanOrEqual(8);
    const documented = tableRows('docs/reference/close-codes.md').flatMap(([first]) => backticked(first ?? ''));
    expect(sorted(documented)).toEqual(inCode);
  });
});

describe('docs/reference/error-codes.md', () => {
  const page = readFileSync('docs/reference/error-codes.md', 'utf8');
  const onPage = new Set(backticked(page));

  /**
   * Every `extensions.code` the gateway answers with: its table, Apollo's, and the literals routes
   * and pages use (not the platform's webhook codes, which the kept data's changes also call `code`).
   */
  function codesInCode(): string[] {
    const webhookCodes = new Set<string>(Object.values(WEBHOOK_EVENTS).flatMap((event) => [...event.codes]));
    return sorted([
      ...Object.values(ErrorCode),
      ...APOLLO_REQUEST_CODES,
      ...matchesIn(/\bcode: '([A-Z][A-Z_]+)'/g),
      ...matchesIn(/\bsendError\(\s*\w+,\s*\d+,\s*'([A-Z_]+)'/g),
      ...matchesIn(/\bfail\(\s*\w+,\s*[^,]+,\s*'([A-Z_]+)'/g),
      ...matchesIn(/\bnew AppSignInError\(\s*'([A-Z_]+)'/g),
      ...matchesIn(/\brefused: '([A-Z_]+)'/g),
      ...stateRefusals().map((reason) => `OAUTH_STATE_${reason.toUpperCase()}`),
    ]).filter((code) => !webhookCodes.has(code));
  }

  /** Why an OAuth `state` is refused (`{ ok: false; reason: 'missing' | … }`): each is a page's `OAUTH_STATE_*` code. */
  function stateRefusals(): string[] {
    const union = matchesIn(/ok: false; reason: ((?:'[a-z]+'(?: \| )?)+)/g);
    expect(union.length).toBeGreaterThan(0);
    return union.flatMap((text) => [...text.matchAll(/'([a-z]+)'/g)].map((match) => match[1]!));
  }

  /** Every `extensions.reason` of an error (an event's own `reason` field is not one: src/graphql/subscriptions/). */
  function reasonsInCode(): string[] {
    const errorSources = SOURCES.filter(({ file }) => !file.includes(join('graphql', 'subscriptions')));
    return sorted([
      ...matchesIn(/\breason: '([A-Z][A-Z_]+)'/g, errorSources),
      ...matchesIn(/\brefuse\(\s*\d+,\s*'[A-Z_]+',\s*'([A-Z_]+)'/g),
      ...unionMembers('AccessTokenRefusal').map((refusal) => `TOKEN_${refusal.toUpperCase()}`),
      ...unionMembers('StartRefusal'),
    ]);
  }

  it('names every code the gateway answers with, on GraphQL, its other routes and its pages', () => {
    const codes = codesInCode();
    expect(codes.length).toBeGreaterThanOrEqual(40);
    expect(codes.filter((code) => !onPage.has(code))).toEqual([]);
  });

  it('names every reason, every TOKEN_* refusal of an access token included', () => {
    const reasons = reasonsInCode();
    expect(reasons).toEqual(expect.arrayContaining(['TOKEN_EXPIRED', 'TOKEN_AUDIENCE', 'AMBIGUOUS_CREDENTIALS']));
    expect(reasons.filter((reason) => !onPage.has(reason))).toEqual([]);
  });

  it('lists in its tables no code or reason the gateway cannot answer with', () => {
    const known = new Set([...codesInCode(), ...reasonsInCode()]);
    const listed = tableRows('docs/reference/error-codes.md').flatMap(([first]) => backticked(first ?? ''));
    expect(listed.filter((name) => !known.has(name))).toEqual([]);
  });
});

describe('docs/reference/routes.md', () => {
  /** `METHOD /path` of every route registered on a router in src/ (`:param` as `*`), path constants resolved. */
  function routesInCode(): string[] {
    const constants = new Map(
      SOURCES.flatMap(({ text }) =>
        [...text.matchAll(/\bconst ([A-Z_]+) = '(\/[^']*)'/g)].map((m) => [m[1]!, m[2]!] as const),
      ),
    );
    return SOURCES.flatMap(({ text }) =>
      [...text.matchAll(/router\.on\('([A-Z]+)', (?:'([^']+)'|([A-Z_]+))/g)].map((m) => {
        const path = m[2] ?? constants.get(m[3]!);
        if (!path) throw new Error(`no path for ${m[3]}`);
        return `${m[1]} ${path.replaceAll(/:\w+/g, '*')}`;
      }),
    );
  }

  /** The routes its tables list: `GET`/`POST /path`, `{param}` as `*`. */
  function documentedRoutes(): Set<string> {
    return new Set(
      tableRows('docs/reference/routes.md').flatMap(([first]) => {
        const path = /[A-Z]+ (\/[^`? ]*)/.exec(first ?? '')?.[1]?.replaceAll(/\{\w+\}/g, '*');
        const methods = [...(first ?? '').matchAll(/\b(GET|POST|PUT|DELETE)\b/g)].map((m) => m[1]!);
        return path ? methods.map((method) => `${method} ${path}`) : [];
      }),
    );
  }

  it('lists every route the gateway registers', () => {
    const routes = routesInCode();
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const documented = documentedRoutes();
    expect(routes.filter((route) => !documented.has(route))).toEqual([]);
  });

  it('says that /graphql takes an access token as well as the session cookie', () => {
    const graphql = tableRows('docs/reference/routes.md').find(([first]) => first === '`GET`/`POST /graphql`');
    expect(graphql?.[1]).toMatch(/session cookie/);
    expect(graphql?.[1]).toMatch(/Authorization: Bearer/);
  });
});

describe("a native app's way to the bank, in the guides", () => {
  it('the native guide covers connecting the bank from the phone, and links the page with the whole path', () => {
    const guide = readFileSync('docs/guides/native-apps.md', 'utf8');
    for (const needed of ['startBankConnection', 'APP_RETURN_URIS', 'RETURN_URI_NOT_ALLOWED'])
      expect(guide, needed).toContain(needed);
    expect(guide).toContain('(subscriptions-over-http-and-phones.md#the-bank-connection-from-a-phone)');
  });

  it('the production checklist names what a native app needs set on the gateway', () => {
    const checklist = readFileSync('docs/operations/production-checklist.md', 'utf8');
    for (const setting of ['NATIVE_CLIENT_IDS', 'APP_RETURN_URIS', 'ACCESS_TOKEN_AUDIENCE'])
      expect(checklist, setting).toContain(`\`${setting}\``);
  });
});
