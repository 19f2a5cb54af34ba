import { htmlPage } from '@open-finance-gateway/common/http/respond';

/**
 * What a browser opening `/graphql` gets when GraphiQL is off: where it is and what to do, instead
 * of the JSON refusal a GET without a query earns (a sign-in that returns to `/graphql` lands here).
 */
export function graphiqlOffPage(): string {
  return htmlPage({
    title: 'GraphQL endpoint',
    style: `body{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#1d2433;line-height:1.5}
code{background:#eef1f6;padding:.1rem .3rem}`,
    body: `<h1>GraphQL endpoint</h1>
<p>This address answers GraphQL from apps: a <code>POST</code> with <code>content-type: application/json</code>,
sent with the browser's credentials. If you have just signed in, you can close this page and go back to your app.</p>
<p>GraphiQL, the in-browser query editor, is off on this gateway. To use it while developing, start the gateway with
<code>GRAPHIQL_ENABLED=true</code> (and <code>GRAPHQL_INTROSPECTION=true</code> for the schema's documentation).</p>`,
  });
}
