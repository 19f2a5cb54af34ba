import { escapeHtml, htmlPage } from '@open-finance-gateway/common/http/respond';

const STYLE = 'body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d2433}';

/** A plain page for sign-in outcomes; `code` is the stable machine-readable reason. */
export function authErrorPage(code: string, message: string): string {
  return htmlPage({
    title: 'Sign-in failed',
    style: `${STYLE}code{background:#eef1f6;padding:.1rem .3rem}`,
    body: `<h1>Sign-in failed</h1><p>${escapeHtml(message)}</p><p>Reason: <code data-error-code>${escapeHtml(code)}</code></p>
<p><a href="/auth/login">Start sign-in again</a></p>`,
  });
}

/** GraphiQL's signed-out page; with the embedded sandbox, it links to the sandbox console too. */
export function signInPage(sandboxConsoleUrl?: string): string {
  return htmlPage({
    title: 'Sign in: open finance gateway',
    style: `${STYLE}
a.button{display:inline-block;padding:.7rem 1.2rem;background:#0b5fff;color:#fff;border-radius:.5rem;text-decoration:none}`,
    body: `<h1>Open finance gateway</h1><p>GraphiQL runs queries as a signed-in user. Sign in to connect a
(sandbox) bank account; the gateway keeps your access token on the server.</p>
<p><a class="button" href="/auth/login?returnTo=%2Fgraphql">Sign in</a></p>${
      sandboxConsoleUrl
        ? `<p>Running on the embedded platform sandbox: its <a href="${escapeHtml(sandboxConsoleUrl)}">console</a> shows the demo world and webhook deliveries, and makes payments and other events happen.</p>`
        : ''
    }`,
  });
}
