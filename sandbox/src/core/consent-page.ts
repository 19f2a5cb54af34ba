import { escapeHtml, htmlPage } from '@open-finance-gateway/common/http/respond';
import type { SandboxUser } from '../sandbox-state.js';

/** The sandbox's hosted connection flow: pick a demo user and consent with one click. */
export function consentPage(params: URLSearchParams, users: SandboxUser[]): string {
  const hidden = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state']
    .map((name) => `<input type="hidden" name="${name}" value="${escapeHtml(params.get(name) ?? '')}">`)
    .join('');
  const choices = users
    .map(
      (user) => `<form method="post" action="/oauth/authorize">${hidden}
        <input type="hidden" name="user" value="${escapeHtml(user._id)}">
        <button type="submit" name="decision" value="allow">Connect as ${escapeHtml(user.preferred_name)} <small>${escapeHtml(user.email)}</small></button>
      </form>`,
    )
    .join('');
  return htmlPage({
    title: 'Platform sandbox: connect your accounts',
    style: `body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d2433}
button{display:block;width:100%;padding:.8rem;margin:.5rem 0;font-size:1rem;border-radius:.5rem;border:1px solid #9aa5b8;background:#f4f7fb;cursor:pointer}
button[value=allow]{background:#0b5fff;color:#fff;border:none}small{display:block;opacity:.8}`,
    body: `<h1>Connect your accounts</h1>
<p>This is the embedded <strong>platform sandbox</strong>. The app is asking for enduring access to a demo user's
accounts and transactions (scope <code>${escapeHtml(params.get('scope') ?? '')}</code>). No real bank is involved.</p>
${choices}
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
