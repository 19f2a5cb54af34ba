/**
 * Browser script that mounts GraphiQL. Served as a file (not inline) so the page's
 * Content-Security-Policy can forbid inline scripts. Requests go to the same origin, so the
 * session cookie travels with them and no token ever reaches the browser.
 */
export const GRAPHIQL_INIT_SCRIPT = `(function () {
  var defaultQuery = [
    '# Signed in through the gateway: your platform token stays on the server.',
    '# Every lookup below, across both fields, is sent in one batched enrichment search.',
    'query EnrichDemo {',
    '  me { id preferredName email }',
    '  groceries: enrich(queries: [',
    '    { id: "t1", description: "WOOLWORTHS NZ/1234 PONSONBY AUCKLAND", amount: -84.2 }',
    '    { id: "t2", description: "PAK N SAVE WAIRAU ROAD", direction: DEBIT }',
    '  ]) { id description confidence merchant { name logo website } category { name personalFinance { name } } }',
    '  other: enrich(queries: [{ id: "t3", description: "NETFLIX.COM AUCKLAND" }, { id: "t4", description: "UNKNOWN SHOP 42" }]) {',
    '    id confidence merchant { name } category { name } matches { confidence merchant { name } }',
    '  }',
    '}',
    ''
  ].join('\\n');
  // Subscriptions use graphql-ws on the same origin and path; the browser sends the session cookie.
  var socketUrl = (window.location.protocol === 'https:' ? 'wss://' : 'ws://') + window.location.host + '/graphql';
  var fetcher = GraphiQL.createFetcher({ url: window.location.origin + '/graphql', subscriptionUrl: socketUrl });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: defaultQuery, shouldPersistHeaders: false }));
  var signOut = document.getElementById('sign-out');
  if (signOut) signOut.addEventListener('click', function () {
    fetch('/auth/logout', { method: 'POST' }).then(function () { window.location.reload(); });
  });
})();
`;
