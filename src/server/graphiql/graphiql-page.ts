/** GraphiQL for a signed-in user. Scripts and styles come from /graphiql/assets on this origin. */
export function graphiqlPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL: open finance gateway</title>
<link rel="stylesheet" href="/graphiql/assets/graphiql.css">
<style>html,body{height:100%;margin:0}body{display:flex;flex-direction:column}#bar{font:14px system-ui,sans-serif;padding:.4rem .8rem;background:#0b1a33;color:#fff;display:flex;justify-content:space-between;align-items:center}
#bar button{background:none;border:1px solid #fff;color:#fff;border-radius:.3rem;padding:.2rem .6rem;cursor:pointer}#graphiql{flex:1;min-height:0}</style>
</head><body>
<div id="bar"><span>Open finance gateway: signed in</span><button id="sign-out" type="button">Sign out</button></div>
<div id="graphiql">Loading GraphiQL…</div>
<script src="/graphiql/assets/react.js"></script>
<script src="/graphiql/assets/react-dom.js"></script>
<script src="/graphiql/assets/graphiql.js"></script>
<script src="/graphiql/assets/init.js"></script>
</body></html>`;
}

export const GRAPHIQL_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http:; font-src 'self' data:; connect-src 'self' ws: wss:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";
