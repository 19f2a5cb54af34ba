import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseCookies, serialize as serializeCookie } from 'cookie';
import { LRUCache } from 'lru-cache';
import type { Clock } from '@open-finance-gateway/common/clock';
import { newSessionSecret, sessionKeyOfSecret } from '../redis/redis-keys.js';
import { cookieNamesToSet, cookieValueOf, cookieValuesOf } from './cookie-names.js';
import type { SessionEndingsBus } from './session-endings.js';
import type { SessionRecord, SessionStore } from './session-store.js';
import { signValue, verifySignedValue } from './signed-cookie.js';

/** What reading a session needs of a request: its headers (an HTTP request's, or a socket's upgrade's). */
type WithHeaders = Pick<IncomingMessage, 'headers'>;

export interface Session extends SessionRecord {
  /** The session key: its name in the session store (a digest; never the cookie's secret itself). */
  sessionKey: string;
}

export interface SessionManagerOptions {
  store: SessionStore;
  secret: string;
  clock: Clock;
  maxAgeMs: number;
  /** A session unused this long ends (the store enforces it; sockets schedule by it). */
  idleTimeoutMs: number;
  /**
   * The gateway's public URL, known once it listens: https means Secure `__Host-` cookies; on
   * plain http the cookie's name carries the port (`cookie-names.ts`).
   */
  publicUrl: () => string;
  /** Carries endings to the other instances (and theirs to this one). @default local only */
  endings?: SessionEndingsBus;
}

/**
 * A record and its key. The key comes first: in V8, `{ ...record, sessionKey }` at a site that has seen
 * many shapes gives every object a hidden class of its own (about 300 bytes), and each open socket
 * holds its session.
 */
const sessionOf = (record: SessionRecord, sessionKey: string): Session => ({ sessionKey, ...record });

export type SessionEndedListener = (userId: string, sessionKeys: string[]) => void;

/**
 * Binds browsers to server-side sessions through an HttpOnly, SameSite=Lax cookie. Lax, not
 * Strict: the first request after the OAuth redirect is a cross-site navigation and must carry it.
 */
export class SessionManager {
  private readonly listeners = new Set<SessionEndedListener>();
  /** Sessions ended lately (here or, through the bus, elsewhere): checked per event without I/O. */
  private readonly recentlyEnded = new LRUCache<string, true>({ max: 10_000, ttl: 15 * 60_000 });
  /**
   * Cookie values already verified, and the store key each leads to. Verifying is an HMAC and a
   * SHA-256, and under OpenSSL 3 each costs a context set-up: 2-4% of the CPU of an `enrich` of one
   * lookup on the benchmark machine (A/B, rounds in random order). Only values that passed are kept,
   * keyed by the whole signed value, so a forged cookie is never looked up here and cannot fill
   * it. Whether the session still lives is the store's answer, asked on every request as before.
   */
  private readonly verifiedKeys = new LRUCache<string, string>({ max: 10_000 });

  constructor(private readonly options: SessionManagerOptions) {
    options.endings?.onRemoteEnded((userId, keys) => this.notify(userId, keys));
  }

  /** Whether the request's cookies hold a session cookie (under either name while versions mix). */
  hasCookie(cookies: Record<string, string | undefined>): boolean {
    return cookieValueOf(cookies, this.options.publicUrl(), 'session') !== undefined;
  }

  private get secure(): boolean {
    return this.options.publicUrl().startsWith('https:');
  }

  /**
   * Starts a new session (a fresh id each sign-in, against fixation) and sets its cookie: the app
   * user, how they authenticated, and their bank connection's token if they have one.
   */
  async start(
    res: ServerResponse,
    identity: { userId: string; authTime: number; amr: string[] },
    platformToken: string | undefined,
  ): Promise<void> {
    const { userId } = identity;
    // A fresh secret each sign-in, against fixation; the cookie carries it, the store its key.
    const secret = newSessionSecret(userId);
    const now = this.options.clock();
    await this.options.store.set(sessionKeyOfSecret(secret)!, {
      userId,
      ...(platformToken === undefined ? {} : { platformToken }),
      authTime: identity.authTime,
      amr: identity.amr,
      createdAt: now,
      expiresAt: now + this.options.maxAgeMs,
      lastSeenAt: now,
    });
    this.setCookie(res, signValue(secret, this.options.secret), Math.floor(this.options.maxAgeMs / 1000));
  }

