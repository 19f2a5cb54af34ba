import { describe, expect, it } from 'vitest';
import type { Session } from '../../../src/auth/session-manager.js';
import {
  createRequestContextFactory,
  type RequestContextDependencies,
} from '../../../src/operation-core/context/request-context.js';

const now = Date.now();
const sessionOf = (userId: string): Session => ({
  sessionKey: `key-${userId}`,
  userId,
  platformToken: `token-${userId}`,
  authTime: now,
  amr: ['otp'],
  createdAt: now,
  expiresAt: now + 3_600_000,
  lastSeenAt: now,
});

// Only what building a context and its lazy parts touches; nothing here calls upstream.
const deps = {
  sessions: { deadlineOf: () => now + 60_000, wasEnded: () => false },
  mfa: { policy: 'required', acceptedAmr: ['otp'], maxAgeMs: 600_000 },
  clock: () => now,
  publicUrl: () => 'http://localhost:4000',
  loaders: {
    enrichment: { search: () => Promise.resolve([]) },
    enrichmentCache: undefined,
    enrichmentMaxBatch: 100,
    enrichmentMaxLookupsPerRequest: 1_000,
  },
  core: {},
  userCalls: { run: <T>(_: string, call: () => Promise<T>) => call() },
  idempotencyKeys: { store: {}, windowMs: 60_000 },
} as unknown as RequestContextDependencies;

/**
 * Accessors defined on an object itself (not inherited from a class): V8 keeps each in the old
 * generation, and whatever its getter reaches then survives every young collection.
 */
function ownAccessors(value: object): string[] {
  return Object.entries(Object.getOwnPropertyDescriptors(value))
    .filter(([, descriptor]) => descriptor.get !== undefined || descriptor.set !== undefined)
    .map(([name]) => name);
}

describe('request contexts', () => {
  it('share one prototype, so V8 reuses their hidden classes instead of making new ones per request', () => {
    const createContext = createRequestContextFactory(deps);
    const first = createContext(sessionOf('a'));
    const second = createContext(sessionOf('b'));
    expect(Object.getPrototypeOf(first)).toBe(Object.getPrototypeOf(second));
  });

  it('build their lazy parts once, shared with the clone Apollo makes, and not when cloned', () => {
    const context = createRequestContextFactory(deps)(sessionOf('a'));
    // What Apollo Server does with every request's context before executing.
    const clone = Object.assign<object, typeof context>(
      Object.create(Object.getPrototypeOf(context) as object) as object,
      context,
    );
    expect(ownAccessors(context)).toEqual([]);
    expect(clone.loaders).toBe(context.loaders);
    expect(clone.loaders.enrichment).toBe(context.loaders.enrichment);
    expect(clone.userClient).toBe(context.userClient);
  });

  it('define no accessors on the per-request objects they hand out', () => {
    const context = createRequestContextFactory(deps)(sessionOf('a'));
    const perRequest = { context, session: context.session, links: context.links, loaders: context.loaders };
    expect(
      Object.entries(perRequest).flatMap(([name, value]) => ownAccessors(value).map((key) => `${name}.${key}`)),
    ).toEqual([]);
    expect(context.session.ended).toBe(false);
    expect(context.links.reconnectUrl).toBe('http://localhost:4000/auth/consumer-info?returnTo=%2Fgraphql');
  });
});
