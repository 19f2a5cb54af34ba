import { readFileSync } from 'node:fs';
import { escapeHtml, htmlPage } from '@open-finance-gateway/common/http/respond';

export interface ConsumerInfoSettings {
  appName: string;
  platformName: string;
  privacyNoticeUrl: string | undefined;
  /** An operator's own page body (CONSUMER_INFO_TEMPLATE), read once at start; undefined: the default text. */
  template: string | undefined;
  /** The app may make payments (a full app); a personal app only reads. */
  payments: boolean;
}

/** Reads CONSUMER_INFO_TEMPLATE at start, so a missing or empty file stops the gateway with one clear line. */
export function loadConsumerInfoTemplate(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new Error(`CONSUMER_INFO_TEMPLATE ${path} cannot be read: ${(error as Error).message}`);
  }
  if (text.trim() === '') throw new Error(`CONSUMER_INFO_TEMPLATE ${path} is empty`);
  return text;
}

/** The default text: value, scope, duration, payment authority, how to stop, and who the platform is. */
const DEFAULT_BODY = `<h1>Connect your bank to {{appName}}</h1>
<p>{{appName}} uses {{platformName}} to read your bank data, with your permission, so it can show your accounts,
balances and spending in one place and tell you when something changes.</p>
<h2>What {{appName}} will be able to see{{paymentsHeading}}</h2>
<ul><li>Your accounts and their balances, at the banks you choose on the next page</li>
<li>Your transactions, and your name as your bank holds it (to check it is you)</li>{{paymentsItem}}</ul>
<h2>For how long</h2>
<p>Until you stop it. This is enduring access: {{appName}} keeps it so your data stays up to date, without asking you
again each time.</p>
<h2>How to stop</h2>
<p>In {{appName}}: disconnect one account, or revoke all access (deleting your {{appName}} account does this too).
At {{platformName}}: remove {{appName}} from your connections. Either way the access ends at once, and {{appName}}
deletes the data it holds about you.</p>
<h2>About {{platformName}}</h2>
<p>{{PlatformName}} connects {{appName}} to your bank: it is an open finance platform. You sign in to your bank
through {{platformName}}, so {{appName}} never sees your bank password. {{appName}} is accredited by {{platformName}}
and follows its rules for keeping your data safe.</p>`;

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

/**
 * The consumer information page the accreditation rules ask for before the platform's connection
 * flow. The operator's template (trusted HTML) or the default text, then the privacy notice, the
 * way on and the way out. No asset from elsewhere; readable on a phone.
 */
/** `cancelHref`: where "Not now" goes (a native app's return URI, with the outcome `refused`). */
export function consumerInfoPage(settings: ConsumerInfoSettings, continueHref: string, cancelHref = '/'): string {
  const values = {
    appName: escapeHtml(settings.appName),
    platformName: escapeHtml(settings.platformName),
    // For a sentence that starts with it ("the platform sandbox" → "The platform sandbox").
    PlatformName: escapeHtml(settings.platformName.charAt(0).toUpperCase() + settings.platformName.slice(1)),
    privacyNoticeUrl: escapeHtml(settings.privacyNoticeUrl ?? ''),
    paymentsHeading: settings.payments ? ' and do' : '',
    paymentsItem: settings.payments
      ? `<li>Payments and transfers you start in ${escapeHtml(settings.appName)}: each one needs your confirmation, and nothing is paid without it</li>`
      : '',
  };
  const body = fill(settings.template ?? DEFAULT_BODY, values);
  const privacy = settings.privacyNoticeUrl
    ? `<p>How ${values.appName} handles your information: <a href="${values.privacyNoticeUrl}">privacy notice</a>.</p>`
    : '';
  return htmlPage({
    title: `Connect your bank: ${settings.appName}`,
    style: `body{font-family:system-ui,sans-serif;max-width:38rem;margin:2rem auto;padding:0 1rem;color:#1d2433;line-height:1.5}
h1{font-size:1.5rem}h2{font-size:1.1rem;margin-top:1.4rem}.brand{display:flex;align-items:center;gap:.6rem;font-weight:600}
.actions{margin:1.6rem 0;display:flex;gap:1rem;align-items:center;flex-wrap:wrap}
a.button{display:inline-block;padding:.75rem 1.3rem;background:#0b5fff;color:#fff;border-radius:.5rem;text-decoration:none}`,
    body: `<main>
<p class="brand"><svg width="32" height="32" viewBox="0 0 32 32" aria-hidden="true"><rect width="32" height="32" rx="8" fill="#0b2a5b"/><path d="M9 21l7-11 7 11z" fill="#fff"/></svg>${values.appName}</p>
${body}
${privacy}
<div class="actions"><a class="button" href="${escapeHtml(continueHref)}">Continue to ${values.platformName}</a>
<a href="${escapeHtml(cancelHref)}">Not now</a></div>
</main>`,
  });
}
