import { randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { Clock } from '@open-finance-gateway/common/clock';
import { readRawBody } from '@open-finance-gateway/common/http/read-body';
import { redirect, sendHtml } from '@open-finance-gateway/common/http/respond';
import { AttemptLimiter } from './attempt-limiter.js';
import { loginPage, messagePage, secondFactorPage, type SecondFactorHint } from './identity-pages.js';
import { secretMatches, type IdentityUser, type IdentityUsers } from './identity-users.js';
import type { Outbox } from './outbox.js';
import { STEP_SECONDS, totp, verifyTotp } from './totp.js';

/** Authentication method references (RFC 8176) for each way of signing in. */
const AMR: Record<IdentityUser['method'], string[]> = {
  'password+totp': ['pwd', 'otp', 'mfa'],
  'password+sms': ['pwd', 'sms', 'mfa'],
  'pin+sms': ['pin', 'sms', 'mfa'],
  password: ['pwd'],
};
const SMS_CODE_TTL_MS = 5 * 60_000;
const SMS_CODE_ATTEMPTS = 5;

/** A first factor passed within one interaction, waiting for the second. */
interface PendingSecondFactor {
  user: IdentityUser;
  factor: 'otp' | 'sms';
  smsCode?: string;
  smsExpiresAt?: number;
  attemptsLeft: number;
}

export async function formOf(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams((await readRawBody(req, 64 * 1024)).toString('utf8'));
}

/**
 * The provider's sign-in pages for one interaction: the first factor (password or PIN, with
 * attempt limits and lock-outs), then the second (an authenticator code, or an SMS code "sent" to
 * the outbox), and the login handed back to oidc-provider with its `amr`.
 */
export class SignInInteraction {
  private readonly pending = new Map<string, PendingSecondFactor>();
  private readonly pinLimiter: AttemptLimiter;
  private readonly passwordLimiter: AttemptLimiter;

  constructor(
    private readonly users: IdentityUsers,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    /** What the user signs in to: the login page says so. */
    private readonly appName: string,
  ) {
    this.pinLimiter = new AttemptLimiter(clock);
    this.passwordLimiter = new AttemptLimiter(clock, { perMinute: 10, lockAfter: 20, lockMs: 15 * 60_000 });
  }

  /** GET of the interaction: the second-factor page when one is pending, else the sign-in page. */
  show(res: ServerResponse, uid: string, atVerify: boolean): void {
    const entry = this.pending.get(uid);
    if (atVerify && entry) return sendHtml(res, 200, secondFactorPage(uid, entry.factor, this.hintFor(entry)));
    sendHtml(res, 200, loginPage(uid, this.appName, this.demoRows()));
  }

  async login(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const form = await formOf(req);
    const user = this.users.byEmail(form.get('email') ?? '');
    const address = req.socket.remoteAddress ?? 'unknown';
    const limiter = user?.method === 'pin+sms' ? this.pinLimiter : this.passwordLimiter;
    const admitted = limiter.admit(user?.sub ?? `unknown:${form.get('email')}`, address);
    if (!admitted.ok) {
      const wait = Math.ceil(admitted.retryAfterMs / 1000);
      const message =
        admitted.reason === 'locked'
          ? `Too many wrong attempts: this account is locked for ${Math.ceil(wait / 60)} minutes.`
          : `Too many attempts: try again in ${wait} seconds.`;
      return sendHtml(res, 429, loginPage(uid, this.appName, this.demoRows(), message), {
        'retry-after': String(wait),
      });
    }
    if (!user || !secretMatches(user, form.get('secret') ?? '')) {
      if (user) limiter.failed(user.sub);
      return sendHtml(res, 401, loginPage(uid, this.appName, this.demoRows(), 'Wrong e-mail, password or PIN.'));
    }
    limiter.succeeded(user.sub, address);
    if (user.method === 'password') return this.finish(provider, req, res, user);
    const entry: PendingSecondFactor = {
      user,
      factor: user.method === 'password+totp' ? 'otp' : 'sms',
      attemptsLeft: SMS_CODE_ATTEMPTS,
    };
    if (entry.factor === 'sms') this.sendSmsCode(entry);
    this.pending.set(uid, entry);
    redirect(res, `/interaction/${uid}/verify`, {}, 303);
  }

  async verify(provider: Provider, req: IncomingMessage, res: ServerResponse, uid: string): Promise<void> {
    const entry = this.pending.get(uid);
    if (!entry) return redirect(res, `/interaction/${uid}`, {}, 303);
    const code = ((await formOf(req)).get('code') ?? '').trim();
    const now = this.clock();
    const valid =
      entry.factor === 'otp'
        ? verifyTotp(entry.user.totpSecret!, code, now)
        : entry.smsCode === code && (entry.smsExpiresAt ?? 0) > now;
    if (valid) {
      this.pending.delete(uid);
      return this.finish(provider, req, res, entry.user);
    }
    entry.attemptsLeft -= 1;
    if (entry.attemptsLeft > 0)
      return sendHtml(res, 401, secondFactorPage(uid, entry.factor, this.hintFor(entry), 'That code is not right.'));
    this.pending.delete(uid);
    sendHtml(res, 401, messagePage('Sign-in stopped', 'Too many wrong codes. Start signing in again.', 'error'));
  }

  /** The demo users with their authenticator code of the moment (the sign-in page lists them). */
  private demoRows() {
    return this.users.demoUsers().map((user) => ({
      user,
      totp: user.totpSecret ? totp(user.totpSecret, this.clock()) : undefined,
    }));
  }

  private async finish(provider: Provider, req: IncomingMessage, res: ServerResponse, user: IdentityUser) {
    const login = { accountId: user.sub, amr: AMR[user.method], remember: false, ts: Math.floor(this.clock() / 1000) };
    await provider.interactionFinished(req, res, { login }, { mergeWithLastSubmission: false });
  }

  private sendSmsCode(entry: PendingSecondFactor): void {
    entry.smsCode = String(randomInt(0, 1_000_000)).padStart(6, '0');
    entry.smsExpiresAt = this.clock() + SMS_CODE_TTL_MS;
    this.outbox.send({
      channel: 'sms',
      to: entry.user.phone!,
      text: `Your sandbox sign-in code is ${entry.smsCode}. It expires in 5 minutes.`,
      code: entry.smsCode,
      at: new Date(this.clock()).toISOString(),
    });
  }

  /**
   * What the second-factor page says: where the code is. A demo user's authenticator is the sandbox
   * itself, so the page shows the code of the moment and how long it has left.
   */
  private hintFor(entry: PendingSecondFactor): SecondFactorHint {
    if (entry.factor === 'sms')
      return {
        text: `We sent a code to ${entry.user.phone!.replace(/\d(?=[\d ]{4})/g, '•')} (see the sandbox outbox).`,
      };
    const text = 'Enter the code your authenticator app shows.';
    if (entry.user.demoSecret === undefined) return { text };
    const now = this.clock();
    const secondsLeft = STEP_SECONDS - (Math.floor(now / 1000) % STEP_SECONDS);
    return { text, demoCode: { code: totp(entry.user.totpSecret!, now), secondsLeft } };
  }
}
