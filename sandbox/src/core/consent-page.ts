import { escapeHtml, htmlPage } from '@open-finance-gateway/common/http/respond';
import type { SandboxUser } from '../sandbox-state.js';

/** A demo bank customer on the consent page, with the demo app user (sign-in e-mail) it goes with. */
export interface ConsentChoice {
  user: SandboxUser;
  appUserEmail?: string;
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2433;line-height:1.45}
button{display:block;width:100%;padding:.8rem;margin:.5rem 0;font-size:1rem;border-radius:.5rem;border:1px solid #9aa5b8;background:#f4f7fb;cursor:pointer}
button[value=allow]{background:#0b5fff;color:#fff;border:none}small{display:block;opacity:.85}.note{background:#f4f6fa;padding:.6rem .8rem;border-radius:.4rem;font-size:.9rem}`;

/**
 * The sandbox's hosted connection flow. On the live platform the person signs in to the platform
 * here, so it knows whose accounts to share; the sandbox has no such sign-in. When the app names the
 * person (the platform's `email` parameter) and a demo customer has that e-mail, only that customer
 * is offered; otherwise every demo customer is, with the demo app user each goes with, and the page
 * says why there is a choice.
 */
export function consentPage(params: URLSearchParams, choices: ConsentChoice[], appName: string): string {
  const hidden = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state']
    .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? '')}">`)
    .join('');
  const hint = params.get('email')?.trim().toLowerCase();
  const named = choices.filter(({ user, appUserEmail }) => hint && (user.email === hint || appUserEmail === hint));
  const offered = named.length > 0 ? named : choices;
  const buttons = offered
    .map(
      ({ user, appUserEmail }) => `<form method="post" action="/oauth/authorize">${hidden}
        <input type="hidden" name="user" value="${escapeHtml(user._id)}">
        <button type="submit" name="decision" value="allow">Connect as ${escapeHtml(user.preferred_name)}<small>${
          appUserEmail ? `for the app user ${escapeHtml(appUserEmail)}` : escapeHtml(user.email)
        }</small></button>
      </form>`,
    )
    .join('');
  const why =
    named.length > 0
      ? ''
      : `<p class="note">On the live platform you would sign in here, and only your own accounts would be offered. The
sandbox has no such sign-in, so pick the demo bank customer to connect as: each goes with one demo app user (signed
in as <code>aroha@demo.example</code>, pick Aroha Ngata).</p>`;
  const app = escapeHtml(appName);
  return htmlPage({
    title: `Platform sandbox: connect your accounts to ${app}`,
    style: STYLE,
    body: `<h1>Connect your accounts to ${app}</h1>
<p>This is the <strong>platform sandbox</strong>: no real bank is involved. <strong data-app-name>${app}</strong> is asking
to see your accounts and transactions ${params.get('scope') === 'ONEOFF' ? 'once' : 'from now on, until you revoke its access'}.</p>
${why}${buttons}
<form method="post" action="/oauth/authorize">${hidden}<button type="submit" name="decision" value="deny">Cancel</button></form>`,
  });
}

export function errorPage(message: string): string {
  return htmlPage({
    title: 'Platform sandbox: error',
    style: 'body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto}',
    body: `<h1>This connection request cannot continue</h1><p>${escapeHtml(message)}</p>`,
  });
}
