// Headless Chromium opens Home on a fresh server with a household's month
// recorded through the API: an account, a card purchase, a salary, a loan
// whose first installment is three weeks overdue, a bill due tomorrow and
// budgets. At phone (390×844) and desktop (1280×800) size the first
// screen's facts, net worth, the soonest due item and this month's
// spending, are above the fold without scrolling, each due item's words
// and date on one line; Home does not scroll sideways at 320 or 390 px;
// chart text is the same size on both; the category's own colour fills its
// bar; and every view passes the accessibility linter in light and dark.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { day, desktop, launchBrowser, openContext, owner, phone, setUp, shots, signIn, snap } from './webapp-kit.mjs';

let finance, browser;

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
  const { context, page } = await openContext(browser, desktop);
  await setUp(page, finance);
  await context.close();
  const key = finance.cli(['keys', 'create', '--user', owner.email, '--name', 'seed', '--scopes', 'all']).trim();
  const api = async (method, path, body) => {
    const r = await fetch(`${finance.baseURL}/api/v1${path}`, {
      method, headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: body && JSON.stringify(body),
    });
    const answer = await r.json();
    assert.ok(r.ok, `${method} ${path}: ${r.status} ${JSON.stringify(answer)}`);
    return answer.data;
  };
  const payroll = (await api('POST', '/accounts', { name: 'Payroll', type: 'savings', opening_balance: '50000' })).id;
  const visa = (await api('POST', '/credit-cards', { name: 'Visa', credit_limit: '50000', statement_day: 1, due_day: 20 })).id;
  await api('POST', '/income', { amount: '30000', date: day(0), category: 'Salary', account_id: payroll });
  await api('POST', '/expenses', { amount: '1200', date: day(0), description: 'Market', category: 'Groceries',
    payment_method: 'Account Debit', account_id: payroll });
  await api('POST', '/expenses', { amount: '2500', date: day(0), description: 'Shoes', category: 'Shopping',
    payment_method: 'Credit Card', credit_card_id: visa });
  await api('POST', '/loans', { name: 'Car loan', principal: '120000', interest_type: 'none', term_months: 24,
    start_date: day(-60), first_due_date: day(-21) });
  const tomorrow = day(1);
  await api('POST', '/bills/templates', { name: 'Internet', amount: '1699', category: 'Utilities', frequency: 'monthly',
    start_date: tomorrow, due_day: Number(tomorrow.slice(8)) });
  await api('PUT', '/user-settings/budget-thresholds', { thresholds: [{ category: 'Groceries', monthly_limit: '1000' },
    { category: 'Shopping', monthly_limit: '5000' }] });
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

/** The first screen's facts and where their boxes end, in CSS pixels from the top of the page. */
async function firstScreen(page) {
  const box = async (locator) => {
    const b = await locator.boundingBox();
    return { text: (await locator.textContent()).replace(/\s+/g, ' ').trim(), bottom: Math.ceil(b.y + b.height) };
  };
  return {
    netWorth: await box(page.locator('#net-worth')),
    soonest: await box(page.locator('.due-list li').first()),
    spending: await box(page.locator('.stat:has(dt:text-is("Spending")) dd')),
  };
}

for (const size of [phone, desktop]) {
  test(`Home's first screen answers what I have, what is due and how the month goes at ${size.name} size`, async () => {
    const { context, page, problems } = await openContext(browser, size);
    await signIn(page, finance);
    const facts = await firstScreen(page);
    assert.equal(facts.netWorth.text, '-₱43,700.00', 'net worth: 50,000 + 30,000 - 1,200 less the card\'s 2,500 and the loan\'s 120,000');
    assert.match(facts.soonest.text, /^Car loan, installment 1 ₱5,000\.00 21 days overdue/);
    assert.equal(facts.spending.text, '₱3,700.00');
    for (const [name, fact] of Object.entries(facts)) {
      assert.ok(fact.bottom <= size.viewport.height, `${name} ends at ${fact.bottom}px, below the fold of ${size.viewport.height}px`);
    }
    // Overdue first, then by date: the bill tomorrow, the loan's next installment a month after its first.
    const when = await page.locator('.due-list li .when').allTextContents();
    assert.deepEqual(when.slice(0, 2), ['21 days overdue', 'due tomorrow']);
    assert.match(when[2], /^due in (9|10) days$/);
    assert.equal(when.length, 3);
    // When it is due and its date share one line under the name ("21 days overdue · 2025-03-01"), a third of a desktop too.
    const lines = await page.locator('.due-list li .sub').evaluateAll((subs) => subs.map((s) => {
      const when = s.querySelector('.when').getBoundingClientRect(), date = s.querySelector('.date').getBoundingClientRect();
      return { text: s.textContent, lines: Math.round(s.getBoundingClientRect().height / when.height), sameLine: date.top === when.top };
    }));
    for (const l of lines) assert.deepEqual([l.lines, l.sameLine], [1, true], `"${l.text}" takes one line`);
    assert.ok(await page.getByRole('link', { name: 'Record income', exact: true }).isVisible());
    assert.deepEqual(await page.locator('.budget-bars .budget-line').evaluateAll((ls) => ls.map((l) => l.textContent.replace(/\s+/g, ' ').trim())),
      ['Groceries Over limit ₱200.00 over', 'Shopping On track ₱2,500.00 left']);

    // Charts come after, their tables folded; the net worth table ends at today's figure.
    assert.equal(await page.locator('details.figures[open]').count(), 0, 'every table of Home is folded');
    const worth = await page.locator('#net-worth-table tbody tr').evaluateAll((rows) => rows.map((r) => [...r.children].map((c) => c.textContent.trim())));
    assert.equal(worth.length, 12);
    assert.equal(worth[11][1], '-₱43,700.00');
    // The category's own colour fills its bar.
    assert.equal(await page.locator('#spending-heading ~ svg.chart rect.own').first().getAttribute('fill'), '#EC4899', 'Shopping, the larger');

    // Chart text is set in pixels, whatever the chart's width.
    const tick = page.locator('#net-worth-heading ~ svg.chart text.tick.y').first();
    assert.equal(await tick.evaluate((t) => getComputedStyle(t).fontSize), '11px');
    const label = page.locator('#spending-heading ~ svg.chart text.label').first();
    assert.ok(Math.abs((await label.boundingBox()).height - 16) <= 3, 'a 13px label is about 16px tall at any width');

    await snap(page, 'home', size.name);
    assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
    await context.close();
  });
}

test('Home does not scroll sideways at 320 px or 390 px', async () => {
  for (const width of [320, 390]) {
    const { context, page } = await openContext(browser, { ...phone, viewport: { width, height: 740 } });
    await signIn(page, finance);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `Home scrolls sideways at ${width} px by ${overflow}px`);
    // Every period of a year is labelled or thinned: no two visible labels overlap.
    const clash = await page.locator('svg.chart.columns').evaluateAll((charts) => charts.flatMap((svg) => {
      const labels = [...svg.querySelectorAll('text.tick[text-anchor=middle]')].filter((t) => getComputedStyle(t).display !== 'none');
      return labels.slice(1).flatMap((t, i) => {
        const before = labels[i].getBoundingClientRect(), box = t.getBoundingClientRect();
        return box.left < before.right ? [`${labels[i].textContent} and ${t.textContent}`] : [];
      });
    }));
    assert.deepEqual(clash, [], `period labels overlap at ${width} px`);
    await context.close();
  }
});
