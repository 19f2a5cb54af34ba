import { htmlPage } from '@open-finance-gateway/common/http/respond';

/** The console's page: a shell; `/console/app.js` renders the world into it from `/console/state`. */
export function consolePage(): string {
  return htmlPage({
    title: 'Platform sandbox console',
    style: `
body{font-family:system-ui,sans-serif;margin:0;color:#1d2433;background:#f4f6fa}
header{background:#0b2a5b;color:#fff;padding:.8rem 1.2rem;display:flex;flex-wrap:wrap;gap:1rem;align-items:center}
header h1{font-size:1.1rem;margin:0 1rem 0 0}
main{display:grid;grid-template-columns:repeat(auto-fit,minmax(26rem,1fr));gap:1rem;padding:1rem}
section{background:#fff;border-radius:.5rem;padding:.8rem 1rem;box-shadow:0 1px 2px #0002;overflow-x:auto}
h2{font-size:1rem;margin:.2rem 0 .6rem}h3{font-size:.9rem;margin:.8rem 0 .3rem}
table{border-collapse:collapse;width:100%;font-size:.85rem}td,th{text-align:left;padding:.2rem .4rem;border-bottom:1px solid #e3e7ee;vertical-align:top}
button{font:inherit;font-size:.8rem;padding:.15rem .5rem;margin:.1rem;border-radius:.3rem;border:1px solid #9aa5b8;background:#f4f7fb;cursor:pointer}
button.primary{background:#0b5fff;color:#fff;border-color:#0b5fff}input,select{font:inherit;font-size:.85rem;padding:.1rem .3rem;max-width:8rem}
.status{font-weight:600}.final{color:#2a7a2a}.bad{color:#b3261e}.muted{color:#667;font-size:.8rem}#message{font-size:.85rem}
`,
    body: `<header><h1>Platform sandbox console</h1><span id="webhook-status" class="muted"></span>
<span><button id="rotate-key" type="button">Rotate signing key</button></span>
<span>Fault: <select id="fault-service"><option>core</option><option>enrichment</option></select>
<input id="fault-status" type="number" placeholder="status" min="400" max="599">
<input id="fault-delay" type="number" placeholder="delay ms" min="0">
<button id="fault-inject" type="button">Inject</button><button id="fault-clear" type="button">Clear faults</button></span>
<span id="message" role="status"></span></header>
<main id="world"><section>Loading…</section></main>
<main><section id="deliveries-section"><h2>Webhook deliveries</h2><table id="deliveries"></table></section></main>
<script src="/console/app.js"></script>`,
  });
}

/**
 * Renders with DOM APIs and textContent only (payee names and descriptions are user input), and
 * re-reads the state whenever the sandbox announces a change over server-sent events.
 */
