// Headless Chromium sets up reminders on a fresh server whose scheduler
// passes every second: the Reminders page under Settings refuses a bill
// window out of range (naming the field, keeping what was typed), then saves
// reminders on with the weekly digest set to today at 00:00 and no quiet
// hours; the server's next pass claims the digest, and Home and the
// Reminders page show it (no chat is linked: shown here only). Phone and
// desktop width, each page through snap() (light and dark screenshots, no
// sideways scrolling, no serious accessibility violation).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, openContext, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

let finance, browser;

before(async () => {
  finance = await startFinance(['--reminder-interval', '1s']);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

// Today's day of the week in Manila, the user's timezone, as the form names it.
const weekday = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Manila', weekday: 'long' }).format(new Date()).toLowerCase();

test('reminders: preferences saved, a refused form, the digest on Home', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/settings/reminders'));
  await setUp(page, finance);
  await page.goto(`${finance.baseURL}/settings`);
  await page.getByRole('link', { name: /Reminders/ }).click();
  await page.waitForURL('**/settings/reminders');
  assert.equal(await page.getByLabel('Send me reminders').isChecked(), false, 'reminders are off until turned on');
  await page.getByText('No reminders yet.').waitFor();
  await snap(page, 'reminders', 'phone');

  await page.getByLabel('Send me reminders').check();
  await page.getByLabel(/^Bills/).fill('40');
  await page.getByRole('button', { name: 'Save reminders' }).click();
  await page.getByText('Bills must be an integer from 0 to 31').waitFor();
  assert.equal(await page.getByLabel(/^Bills/).inputValue(), '40', 'the refused form keeps what was typed');
  await snap(page, 'reminders-refused', 'phone');

  await page.getByLabel(/^Bills/).fill('3');
  await page.locator('select[name=digest_day]').selectOption(weekday);
  await page.locator('select[name=digest_hour]').selectOption('0');
  await page.locator('input[name=quiet_start]').fill('');
  await page.locator('input[name=quiet_end]').fill('');
  await page.getByRole('button', { name: 'Save reminders' }).click();
  await page.waitForURL('**/settings/reminders?notice=settings-saved');
  assert.equal(await page.getByLabel('Send me reminders').isChecked(), true);
  assert.equal(await page.locator('input[name=quiet_start]').inputValue(), '', 'no quiet hours');

  // The scheduler's next pass claims this week's digest: Home shows it.
  for (;;) {
    await page.goto(`${finance.baseURL}/`);
    if (await page.locator('#reminders-heading').count()) break;
    await page.waitForTimeout(200);
  }
  await page.getByText(/Week digest: spent ₱0\.00 this month/).waitFor();
  await page.getByText('shown here only').waitFor();
  await snap(page, 'home-reminders', 'phone');
  assert.deepEqual(problems, []);
  await context.close();

  const wide = await openContext(browser, desktop);
  await signIn(wide.page, finance);
  await snap(wide.page, 'home-reminders', 'desktop');
  await wide.page.goto(`${finance.baseURL}/settings/reminders`);
  await wide.page.getByText(/Week digest: spent/).waitFor();
  await snap(wide.page, 'reminders', 'desktop');
  assert.deepEqual(wide.problems, []);
  await wide.context.close();
});