  /**
   * A step-up re-authenticated the session's own user: records the new `auth_time` and `amr` on
   * the same session (its sockets carry on). False when there is no session or it is someone else's.
   */
  async renewAuthentication(
    req: IncomingMessage,
    identity: { userId: string; authTime: number; amr: string[] },
  ): Promise<boolean> {
    const found = await this.found(req);
    if (!found || found.record.userId !== identity.userId) return false;
    await this.options.store.set(found.key, { ...found.record, authTime: identity.authTime, amr: identity.amr });
    return true;
  }

  /** The live session behind a request's cookie, if any; refreshes its idle timer. */
  async read(req: WithHeaders): Promise<Session | undefined> {
    const found = await this.found(req);
    if (!found) return undefined;
    const { key, record } = found;
    const now = this.options.clock();
    // Writing on every request would cost a store round trip each time; a minute's slack is fine.
    if (now - record.lastSeenAt > 60_000) {
      record.lastSeenAt = now;
      await this.options.store.set(key, record);
    }
    return sessionOf(record, key);
  }

  /** Ends the request's session (if any), clears its cookie and returns what it held. */
  async end(req: IncomingMessage, res: ServerResponse): Promise<SessionRecord | undefined> {
    const found = await this.found(req);
    if (found) {
      this.verifiedKeys.delete(found.signed);
      await this.options.store.delete(found.key);
      this.emitEnded(found.record.userId, [found.key]);
    }
    this.clearCookie(res);
    return found?.record;
  }

  /** The store found a session past its lifetime: its sockets close like any ended session's. */
  expired(sessionKey: string, record: SessionRecord): void {
    this.notify(record.userId, [sessionKey]);
  }

  /** Whether a session is still live (not ended, not past its absolute or idle lifetime). */
  async isLive(sessionKey: string): Promise<boolean> {
    return (await this.options.store.get(sessionKey)) !== undefined;
  }

  /** The live session under a store key, without touching its idle timer. */
  async lookup(sessionKey: string): Promise<Session | undefined> {
    const record = await this.options.store.get(sessionKey);
    return record ? sessionOf(record, sessionKey) : undefined;
  }

  /**
   * Counts as use of the session (a new subscription on a socket): refreshes its idle timer, and
   * returns the session as it is now (connected since the socket opened, stepped up), if live.
   */
  async touch(sessionKey: string): Promise<Session | undefined> {
    const record = await this.options.store.get(sessionKey);
    if (record && this.options.clock() - record.lastSeenAt > 60_000) {
      record.lastSeenAt = this.options.clock();
      await this.options.store.set(sessionKey, record);
    }
    return record ? sessionOf(record, sessionKey) : undefined;
  }

  /** When the session ends unless used again: the earlier of its absolute and idle deadlines. */
  deadlineOf(session: SessionRecord): number {
    return Math.min(session.expiresAt, session.lastSeenAt + this.options.idleTimeoutMs);
  }

  /** Tells the browser to drop its session cookie (the session itself is already gone). */
  clearCookie(res: ServerResponse): void {
    this.setCookie(res, '', 0);
  }

  /** The session cookie, under every name it goes by while versions mix (cookie-names.ts). */
  private setCookie(res: ServerResponse, value: string, maxAge: number): void {
    for (const name of cookieNamesToSet(this.options.publicUrl(), 'session'))
      appendSetCookie(
        res,
        serializeCookie(name, value, { httpOnly: true, sameSite: 'lax', secure: this.secure, path: '/', maxAge }),
      );
  }

  /** The distinct platform tokens held in a user's live sessions. */
  async tokensOfUser(userId: string): Promise<string[]> {
    const tokens = (await this.options.store.listByUser(userId)).map(({ record }) => record.platformToken);
    return [...new Set(tokens.filter((token): token is string => token !== undefined))];
  }

