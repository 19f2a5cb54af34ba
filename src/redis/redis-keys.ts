import { randomToken, sha256Hex } from '@open-finance-gateway/common/ids';

/**
 * The key scheme every Redis store shares. Every key starts with REDIS_KEY_PREFIX; a user's keys
 * (sessions, bank connection, routing handle, event log, delivery marks) also carry the user's
 * hash tag, `{u:<tag>}`, so a Redis Cluster keeps them in one slot and one script may touch
 * several. Each store adds its own suffix (`:sessions`, `:connection`, `:events`…) beside its code.
 */

/**
 * The hash tag of a user's keys: a digest of the user id, so a Redis Cluster keeps a user's keys
 * in one slot and the session key (which starts with it) leads to them without a lookup.
 */
export function userTag(userId: string): string {
  return sha256Hex(`user:${userId}`).slice(0, 16);
}

/**
 * A new session's cookie secret: the user's tag, then a random part. Only the browser holds it;
 * its session key (what the session store keys on) is derived from it (sessionKeyOfSecret), and
 * starts with the same tag, so the key leads to the user's keys.
 */
export function newSessionSecret(userId: string): string {
  return `${userTag(userId)}.${randomToken()}`;
}

/** The session key of a cookie secret (`<tag>.<sha256 of the secret>`), or undefined when it is not one. */
export function sessionKeyOfSecret(secret: string): string | undefined {
  const tag = secret.split('.')[0];
  if (!tag || !/^[0-9a-f]{16}$/.test(tag)) return undefined;
  return `${tag}.${sha256Hex(secret)}`;
}

/**
 * A device's session key: the user's tag, then a digest of what names the device's token family
 * (and the instant its access last ended, so an ended device's key is never written again).
 */
export function deviceSessionKey(userId: string, family: string): string {
  return `${userTag(userId)}.${sha256Hex(`device|${userId}|${family}`)}`;
}

/** Where a session lives on Redis: under its user's tag (the one its key starts with), or undefined for a key that is not a session's. */
export function sessionRedisKey(keyPrefix: string, sessionKey: string): string | undefined {
  const match = /^([0-9a-f]{16})\.([0-9a-f]{64})$/.exec(sessionKey);
  return match ? `${taggedKeys(keyPrefix, match[1]!)}:s:${match[2]}` : undefined;
}

/** What every key of the user with this tag starts with: `<prefix>{u:<tag>}`. */
export function taggedKeys(keyPrefix: string, tag: string): string {
  return `${keyPrefix}{u:${tag}}`;
}

/** What every key of this user starts with: `<prefix>{u:<tag>}`. */
export function userKeys(keyPrefix: string, userId: string): string {
  return taggedKeys(keyPrefix, userTag(userId));
}

/** A user's event log on Redis (a Redis Stream); the user-data store reads it too, in the same slot. */
export function userEventsKey(keyPrefix: string, userId: string): string {
  return `${userKeys(keyPrefix, userId)}:events`;
}

/**
 * The field every event this version appends to a user's event log carries (its value: `1`): an
 * event without it was appended by an instance of an earlier version, which may not have kept
 * the user-data store current (see redis-user-data-scripts.ts).
 */
export const KEPT_DATA_MARK = 'k';

/**
 * The channel every instance's listener follows, of this version and of every earlier one that
 * shares the Redis (session endings): its subscriber count is the number of live instances.
 */
export const sessionEndedChannel = (keyPrefix: string) => `${keyPrefix}session-ended`;

/** The dead-letter list's key; its delivery marks share its hash slot (see deliveryMarkRedisKey). */
export const deadLettersKey = (keyPrefix: string) => `${keyPrefix}dead-letters`;

/**
 * Where a delivery's claim and "done" mark live: in the hash slot of what the delivery stores, so
 * one script can store it and mark it done. A user's under the user's tag, next to their event
 * log. The dead letters' under a tag that is the whole list key (`{<prefix>dead-letters}`),
 * which Redis Cluster hashes exactly like the untagged list key itself.
 */
export function deliveryMarkRedisKey(
  keyPrefix: string,
  scope: { userId: string } | 'dead-letters',
  bodyHash: string,
): string {
  if (scope === 'dead-letters')
    return `${deadLettersKey(keyPrefix)}:delivery:{${deadLettersKey(keyPrefix)}}:${bodyHash}`;
  return `${userKeys(keyPrefix, scope.userId)}:delivery:${bodyHash}`;
}

/** The value of a done delivery mark; an in-progress claim holds `p:<token>`. */
export const DONE_MARK = 'done';
