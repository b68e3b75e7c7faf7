// The worked example of docs/domain.md "Money in more than one currency"
// through the official MCP TypeScript SDK against the real binary, as an
// agent sets up a household and reads it: accounts in PHP, USD and JPY, a
// PHP card with a 3% fee taking a yen purchase, a dollar taxi in cash. The
// SDK checks every result against its tool's outputSchema. Rates are the
// person's own, entered over REST (no tool writes a rate); without the JPY
// rate the yen are named in missing_rates, never counted 1:1.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startFinance } from './finance-server.mjs';

const email = 'mcp-currency-e2e@example.com';
const day = '2026-11-20';

let finance;
let key;
before(async () => {
  finance = await startFinance();
  finance.cli(['users', 'create', '--email', email, '--name', 'E2E', '--plan', 'pro']);
  key = finance.cli(['keys', 'create', '--user', email, '--name', 'mcp currency e2e', '--scopes',
    'finance:read,expenses:write,accounts:write,credit_cards:write,settings:write,mcp:connect']).trim();
});
after(async () => finance?.stop());

/** Sends a REST request with the key and returns its envelope's data. */
async function rest(method, path, body) {
  const res = await fetch(new URL(`/api/v1${path}`, finance.baseURL), {
    method, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  const envelope = await res.json();
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(envelope)}`);
  return envelope.data;
}

test('an agent sets up a household in three currencies and reads its net worth and spending in pesos', async () => {
  const client = new Client({ name: 'finance-e2e', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/api/mcp', finance.baseURL), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  }));
  try {
    const call = async (name, args) => {
      const result = await client.callTool({ name, arguments: args });
      assert.ok(!result.isError, `${name}: ${JSON.stringify(result.content)}`);
      return result.structuredContent ?? JSON.parse(result.content[0].text);
    };
    const rates = {};
    for (const [quote, rate] of [['PHP', '65.20'], ['USD', '1.0550'], ['JPY', '162.40']]) {
      rates[quote] = (await rest('POST', '/exchange-rates', { base: 'EUR', quote, date: day, rate })).id;
    }
    assert.match(client.getInstructions(), /the reporting currency is PHP\./);
    assert.match(client.getInstructions(), /A record's amounts are in its currency/);

    await call('create_account', { name: 'Checking', type: 'checking', currency: 'PHP', opening_balance: 20000 });
    await call('create_account', { name: 'Savings', type: 'savings', currency: 'USD', opening_balance: 1000 });
    const wallet = await call('create_account', { name: 'Wallet', type: 'e_wallet', currency: 'JPY', opening_balance: 50000 });
    const card = await call('create_credit_card', { name: 'Visa', credit_limit: 100000, statement_day: 5, due_day: 25, foreign_fee_percent: 3 });

    const netWorth = await call('get_report', { report: 'net-worth' });
    assert.equal(netWorth.currency, 'PHP');
    assert.equal(netWorth.net_worth, 101874.84);
    assert.deepEqual(netWorth.missing_rates, []);
    assert.deepEqual(netWorth.by_currency.map((l) => [l.currency, l.converted]),
      [['PHP', 20000], ['JPY', 20073.89], ['USD', 61800.95]]);

    const spend = (args) => call('create_expense', { date: day, ...args });
    await spend({ amount: 1000, description: 'Groceries', category: 'Food & Dining', payment_method: 'Cash' });
    const taxi = await spend({ amount: 25, currency: 'USD', description: 'Taxi', category: 'Transportation', payment_method: 'Cash' });
    assert.equal(taxi.currency, 'USD');
    await spend({ amount: 3000, description: 'Train', category: 'Transportation', payment_method: 'Account Debit', account_id: wallet.id });
    const ramen = await spend({ original_amount: 12345, original_currency: 'JPY', description: 'Ramen', category: 'Food & Dining',
      payment_method: 'Credit Card', credit_card_id: card.id });
    assert.deepEqual([ramen.amount, ramen.currency, ramen.original_amount, ramen.original_currency], [5104.93, 'PHP', 12345, 'JPY']);

    const summary = await call('get_expense_summary', { dateFrom: day, dateTo: day });
    assert.equal(summary.currency, 'PHP');
    assert.equal(summary.total_expenses, 8854.39);
    assert.deepEqual(summary.by_payment_method.map((m) => [m.payment_method, m.amount]),
      [['Cash', 2545.02], ['Account Debit', 1204.43], ['Credit Card', 5104.93]]);

    // Without the JPY rate: the train fare is left out and named.
    await rest('DELETE', `/exchange-rates/${rates.JPY}`);
    const without = await call('get_expense_summary', { dateFrom: day, dateTo: day });
    assert.equal(without.total_expenses, 7649.95);
    assert.deepEqual(without.missing_rates, [{ currency: 'JPY', amount: 3000, date_from: day, date_to: day }]);
    const methods = await call('get_report', { report: 'payment-methods', dateFrom: day, dateTo: day });
    assert.deepEqual(methods.items.map((m) => [m.payment_method, m.amount]),
      [['Cash', 2545.02], ['Account Debit', 0], ['Credit Card', 5104.93]]);
    assert.deepEqual(methods.missing_rates, without.missing_rates);
  } finally {
    await client.close();
  }
});
