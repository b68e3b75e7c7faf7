// Headless Chromium records money the quick ways, at phone and at desktop
// size, each on a fresh server: the "Type it" box drafts two expenses from
// a sentence, the person fixes one field of the review and saves both; a
// note that leaves the date and payment out is drafted with those fields
// marked as guessed; a bulk grid typed with the keyboard (Tab along a row,
// Enter to the next, a row added from the last, blank dates taking the one
// above) is refused for one bad row (nothing saved, the rows kept), fixed and
// saved; an expense is split into two categories, the second part taking
// what the first leaves, and
// Home's category table shows the parts; an expense is edited. Every page
// is screenshotted in light and dark and checked by the accessibility
// linter (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { day, desktop, launchBrowser, openContext, phone, refusedFormAt, setUp, shots, snap, navLink } from './webapp-kit.mjs';

let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  console.log(`screenshots: ${shots}`);
});

/** The rows of a list page's items as their text. */
const listText = (page) => page.locator('main .list').textContent();

for (const size of [phone, desktop]) {
  test(`type it, bulk entry, split and edit at ${size.name} size`, async () => {
    const finance = await startFinance();
    const { context, page, problems } = await openContext(browser, size, refusedFormAt('/record/bulk'));
    try {
      await setUp(page, finance);

      // Type it: two drafts for review, nothing saved yet.
      await navLink(page, 'Record').click();
      await page.waitForURL('**/record');
      await snap(page, 'record-1-record', size.name);
      await page.getByLabel('What did you spend?').fill('lunch 250 cash yesterday, grab 180 cash');
      await page.getByRole('button', { name: 'Read it' }).click();
      await page.waitForURL('**/record/parse');
      assert.equal(await page.textContent('h1'), 'Check the drafts');
      assert.equal(await page.locator('#r0-amount').inputValue(), '250.00');
      assert.equal(await page.locator('#r1-amount').inputValue(), '180.00');
      assert.equal(await page.locator('#r0-method').inputValue(), 'Cash');
      const yesterday = await page.locator('#r0-date').inputValue();
      assert.match(yesterday, /^\d{4}-\d{2}-\d{2}$/);
      const month = yesterday.slice(0, 7);
      await snap(page, 'record-2-review', size.name);

      // Fix one field, then save both.
      await page.locator('#r0-description').fill('Lunch with Ana');
      await page.getByRole('button', { name: 'Save all' }).click();
      await page.waitForURL('**/expenses?notice=expenses-recorded');
      assert.match(await page.textContent('[role=status]'), /The expenses have been recorded/);
      assert.match(await page.textContent('#list-heading'), /^2 expenses · total ₱/);
      assert.match(await listText(page), /Lunch with Ana ₱250\.00/);
      assert.match(await listText(page), /Grab ₱180\.00/);
      await snap(page, 'record-3-expenses', size.name);

      // A note that leaves things out: the review marks, in words beside
      // each field, what the parser filled in; a rough date is read from its
      // own line, and a line without an amount is a draft of its own.
      await navLink(page, 'Record').click();
      await page.waitForURL('**/record');
      await page.getByLabel('What did you spend?').fill('grab 180 yesterday\nmeralco 2,845.60 last week\ncoffee at the mall');
      await page.getByRole('button', { name: 'Read it' }).click();
      await page.waitForURL('**/record/parse');
      assert.equal(await page.locator('.bulk-row').count(), 3);
      assert.equal(await page.locator('#r0-date').inputValue(), day(-1));
      assert.equal(await page.locator('#r1-date').inputValue(), day(-7), '"last week", not the line before\'s date');
      assert.equal(await page.locator('#r2-amount').inputValue(), '');
      assert.equal(await page.locator('#r2-description').inputValue(), 'Coffee at the mall');
      assert.match(await page.textContent('#r2'), /no amount was found; fill it in/);
      assert.equal(await page.getByLabel('Date', { exact: true }).count(), 1, 'the date of "yesterday" is read');
      assert.equal(await page.getByLabel('Date guessed', { exact: true }).count(), 2);
      assert.equal(await page.getByLabel(/^Paid with guessed/).count(), 3);
      assert.match(await page.textContent('#r1'), /Your text did not state the date and how it was paid, so they were filled in/);
      await snap(page, 'record-3b-guessed', size.name);

      // Bulk entry, typed with the keyboard as a grid: Tab along a row, Enter
      // down to the next row, Enter in the last row adds one; a blank date
      // takes the row above's. One bad row refuses them all and keeps them.
      await navLink(page, 'Record').click();
      await page.getByRole('link', { name: 'Record several' }).click();
      await page.waitForURL('**/record/bulk');
      assert.equal(await page.locator('.bulk-row').count(), 5);
      assert.equal(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth), true, 'the grid does not scroll sideways');
      await snap(page, 'record-4-bulk', size.name);
      await page.locator('#r0-date').fill(yesterday);
      const rows = [['Bread', '40', 'Groceries'], ['Jeep', '3o', 'Transportation'], ['Movie', '300', 'Entertainment']];
      await page.locator('#r0-description').focus();
      for (const [i, [description, amount, category]] of rows.entries()) {
        assert.equal(await page.evaluate(() => document.activeElement.id), `r${i}-description`);
        await page.keyboard.type(description);
        await page.keyboard.press('Tab');
        await page.keyboard.type(amount);
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement.id), `r${i}-category`, 'Tab goes along the row');
        await page.keyboard.type(category);
        assert.equal(await page.locator(`#r${i}-category`).inputValue(), category);
        await page.keyboard.press('Enter');
      }
      // Enter in the last row adds a sixth, paid as the row above, its date blank.
      await page.locator('#r4-description').focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('.bulk-row').count(), 6);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'r5-description');
      assert.equal(await page.locator('input[name=rows]').inputValue(), '6');
      assert.equal(await page.locator('#r5-date').inputValue(), '');
      assert.equal(await page.locator('#r5-method').inputValue(), 'Cash');
      await page.keyboard.type('Tea');
      await page.keyboard.press('Tab');
      await page.keyboard.type('25');
      await page.keyboard.press('Tab');
      await page.keyboard.type('Groceries');
      await page.getByRole('button', { name: 'Save all' }).click();
      await page.waitForSelector('#r1-amount-error');
      assert.match(await page.textContent('#r1-amount-error'), /^Row 2: Amount must be/);
      assert.equal(await page.locator('.field-error').count(), 1, 'the problem is said once');
      assert.equal(await page.locator('#r1-amount').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#r2-description').inputValue(), 'Movie');
      assert.equal(await page.locator('#r5-description').inputValue(), 'Tea', 'the row added in place is kept');
      assert.equal(await page.locator('#r1-date').inputValue(), '', 'a blank date stays blank');
      assert.match(await page.textContent('[role=alert]'), /Nothing saved/);
      await snap(page, 'record-5-bulk-refused', size.name);
      await page.locator('#r1-amount').fill('30');
      await page.getByRole('button', { name: 'Save all' }).click();
      await page.waitForURL('**/expenses?notice=expenses-recorded');
      assert.match(await page.textContent('#list-heading'), /^6 expenses · total ₱/, 'the refused form saved nothing');
      // Every row of the grid is dated as the first: yesterday, as the two typed before.
      await page.goto(`${finance.baseURL}/expenses?dateFrom=${yesterday}&dateTo=${yesterday}`);
      assert.match(await page.textContent('#list-heading'), /^6 expenses · total ₱825\.00/);
      for (const saved of [/Bread ₱40\.00/, /Jeep ₱30\.00/, /Movie ₱300\.00/, /Tea ₱25\.00/]) {
        assert.match(await listText(page), saved);
      }
      await page.goto(`${finance.baseURL}/expenses`);

      // Split the lunch into two categories; the second part, its amount
      // left blank, takes what the first leaves, shown as it is typed.
      await page.getByRole('link', { name: /^Split Lunch with Ana/ }).click();
      await page.waitForURL('**/split?back=*');
      assert.equal(await page.locator('#p0-category').inputValue(), 'Food & Dining');
      await snap(page, 'record-6-split', size.name);
      await page.locator('#p0-amount').fill('150');
      await page.locator('#p1-amount').fill('');
      await page.locator('#p1-category').selectOption('Groceries');
      assert.equal(await page.textContent('#split-left'), 'Part 2 takes the ₱100.00 left.');
      assert.equal(await page.locator('#p1-amount').getAttribute('placeholder'), '100.00');
      await page.locator('#p1-description').fill('Take-home bread');
      await page.getByRole('button', { name: 'Save split' }).click();
      await page.waitForURL('**/expenses?notice=expense-split');
      assert.match(await listText(page), /Lunch with Ana ₱250\.00\s*[^·]*· Split ·/);

      // Home's category table counts the parts under their own categories.
      await page.goto(`${finance.baseURL}/?month=${month}`);
      const table = await page.locator('#spending-table tbody tr').evaluateAll((trs) =>
        trs.map((r) => [...r.children].map((c) => c.textContent.trim())));
      assert.deepEqual(table.filter(([c]) => ['Food & Dining', 'Groceries'].includes(c)).sort(),
        [['Food & Dining', '₱150.00'], ['Groceries', '₱165.00']]);

      // Edit one.
      await navLink(page, 'Expenses').click();
      await page.getByRole('link', { name: /^Edit Jeep/ }).click();
      await page.waitForURL('**/edit?back=*');
      assert.equal(await page.textContent('h1'), 'Edit expense');
      assert.equal(await page.locator('#amount').inputValue(), '30.00');
      await snap(page, 'record-7-edit', size.name);
      await page.locator('#amount').fill('35');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.waitForURL('**/expenses?notice=expense-updated');
      assert.match(await listText(page), /Jeep ₱35\.00/);
      await snap(page, 'record-8-edited', size.name);

      assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
    } finally {
      await context.close();
      await finance.stop();
    }
  });
}
