// Headless Chromium reads a receipt photo on the Record page, at phone and
// at desktop size, each on a fresh server (tesseract on the PATH, as the
// server finds it by default): a file that is not an image is refused
// beside the file field and nothing is read; the receipt gives one draft
// (its total, date and merchant) for review; nothing is saved until Save
// all, and then the expense is on the Expenses list. Every page is
// screenshotted in light and dark and checked by the accessibility linter
// (see webapp-kit.mjs).
//
// fixtures/receipt.png is the sample receipt of package ai/aitest drawn by
// its ReceiptPNG (go test ./ai/aitest -update draws it again; the package's
// test checks that the committed file is what it draws).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, openContext, phone, refusedFormAt, setUp, shots, snap, navLink } from './webapp-kit.mjs';

const receipt = fileURLToPath(new URL('./fixtures/receipt.png', import.meta.url));

let browser;
let notImage;

before(async () => {
  browser = await launchBrowser();
  notImage = join(mkdtempSync(join(tmpdir(), 'finance-receipt-')), 'receipt.pdf');
  writeFileSync(notImage, '%PDF-1.7 not a photo of a receipt');
});

after(async () => {
  await browser?.close();
  console.log(`screenshots: ${shots}`);
});

for (const size of [phone, desktop]) {
  test(`read a receipt at ${size.name} size`, async () => {
    const finance = await startFinance();
    const { context, page, problems } = await openContext(browser, size, refusedFormAt('/record/receipt'));
    try {
      await setUp(page, finance);
      await navLink(page, 'Record').click();
      await page.waitForURL('**/record');
      const receiptBox = page.getByRole('region', { name: 'Read a receipt' });
      assert.match(await page.textContent('#images-hint'), /PNG, JPEG or WebP/, 'this server reads images');
      await snap(page, 'receipt-1-record', size.name);

      // Not an image: refused beside the field, the note kept, nothing read.
      await receiptBox.getByLabel('Photo of the receipt').setInputFiles(notImage);
      await receiptBox.getByLabel('Note').fill('Team lunch');
      await receiptBox.getByRole('button', { name: 'Read the receipt' }).click();
      await page.waitForSelector('#images-error');
      assert.equal(await page.textContent('#images-error'), 'Photo 1 must be a PNG, JPEG or WebP image.');
      assert.equal(await page.locator('#images').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.locator('#note').inputValue(), 'Team lunch');
      assert.match(await page.textContent('[role=alert]'), /Not read/);
      await snap(page, 'receipt-2-refused', size.name);

      // The receipt: one draft for review.
      await page.getByLabel('Photo of the receipt').setInputFiles(receipt);
      await page.getByRole('button', { name: 'Read the receipt' }).click();
      await page.waitForSelector('h1:text("Check the drafts")');
      assert.match(await page.textContent('#typed-heading'), /Read from your receipt/);
      assert.equal(await page.locator('.bulk-row').count(), 1);
      assert.equal(await page.locator('#r0-amount').inputValue(), '492.00');
      assert.equal(await page.locator('#r0-date').inputValue(), '2025-11-08');
      assert.equal(await page.locator('#r0-description').inputValue(), 'Jollibee Foods');
      assert.equal(await page.locator('#r0-category').inputValue(), 'Food & Dining');
      assert.equal(await page.locator('#r0-method').inputValue(), 'Cash');
      await snap(page, 'receipt-3-review', size.name);

      // Nothing is saved yet (the list, in another tab).
      const list = await context.newPage();
      await list.goto(`${finance.baseURL}/expenses`);
      assert.equal(await list.textContent('#list-heading'), 'No expenses');
      await list.close();

      // Fix the description, then save.
      await page.locator('#r0-description').fill('Jollibee team lunch');
      await page.getByRole('button', { name: 'Save all' }).click();
      await page.waitForURL('**/expenses?notice=expenses-recorded');
      assert.match(await page.textContent('[role=status]'), /The expenses have been recorded/);
      assert.match(await page.textContent('#list-heading'), /^1 expense · total ₱/);
      assert.match(await page.locator('main .list').textContent(), /Jollibee team lunch ₱492\.00/);
      await snap(page, 'receipt-4-expenses', size.name);

      assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
    } finally {
      await context.close();
      await finance.stop();
    }
  });
}
