import { escapeHtml, htmlPage } from '@open-finance-gateway/common/http/respond';
import type { IdentityUser } from './identity-users.js';
import type { OutboxMessage } from './outbox.js';

const STYLE = `body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1d2433}
label{display:block;margin:.6rem 0 .2rem}input{font:inherit;padding:.5rem;width:100%;box-sizing:border-box}
button{font:inherit;margin-top:.8rem;padding:.6rem 1.2rem;border-radius:.4rem;border:none;background:#0b5fff;color:#fff;cursor:pointer}
.error{color:#b3261e;font-weight:600}table{border-collapse:collapse;font-size:.85rem;margin-top:.5rem;width:100%}td,th{padding:.2rem .5rem;border-bottom:1px solid #dde;text-align:left;overflow-wrap:break-word}
.whole{white-space:nowrap}
.note{background:#f4f6fa;padding:.6rem .8rem;border-radius:.4rem;font-size:.9rem;overflow-x:auto}`;

function page(title: string, body: string): string {
  return htmlPage({ title, style: STYLE, body });
}

const METHOD_LABEL: Record<IdentityUser['method'], string> = {
  'password+totp': 'password, then authenticator code',
  'password+sms': 'password, then SMS code',
  'pin+sms': 'PIN, then SMS code',
  password: 'password only (single factor: read-only apps)',
};

/** The first step: e-mail and password (or PIN). Lists the demo users, with their current authenticator codes. */
export function loginPage(
  uid: string,
  appName: string,
  demo: Array<{ user: IdentityUser; totp?: string }>,
  error?: string,
): string {
  const rows = demo
    .map(
      ({ user, totp }) =>
        `<tr><td class="whole">${escapeHtml(user.email)}</td><td class="whole"><code>${escapeHtml(user.demoSecret ?? '')}</code></td><td>${escapeHtml(
          METHOD_LABEL[user.method],
        )}${totp ? ` · code now: <code data-totp="${escapeHtml(user.email)}">${totp}</code>` : ''}</td></tr>`,
    )
    .join('');
  return page(
    `Sandbox sign-in: ${escapeHtml(appName)}`,
    `<h1>Sign in to <span data-app-name>${escapeHtml(appName)}</span></h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="username" required>
<label for="secret">Password or PIN</label><input id="secret" name="secret" type="password" autocomplete="current-password" required>
<button type="submit">Continue</button></form>
<p><a href="/signup">Create an account</a> · <a href="/outbox">SMS and e-mail outbox</a></p>
<div class="note"><strong>Sandbox identity provider.</strong> Demo users (codes by SMS appear in the <a href="/outbox">outbox</a>):
<table><tr><th>E-mail</th><th>Password / PIN</th><th>Second factor</th></tr>${rows}</table></div>`,
  );
}

/** Where the second factor's code is; for a demo user's authenticator, the code itself and its seconds left. */
export interface SecondFactorHint {
  text: string;
  demoCode?: { code: string; secondsLeft: number };
}

export function secondFactorPage(uid: string, factor: 'otp' | 'sms', hint: SecondFactorHint, error?: string): string {
  const demo = hint.demoCode
    ? `<p class="note">Sandbox authenticator: the code now is <strong><code data-totp-now>${escapeHtml(hint.demoCode.code)}</code></strong>,
for <span data-seconds-left>${hint.demoCode.secondsLeft}</span> more seconds (and accepted for 30 seconds after).
<a href="/interaction/${escapeHtml(uid)}/verify">Show the next code</a></p>`
    : '';
  return page(
    'Sandbox sign-in: second step',
    `<h1>${factor === 'otp' ? 'Authenticator code' : 'SMS code'}</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<p>${escapeHtml(hint.text)}</p>${demo}
<form method="post" action="/interaction/${escapeHtml(uid)}/verify">
<label for="code">6-digit code</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="\\d{6}" required>
<button type="submit">Sign in</button></form>`,
  );
}

/**
 * A native app's sign-in asks once more (RFC 8252 §8.6: another app could claim the same custom
 * scheme or loopback port): the user sees which app gets access, on which return address.
 */
export function consentPage(uid: string, app: { name: string; clientId: string; redirectUri: string }): string {
  return page(
    `Sandbox sign-in: allow ${escapeHtml(app.name)}`,
    `<h1>Allow ${escapeHtml(app.name)} on this device?</h1>
<p>The app <strong>${escapeHtml(app.name)}</strong> (client <code>${escapeHtml(app.clientId)}</code>) asks to use your account. It gets an access token for the
gateway, returned to <code>${escapeHtml(app.redirectUri)}</code>.</p>
<form method="post" action="/interaction/${escapeHtml(uid)}/consent">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" style="background:#5f6470">Cancel</button></form>`,
  );
}

export function signupPage(error?: string, done?: string): string {
  return page(
    'Sandbox: create an account',
    `<h1>Create an account</h1>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}${done ? `<p role="status">${escapeHtml(done)}</p>` : ''}
<form method="post" action="/signup">
<label for="name">Name</label><input id="name" name="name" autocomplete="name">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required>
<label for="password">Password (12+ characters, three of: lower case, upper case, digits, symbols)</label><input id="password" name="password" type="password" autocomplete="new-password" required>
<label for="phone">Mobile number (codes go to the sandbox outbox)</label><input id="phone" name="phone" autocomplete="tel" required>
<button type="submit">Create account</button></form>`,
  );
}

export function outboxPage(messages: readonly OutboxMessage[]): string {
  const rows = messages
    .map(
      (message) =>
        `<tr><td>${escapeHtml(message.at.slice(11, 19))}</td><td>${escapeHtml(message.channel)}</td><td>${escapeHtml(message.to)}</td><td>${escapeHtml(message.text)}</td></tr>`,
    )
    .join('');
  return page(
    'Sandbox outbox',
    `<h1>SMS and e-mail outbox</h1><p>What the sandbox identity provider "sent", newest first.</p>
<table><tr><th>Time</th><th>Channel</th><th>To</th><th>Message</th></tr>${rows}</table>`,
  );
}

export function messagePage(title: string, text: string, status = ''): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p class="${status}" role="alert">${escapeHtml(text)}</p>`);
}
