/**
 * Browser script that mounts GraphiQL. Served as a file (not inline) so the page's
 * Content-Security-Policy can forbid inline scripts. Requests go to the same origin, so the
 * session cookie travels with them and no token ever reaches the browser.
 */
export const GRAPHIQL_INIT_SCRIPT = `(function () {
  var defaultQuery = [
    // Short lines: the editor shows about 60 characters beside the results.
    '# You signed in to the app, then connected your bank.',
    '# bankCustomer: you as your bank knows you (/v1/me),',
    '# with the bank\u2019s name and e-mail, not your sign-in\u2019s.',
    '# The platform token stays on the gateway.',
    '# The four lookups go out in one enrichment search.',
    'query EnrichDemo {',
    '  bankCustomer: me { id preferredName email }',
    '  groceries: enrich(queries: [',
    '    { id: "t1", description: "WOOLWORTHS NZ/1234 PONSONBY", amount: -84.2 }',
    '    { id: "t2", description: "PAK N SAVE WAIRAU ROAD", direction: DEBIT }',
    '  ]) {',
    '    id description confidence',
    '    merchant { name logo website }',
    '    category { name personalFinance { name } }',
    '  }',
    '  other: enrich(queries: [',
    '    { id: "t3", description: "NETFLIX.COM AUCKLAND" }',
    '    { id: "t4", description: "UNKNOWN SHOP 42" }',
    '  ]) {',
    '    id confidence merchant { name } category { name }',
    '    matches { confidence merchant { name } }',
    '  }',
    '}',
    ''
  ].join('\\n');
  // Subscriptions use graphql-ws on the same origin and path; the browser sends the session cookie.
  var socketUrl = (window.location.protocol === 'https:' ? 'wss://' : 'ws://') + window.location.host + '/graphql';
  var SIGNED_OUT = 'Your session has ended (signed out, here or in another tab, or expired). Sign in again: ' +
    window.location.origin + '/auth/login?returnTo=%2Fgraphql';
  // The session can end while this page is open: say so once, plainly, instead of a raw error.
  function signedOut() {
    var bar = document.getElementById('bar');
    if (!bar || bar.getAttribute('data-state') === 'signed-out') return;
    bar.setAttribute('data-state', 'signed-out');
    bar.innerHTML = '';
    var text = document.createElement('span');
    text.textContent = 'Open finance gateway: signed out';
    var link = document.createElement('a');
    link.href = '/auth/login?returnTo=%2Fgraphql';
    link.textContent = 'Sign in';
    link.style.color = '#fff';
    bar.appendChild(text);
    bar.appendChild(link);
  }
  function isSignedOut(value) {
    return !!(value && value.errors && value.errors.some(function (e) { return e && e.extensions && e.extensions.code === 'UNAUTHENTICATED'; }));
  }
  function check(value) {
    if (!isSignedOut(value)) return value;
    signedOut();
    return { errors: [{ message: SIGNED_OUT }] };
  }
  function rescue(error) {
    // graphql-ws ends a subscription whose session ended with close code 4401.
    var text = String((error && (error.reason || error.message)) || error);
    if ((error && error.code === 4401) || /4401|Session ended/.test(text)) {
      signedOut();
      return { errors: [{ message: SIGNED_OUT }] };
    }
    throw error;
  }
  // A live result (subscription) is an async iterator: its values are checked, and its end by a
  // closed socket becomes the same message.
  function watchedResults(result) {
    var iterator = result[Symbol.asyncIterator]();
    var ended = false;
    var wrapped = {
      next: function () {
        if (ended) return Promise.resolve({ done: true, value: undefined });
        return iterator.next().then(function (step) {
          return step.done ? step : { done: false, value: check(step.value) };
        }, function (error) {
          ended = true;
          return { done: false, value: rescue(error) };
        });
      },
      return: function () { ended = true; return iterator.return ? iterator.return() : Promise.resolve({ done: true, value: undefined }); }
    };
    wrapped[Symbol.asyncIterator] = function () { return wrapped; };
    return wrapped;
  }
  function watchedResult(value) {
    if (value && typeof value[Symbol.asyncIterator] === 'function') return watchedResults(value);
    return check(value);
  }
  // GraphiQL updates its parsed document and operation name a moment after an edit: a query
  // pasted and run at once goes out under the previous name ("Unknown operation named ...") and,
  // for a subscription, over HTTP (the transport is chosen from the stale document). When the text
  // holds one operation, its own name and kind are used.
  function singleOperation(query) {
    if (typeof query !== 'string') return undefined;
    var heads = query.match(/(^|[}\\s])(query|mutation|subscription)\\b[^{(]*|^\\s*\\{/g) || [];
    if (heads.length !== 1) return undefined;
    var named = /(query|mutation|subscription)(?:\\s+([_A-Za-z][_0-9A-Za-z]*))?/.exec(heads[0]);
    return { kind: named ? named[1] : 'query', name: named ? named[2] : undefined };
  }
  function currentOperation(params) {
    var single = params && singleOperation(params.query);
    if (!single || params.operationName === single.name) return params;
    var copy = {};
    Object.keys(params).forEach(function (key) { if (key !== 'operationName') copy[key] = params[key]; });
    if (single.name) copy.operationName = single.name;
    return copy;
  }
  function currentOptions(params, options) {
    var single = params && singleOperation(params.query);
    if (!single || !options || !options.documentAST) return options;
    var copy = {};
    Object.keys(options).forEach(function (key) { copy[key] = options[key]; });
    copy.documentAST = { kind: 'Document', definitions: [{
      kind: 'OperationDefinition', operation: single.kind,
      name: single.name ? { kind: 'Name', value: single.name } : undefined,
      selectionSet: { kind: 'SelectionSet', selections: [] }
    }] };
    return copy;
  }
  function watched(fetcher) {
    return function (params, options) {
      var result;
      try { result = fetcher(currentOperation(params), currentOptions(params, options)); } catch (error) { return Promise.resolve().then(function () { return rescue(error); }); }
      // GraphiQL's fetcher is async: even a subscription's iterator arrives inside a promise.
      if (result && typeof result.then === 'function') return result.then(watchedResult, rescue);
      return watchedResult(result);
    };
  }
  var fetcher = watched(GraphiQL.createFetcher({ url: window.location.origin + '/graphql', subscriptionUrl: socketUrl }));
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, { fetcher: fetcher, defaultQuery: defaultQuery, shouldPersistHeaders: false }));
  var signOut = document.getElementById('sign-out');
  if (signOut) signOut.addEventListener('click', function () {
    fetch('/auth/logout', { method: 'POST' }).then(function () { window.location.reload(); });
  });
})();
`;