  /** The user connected (or reconnected) their bank: every live session of theirs now uses this token. */
  async attachToken(userId: string, platformToken: string): Promise<void> {
    for (const { sessionKey, record } of await this.options.store.listByUser(userId))
      if (record.platformToken !== platformToken)
        await this.options.store.set(sessionKey, { ...record, platformToken });
  }

  /** Ends the user's sessions that hold `token`; returns how many of the user's sessions remain. */
  async endSessionsWithToken(userId: string, token: string): Promise<number> {
    const sessions = await this.options.store.listByUser(userId);
    const ending = sessions.filter(({ record }) => record.platformToken === token).map(({ sessionKey }) => sessionKey);
    for (const key of ending) await this.options.store.delete(key);
    if (ending.length > 0) this.emitEnded(userId, ending);
    return sessions.length - ending.length;
  }

  /**
   * Ends every session of a user: revocation, a dead token, account deletion. Their access tokens
   * stop counting first, so no device can sign its session back in between.
   */
  async endAllForUser(userId: string): Promise<void> {
    await this.options.endings?.endAccessBefore(userId, this.options.clock());
    const keys = await this.options.store.deleteByUser(userId);
    this.emitEnded(userId, keys);
  }

  /** A device's first access token (or its first since its record lapsed): its session record. */
  async startDevice(key: string, record: SessionRecord): Promise<void> {
    await this.options.store.set(key, record);
    this.recentlyEnded.delete(key);
  }

  /** Every live session of a user, browsers' and devices' alike, with its store key. */
  async listOfUser(userId: string): Promise<Session[]> {
    return (await this.options.store.listByUser(userId)).map(({ sessionKey, record }) => ({
      ...record,
      sessionKey,
    }));
  }

  /** Ends one session of the user; a device's access tokens issued until now stop counting too. */
  async endOne(userId: string, session: Session): Promise<void> {
    if (session.client)
      await this.options.endings?.endAccessBefore(userId, this.options.clock(), session.client.device);
    await this.options.store.delete(session.sessionKey);
    this.emitEnded(userId, [session.sessionKey]);
  }

  /** Subscribers (open sockets, per-user caches) learn when sessions end. */
  onEnded(listener: SessionEndedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The live session a request's cookie names: under this version's cookie name, else under the
   * previous version's (a rolling deploy: the previous version may have ended the session both
   * names carried and started another under its own name).
   */
  private async found(req: WithHeaders): Promise<{ key: string; record: SessionRecord; signed: string } | undefined> {
    const header = req.headers.cookie;
    if (!header) return undefined;
    for (const signed of cookieValuesOf(parseCookies(header), this.options.publicUrl(), 'session')) {
      const key = this.keyOf(signed);
      const record = key ? await this.options.store.get(key) : undefined;
      if (key && record) return { key, record, signed };
    }
    return undefined;
  }

  private keyOf(signed: string): string | undefined {
    const known = this.verifiedKeys.get(signed);
    if (known !== undefined) return known;
    const secret = verifySignedValue(signed, this.options.secret);
    const key = secret ? sessionKeyOfSecret(secret) : undefined;
    if (!key) return undefined;
    this.verifiedKeys.set(signed, key);
    return key;
  }

  private emitEnded(userId: string, keys: string[]): void {
    this.notify(userId, keys);
    // Other instances close their sockets too; if the message is lost they notice at the next check.
    if (keys.length > 0) this.options.endings?.publish(userId, keys).catch(() => undefined);
  }

  /** Whether this session was ended lately, as far as this instance has heard. */
  wasEnded(sessionKey: string): boolean {
    return this.recentlyEnded.has(sessionKey);
  }

  private notify(userId: string, keys: string[]): void {
    for (const key of keys) this.recentlyEnded.set(key, true);
    for (const listener of this.listeners) listener(userId, keys);
  }
}

export function appendSetCookie(res: ServerResponse, cookie: string): void {
  const existing = res.getHeader('set-cookie');
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('set-cookie', [...list, cookie]);
}
