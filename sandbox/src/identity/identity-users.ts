import { randomBytes, scryptSync, timingSafeEqual } from 'node:crypto';
import { sandboxId } from '../data/sandbox-ids.js';
import { passwordProblem, pinProblem } from './credential-rules.js';
import { base32Encode } from './totp.js';

/** How an app user proves who they are: a knowledge factor, then (except `password`) a second one. */
export type SignInMethod = 'password+totp' | 'password+sms' | 'pin+sms' | 'password';

export interface IdentityUser {
  sub: string;
  email: string;
  name: string;
  method: SignInMethod;
  /** scrypt hash of the password or PIN: `salt:hash`, both base64. */
  secretHash: string;
  /** Shown on the sandbox's pages, so a newcomer can sign in: never for users who signed up. */
  demoSecret?: string;
  totpSecret?: string;
  phone?: string;
}

/**
 * scrypt's cost here: 2^10, not Node's default 2^14. The sandbox's users are demo users whose
 * secrets its own pages print, kept in memory only; the hash is there so a sign-in is checked the
 * way a real provider checks it, not to resist an offline attack. At 2^14 a first sign-in cost two
 * scrypts of about 35 ms each, a third of the CPU of the test suite's workers (184 sign-ins).
 */
const SCRYPT = { N: 1024 };

function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  return `${salt.toString('base64')}:${scryptSync(secret, salt, 32, SCRYPT).toString('base64')}`;
}

/**
 * A user whose secret is hashed when first checked, not when the sandbox starts: the demo and load
 * users' secrets are known anyway, and hashing them up front made every start pay scrypt per user
 * whether anyone signed in or not. `shared` lets many users hash one secret once. A new
 * hash (a changed secret) becomes that user's own value.
 */
function hashedWhenChecked(
  user: Omit<IdentityUser, 'secretHash'>,
  secret: string,
  shared: { hash?: string } = {},
): IdentityUser {
  return Object.defineProperty(user, 'secretHash', {
    enumerable: true,
    configurable: true,
    get: () => (shared.hash ??= hashSecret(secret)),
    set: (hash: string) => {
      Object.defineProperty(user, 'secretHash', { value: hash, writable: true, enumerable: true, configurable: true });
    },
  }) as IdentityUser;
}

export function secretMatches(user: IdentityUser, secret: string): boolean {
  const [salt, hash] = user.secretHash.split(':') as [string, string];
  const expected = Buffer.from(hash, 'base64');
  const given = scryptSync(secret, Buffer.from(salt, 'base64'), expected.length, SCRYPT);
  return timingSafeEqual(expected, given);
}

/**
 * The sandbox provider's app users: one per way of signing in the rules allow, with credentials
 * derived from a seed so they are the same on every start, and whoever signs up.
 */
export class IdentityUsers {
  private readonly users = new Map<string, IdentityUser>();

  constructor(seed: string) {
    const demo = (email: string, name: string, method: SignInMethod, secret: string, phone?: string) => {
      const user = hashedWhenChecked(
        {
          sub: sandboxId('appuser', `${seed}:${email}`),
          email,
          name,
          method,
          demoSecret: secret,
          totpSecret:
            method === 'password+totp' ? base32Encode(Buffer.from(sandboxId('totp', seed).slice(-20))) : undefined,
          phone,
        },
        secret,
      );
      this.users.set(email, user);
    };
    demo('aroha@demo.example', 'Aroha Ngata', 'password+totp', 'Kiwi-Sandbox-2026!');
    demo('james@demo.example', 'James Wilson', 'password+sms', 'Tui-Sandbox-2026!', '+64 21 000 0001');
    demo('mere@demo.example', 'Mere Tane', 'pin+sms', '48213', '+64 21 000 0002');
    demo('reader@demo.example', 'Rua Reader', 'password', 'Kea-Sandbox-2026!');
  }

  byEmail(email: string): IdentityUser | undefined {
    return this.users.get(email.trim().toLowerCase());
  }

  bySub(sub: string): IdentityUser | undefined {
    for (const user of this.users.values()) if (user.sub === sub) return user;
    return undefined;
  }

  demoUsers(): IdentityUser[] {
    return [...this.users.values()].filter((user) => user.demoSecret !== undefined);
  }

  /**
   * Benchmarks: `load_<n>@load.example` for n < count, password + authenticator code (one
   * password and one authenticator secret for all, hashed once), not listed on the sign-in page.
   */
  addLoadUsers(count: number, password: string, totpSecret: string): void {
    const shared: { hash?: string } = {};
    for (let index = 0; index < count; index += 1) {
      const email = `load_${index}@load.example`;
      const user = { sub: sandboxId('appuser', `load:${index}`), email, name: `Load ${index}`, totpSecret };
      this.users.set(email, hashedWhenChecked({ ...user, method: 'password+totp' }, password, shared));
    }
  }

  /** Sign-up: password and SMS to a phone. Returns a problem to show, or the new user. */
  signUp(input: { email: string; name: string; password: string; phone: string }): IdentityUser | string {
    const email = input.email.trim().toLowerCase();
    if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) return 'E-mail address: not valid';
    if (this.users.has(email)) return 'E-mail address: already has an account';
    const problem = passwordProblem(input.password, email);
    if (problem) return `Password: ${problem}`;
    if (!/^\+?[\d ]{8,16}$/.test(input.phone)) return 'Mobile number: not valid';
    const user: IdentityUser = {
      sub: sandboxId('appuser', `signup:${email}:${randomBytes(6).toString('hex')}`),
      email,
      name: input.name.trim() || email,
      method: 'password+sms',
      secretHash: hashSecret(input.password),
      phone: input.phone,
    };
    this.users.set(email, user);
    return user;
  }

  /** Password or PIN change, under the same rules as sign-up. */
  changeSecret(user: IdentityUser, current: string, next: string): string | undefined {
    if (!secretMatches(user, current)) return 'The current password or PIN is wrong';
    const problem = user.method === 'pin+sms' ? pinProblem(next) : passwordProblem(next, user.email);
    if (problem) return `${user.method === 'pin+sms' ? 'PIN' : 'Password'}: ${problem}`;
    user.secretHash = hashSecret(next);
    user.demoSecret = undefined;
    return undefined;
  }
}
