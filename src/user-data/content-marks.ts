import { randomToken, sha256Hex } from '@open-finance-gateway/common/ids';
import { digest } from './user-data-store.js';

/**
 * What subscribers were last given of one object (an account, a transaction), as digests: the
 * object's key and its content's. An event whose objects all have the content subscribers last
 * received is not published again, whatever its webhook's bytes: so a retry of a change is
 * published once, and a second change with the same body (the platform's ACCOUNT UPDATE carries
 * no new state) is published because its content differs.
 */
export interface ContentMark {
  key: string;
  digest: string;
}

/**
 * The content of an object that is no longer there (deleted, or not found when re-read); its mark's
 * digest is `gone`, which the event log does not keep (its GONE_DIGEST).
 */
export const GONE = Symbol('gone');

export function markOf(kind: 'account' | 'transaction', id: string, content: unknown): ContentMark {
  return {
    key: digest(`${kind}:${id}`),
    digest: content === GONE || content === undefined ? 'gone' : sha256Hex(JSON.stringify(content)).slice(0, 32),
  };
}

/**
 * An object whose content could not be read (the platform failed): the event is published, and
 * what subscribers were given is forgotten, so the next change is published whatever its content.
 */
export function unknownMark(kind: 'account' | 'transaction', id: string): ContentMark {
  return { key: digest(`${kind}:${id}`), digest: `unknown:${randomToken(8)}` };
}