export const CONSOLE_SCRIPT = `(function () {
  'use strict';
  var snapshot;
  var DELIVERY_WORDS = { PENDING: 'Sending', SENT: 'Delivered', RETRY: 'Will retry', FAILED: 'Gave up' };
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === 'text') node.textContent = attrs[key];
      else if (key === 'onclick') node.addEventListener('click', attrs[key]);
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }
  function say(text, bad) {
    var message = document.getElementById('message');
    message.textContent = text;
    message.className = bad ? 'bad' : '';
  }
  function call(method, path, body) {
    return fetch(path, {
      method: method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (json) {
        if (!response.ok) throw new Error(json.message || response.status);
        return json;
      });
    }).then(function (json) { refresh(); return json; }, function (error) { say(String(error.message || error), true); });
  }
  function button(text, onclick, primary) {
    return el('button', { type: 'button', text: text, onclick: onclick, class: primary ? 'primary' : '' });
  }
  function money(amount) { return (amount < 0 ? '-$' : '$') + Math.abs(amount).toFixed(2); }
  function when(iso) { return iso ? new Date(iso).toLocaleTimeString() : ''; }

  function accountsTable(user) {
    return el('table', {}, user.accounts.map(function (account) {
      var next = account.status === 'ACTIVE' ? 'INACTIVE' : 'ACTIVE';
      return el('tr', { 'data-account-id': account.id }, [
        el('td', { text: account.name + (account.shared ? '' : ' (not shared)') }),
        el('td', { class: 'muted', text: account.bank + ' ' + account.number }),
        el('td', { class: account.status === 'ACTIVE' ? '' : 'bad', text: account.status }),
        el('td', {}, [
          button('Mark ' + next, function () { call('POST', '/sandbox/accounts/' + account.id + '/status', { status: next }); }),
          button('Remove', function () { call('DELETE', '/sandbox/accounts/' + account.id); })
        ])
      ]);
    }));
  }

  function paymentsTable(user) {
    return el('table', { class: 'payments' }, user.payments.map(function (payment) {
      var moves = payment.final ? [] : snapshot.paymentStatuses.map(function (status) {
        return button(status, function () { call('POST', '/sandbox/payments/' + payment.id + '/status', { status: status }); });
      });
      return el('tr', { 'data-payment-id': payment.id }, [
        el('td', { text: money(payment.amount) + ' to ' + payment.to }),
        el('td', { class: 'status' + (payment.final ? ' final' : ''), text: payment.status + (payment.statusCode ? ' (' + payment.statusCode + ')' : '') }),
        el('td', { class: 'muted', text: payment.timeline.map(function (step) { return step.status + ' ' + when(step.time); }).join(' → ') }),
        el('td', {}, moves)
      ]);
    }));
  }

  function fireControls(user) {
    var type = el('select', { 'aria-label': 'webhook type' }, Object.keys(snapshot.webhookTable).map(function (name) { return el('option', { text: name }); }));
    var code = el('select', { 'aria-label': 'webhook code' });
    function codes() {
      code.textContent = '';
      snapshot.webhookTable[type.value].forEach(function (name) { code.appendChild(el('option', { text: name })); });
    }
    type.addEventListener('change', codes);
    codes();
    return el('div', {}, [type, code, button('Fire webhook', function () {
      call('POST', '/sandbox/webhooks/fire', { user: user.id, webhook_type: type.value, webhook_code: code.value });
    })]);
  }

  // Shown only when a gateway embeds this sandbox and keeps user data (USER_DATA_STORE).
  function keptDataRow(user) {
    var kept = user.keptData;
    if (!kept) return null;
    return el('div', { class: 'muted', 'data-kept-data': kept.kept ? 'kept' : kept.unknown ? 'unknown' : 'not-kept', text: 'Gateway: ' + (kept.kept
      ? 'served from the gateway\u2019s store (age ' + kept.ageSeconds + 's)'
      : kept.unknown ? 'the gateway\u2019s store did not answer' : 'read from the platform on the next open') });
  }

  function userSection(user) {
    var amount = el('input', { type: 'number', step: '0.01', min: '0.01', value: '25', 'aria-label': 'payment amount' });
    return el('section', { 'data-user-id': user.id }, [
      el('h2', { text: user.name + ' ' }, [el('span', { class: 'muted', text: user.email + ' · ' + user.tokens + ' live token(s)' })]),
      el('div', {}, [
        button('Revoke app access', function () { call('POST', '/sandbox/users/' + user.id + '/revoke', {}); }),
        button('Connect an account', function () { call('POST', '/sandbox/users/' + user.id + '/accounts', {}); }),
        button('Income found', function () { call('POST', '/sandbox/users/' + user.id + '/income', { code: 'CREATE' }); })
      ]),
      keptDataRow(user),
      el('h3', { text: 'Accounts' }), accountsTable(user),
      el('h3', { text: 'Payments' }),
      el('div', {}, [amount, button('Make payment', function () {
        call('POST', '/sandbox/payments', { user: user.id, amount: Number(amount.value), run: false });
      }, true), button('Transfer $100', function () { call('POST', '/sandbox/transfers', { user: user.id }); })]),
      paymentsTable(user),
      el('div', { class: 'muted', text: user.transfers.length ? 'Transfers: ' + user.transfers.map(function (t) { return money(t.amount) + ' ' + t.status; }).join(', ') : '' }),
      el('h3', { text: 'Webhooks' }),
      el('div', { class: 'muted', text: user.hooks.length ? user.hooks.map(function (hook) { return hook.type + (hook.cancelled ? ' (cancelled)' : '') + (hook.lastCalledAt ? ' ✓' + when(hook.lastCalledAt) : ''); }).join(', ') : 'No subscriptions (sign in through the gateway first).' }),
      fireControls(user),
      el('h3', { text: 'Recent transactions' }),
      el('table', {}, user.transactions.map(function (row) {
        return el('tr', {}, [
          el('td', { class: 'muted', text: row.date.slice(0, 10) }), el('td', { text: row.description }),
          el('td', { text: money(row.amount) }),
          el('td', {}, [button('Withdraw', function () { call('DELETE', '/sandbox/transactions/' + row.id); })])
        ]);
      }))
    ]);
  }

  function render() {
    var world = document.getElementById('world');
    world.textContent = '';
    snapshot.users.forEach(function (user) { world.appendChild(userSection(user)); });
    var faults = ['core', 'enrichment'].filter(function (name) { var f = snapshot.faults[name]; return f.status || f.delayMs || f.dropResponse; });
    document.getElementById('webhook-status').textContent = 'Signing key ' + snapshot.webhooks.signingKeyId +
      (snapshot.webhooks.disabled ? ' · webhook URL DISABLED' : '') + (faults.length ? ' · fault on ' + faults.join(', ') : '');
    var deliveries = document.getElementById('deliveries');
    deliveries.textContent = '';
    // Two statuses, kept apart: the one the webhook carries (a payment's, a transfer's) and its delivery's.
    deliveries.appendChild(el('tr', {}, ['Created', 'User', 'Webhook', 'Item', 'Reported status', 'Delivery', 'Attempts', 'Last failure'].map(function (name) { return el('th', { text: name }); })));
    snapshot.deliveries.forEach(function (event) {
      var user = snapshot.users.filter(function (u) { return u.id === event.user; })[0];
      deliveries.appendChild(el('tr', { 'data-delivery-id': event.id }, [
        el('td', { text: when(event.createdAt) }), el('td', { text: user ? user.name : '' }),
        el('td', { text: event.type + ' ' + event.code }), el('td', { class: 'muted', text: event.itemId || '' }),
        el('td', { class: 'status', text: event.reportedStatus || '' }),
        el('td', { class: event.status === 'FAILED' ? 'bad' : '', 'data-delivery-status': event.status, text: DELIVERY_WORDS[event.status] }),
        el('td', { text: String(event.attempts) }), el('td', { class: 'muted', text: when(event.lastFailedAt) })
      ]));
    });
  }

  var loading = false, again = false;
  function refresh() {
    if (loading) { again = true; return; }
    loading = true;
    fetch('/console/state').then(function (response) { return response.json(); }).then(function (json) {
      snapshot = json;
      render();
    }).catch(function (error) { say('Cannot reach the sandbox: ' + error.message, true); }).then(function () {
      loading = false;
      if (again) { again = false; refresh(); }
    });
  }

  document.getElementById('rotate-key').addEventListener('click', function () { call('POST', '/sandbox/keys/rotate', {}); });
  document.getElementById('fault-inject').addEventListener('click', function () {
    var status = Number(document.getElementById('fault-status').value), delay = Number(document.getElementById('fault-delay').value);
    call('POST', '/sandbox/faults', { service: document.getElementById('fault-service').value, status: status || undefined, delayMs: delay || undefined })
      .then(function (json) { if (json) say('Fault injected'); });
  });
  document.getElementById('fault-clear').addEventListener('click', function () { call('DELETE', '/sandbox/faults').then(function () { say('Faults cleared'); }); });
  new EventSource('/console/events').addEventListener('change', refresh);
  refresh();
})();
`;
