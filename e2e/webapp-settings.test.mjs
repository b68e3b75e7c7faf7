// Headless Chromium walks the Settings pages on a fresh server at phone
// size: app settings (a refused due-soon window, then USD picked from the
// currency select and another date format, which Home then speaks), a new
// category used on Record, a budget on the Budgets page that Home shows, a profile picture
// upload (a PNG made here), and a password change (a wrong current password
// first), after which the user signs in with the new password and not the
// old one. Then every settings page at desktop
// width. Each page goes through snap() (light and dark screenshots, no
// sideways scrolling, no serious accessibility violation).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { startFinance } from './finance-server.mjs';
import { addBudget, desktop, launchBrowser, openContext, owner, phone, refusedFormAt, setUp, shots, snap, navLink, signOut } from './webapp-kit.mjs';

let finance, browser;
const newPassword = 'a new and longer passphrase';

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

/** A real PNG: size×size pixels of one RGB color. */
function png(size, [r, g, b]) {
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(size).fill([r, g, b]).flat())]);
  const pixels = deflateSync(Buffer.concat(Array(size).fill(row)));
  return Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), chunk('IHDR', header), chunk('IDAT', pixels),
    chunk('IEND', Buffer.alloc(0))]);
}

/** An ISO date as the "DD MMM YYYY" date format shows it. */
function ddMmmYyyy(iso) {
  const [y, m, d] = iso.split('-');
  const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `${d} ${months[Number(m) - 1]} ${y}`;
}

// The navigation's Settings link: on a phone it is behind More, hidden from the bar, yet marked current all the same.
const settingsLink = (page) => page.locator('nav[aria-label=Main] a[href="/settings"]');

async function signInWith(page, password) {
  await page.goto(`${finance.baseURL}/login`);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: /Sign in/ }).click();
}

test('settings on a phone: currency and date format, a category, a budget, a picture, a new password', async () => {
  const { context, page, problems } = await openContext(browser, phone,
    refusedFormAt('/settings/app', '/settings/password', '/login'));
  await setUp(page, finance);

  await navLink(page, 'Settings').click();
  await page.waitForURL('**/settings');
  assert.equal(await settingsLink(page).getAttribute('aria-current'), 'page');
  await snap(page, 'settings-1-hub');

  // App settings: the API's message beside the field, then saved.
  await page.getByRole('link', { name: /App settings/ }).click();
  await page.waitForURL('**/settings/app');
  await snap(page, 'settings-2-app');
  await page.getByLabel(/Due soon/).fill('40');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.waitForSelector('#due_soon_days-error');
  assert.equal(await page.textContent('#due_soon_days-error'), 'Due soon days must be an integer from 1 to 31');
  assert.equal(await page.getByLabel(/Due soon/).getAttribute('aria-invalid'), 'true');
  await snap(page, 'settings-2-app-refused');
  await page.getByLabel(/Due soon/).fill('7');
  await page.getByLabel(/Currency/).selectOption('USD');
  await page.getByLabel('Date format').selectOption('DD MMM YYYY');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await page.waitForURL('**/settings/app?notice=settings-saved');
  assert.equal(await page.getByLabel(/Currency/).inputValue(), 'USD');

  // A new category, offered on Record at once.
  await page.goto(`${finance.baseURL}/settings/categories`);
  await page.locator('#new-name').fill('Pets');
  await page.locator('#new-color').fill('#AA5500');
  await page.getByRole('button', { name: 'Add category' }).click();
  await page.waitForURL('**/settings/categories?notice=category-created');
  assert.match(await page.textContent('#expense-heading + ul'), /Pets/);
  await snap(page, 'settings-3-categories');

  await navLink(page, 'Record').click();
  await page.waitForURL('**/record');
  const today = await page.getByLabel('Date').inputValue();
  await page.locator('#amount').fill('1234.50');
  await page.getByLabel('Description').fill('Vet visit');
  await page.getByLabel('Category').selectOption('Pets');
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=*');
  // Home in dollars and in the new date format.
  const recent = await page.textContent('#recent-heading + ul');
  assert.match(recent, /Vet visit/);
  assert.match(recent, /-\$1,234\.50/);
  assert.ok(recent.includes(ddMmmYyyy(today)), `recent activity shows ${ddMmmYyyy(today)}: ${recent}`);
  assert.match(await page.textContent('.stats'), /\$1,234\.50/);

  // A budget on the new category, then Home measures it.
  await page.goto(`${finance.baseURL}/budgets`);
  await addBudget(page, 'Pets', '2000', '50');
  assert.match(await page.textContent('main'), /\$1,234\.50 spent of \$2,000\.00/);
  await navLink(page, 'Home').click();
  await page.waitForURL((u) => new URL(u).pathname === '/');
  const budgets = await page.locator('.budget-bars li').evaluateAll((items) => items.map((li) =>
    ['.what', '.spent', '.limit'].map((part) => li.querySelector(part).textContent.replace(/\s+/g, ' ').trim())));
  assert.deepEqual(budgets, [['Pets Near limit', '$1,234.50', '$2,000.00']]);

  // A profile picture, uploaded and shown (the CSP allows this site's images).
  await page.goto(`${finance.baseURL}/settings/profile`);
  const file = join(shots, 'settings-avatar.png');
  writeFileSync(file, png(48, [15, 118, 110]));
  await page.getByLabel(/Picture \(PNG/).setInputFiles(file);
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.waitForURL('**/settings/profile?notice=picture-changed');
  const avatar = page.getByRole('img', { name: 'Your profile picture' });
  assert.match(await avatar.getAttribute('src'), /^\/media\/profile-pictures\/[0-9a-f-]+\.png$/);
  await page.waitForFunction(() => document.querySelector('img.avatar')?.complete);
  assert.equal(await avatar.evaluate((img) => img.naturalWidth), 48, 'the picture loads');
  await snap(page, 'settings-5-profile');

  // The password: a wrong current one is refused beside its field; then changed, and this browser stays signed in.
  await page.goto(`${finance.baseURL}/settings/password`);
  await snap(page, 'settings-6-password');
  await page.getByLabel('Current password').fill('not the password');
  await page.getByLabel(/^New password \(/).fill(newPassword);
  await page.getByLabel('New password again').fill(newPassword);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.waitForSelector('#current_password-error');
  assert.equal(await page.textContent('#current_password-error'), 'Current password is not your current password');
  assert.equal(await page.getByLabel(/^New password \(/).inputValue(), '', 'passwords are not put back');
  await snap(page, 'settings-6-password-refused');
  await page.getByLabel('Current password').fill(owner.password);
  await page.getByLabel(/^New password \(/).fill(newPassword);
  await page.getByLabel('New password again').fill(newPassword);
  await page.getByRole('button', { name: 'Change password' }).click();
  await page.waitForURL('**/settings/password?notice=password-changed');
  assert.match(await page.textContent('[role=status]'), /You stay signed in here/);

  // Signed out, the old password no longer works and the new one does.
  await signOut(page);
  await signInWith(page, owner.password);
  await page.waitForSelector('[role=alert]');
  assert.match(await page.textContent('[role=alert]'), /Wrong email or password/);
  await signInWith(page, newPassword);
  await page.waitForURL((u) => new URL(u).pathname === '/');
  assert.match(await page.textContent('footer'), new RegExp(`Signed in as ${owner.email}`));

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
  await context.close();
});

test('every settings page at desktop width', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signInWith(page, newPassword);
  await page.waitForURL((u) => new URL(u).pathname === '/');
  for (const [path, name] of [['/settings', 'settings-1-hub'], ['/settings/app', 'settings-2-app'],
    ['/settings/categories', 'settings-3-categories'],
    ['/settings/profile', 'settings-5-profile'], ['/settings/password', 'settings-6-password'],
    ['/settings/api-keys', 'settings-7-api-keys'], ['/settings/connected-apps', 'settings-8-connected-apps'],
    ['/settings/messaging', 'settings-9-messaging'], ['/activity', 'settings-10-activity']]) {
    await page.goto(finance.baseURL + path);
    assert.equal(await settingsLink(page).getAttribute('aria-current'), 'page', path);
    await snap(page, name, desktop.name);
  }
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});

test('API keys, connected apps and messaging at phone width', async () => {
  const { context, page, problems } = await openContext(browser, phone);
  await signInWith(page, newPassword);
  await page.waitForURL((u) => new URL(u).pathname === '/');
  for (const [path, name] of [['/settings/api-keys', 'settings-7-api-keys'], ['/settings/connected-apps', 'settings-8-connected-apps'],
    ['/settings/messaging', 'settings-9-messaging']]) {
    await page.goto(finance.baseURL + path);
    await snap(page, name);
  }
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});

test('who did what: a key writes, its page shows its last writes, Activity lists them with the web app\'s', async () => {
  const { context, page, problems } = await openContext(browser, phone);
  await signInWith(page, newPassword);
  await page.waitForURL((u) => new URL(u).pathname === '/');

  await page.goto(`${finance.baseURL}/settings/api-keys`);
  await page.getByLabel('Name').fill('Home script');
  await page.locator('input[name=scopes][value="expenses:write"]').check();
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = (await page.locator('#new-key').inputValue()).trim();
  const res = await fetch(`${finance.baseURL}/api/v1/expenses`, {
    method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ amount: '350.00', date: '2026-11-20', description: 'Lunch from a script', category: 'Food & Dining',
      payment_method: 'Cash' }),
  });
  assert.equal(res.status, 201, await res.text());

  await page.goto(`${finance.baseURL}/settings/api-keys`);
  const item = page.locator('li.item').filter({ has: page.locator('p.item-title', { hasText: 'Home script' }) });
  await item.getByText('Last writes').click();
  assert.match(await item.innerText(), /Expense "Lunch from a script" 350\.00/);
  await snap(page, 'settings-7-api-keys-writes');
  await item.getByRole('link', { name: 'All its writes on the Activity page' }).click();
  await page.waitForURL('**/activity?actorId=*');
  const main = page.locator('main');
  assert.match(await main.innerText(), /1 entry/);
  assert.match(await main.innerText(), /Home script \(API key\)/);
  await snap(page, 'settings-10-activity-key');

  // From Settings, everyone's writes: the page's own (app settings, a category, a budget) as the web app.
  await page.goto(`${finance.baseURL}/settings`);
  await page.getByRole('link', { name: /Activity/ }).click();
  await page.waitForURL('**/activity');
  assert.match(await main.innerText(), /Lunch from a script/);
  await page.getByText('Filter', { exact: true }).first().click();
  await page.getByLabel('Who').selectOption('web');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL((u) => new URL(u).searchParams.get('actor') === 'web');
  const text = await main.innerText();
  assert.match(text, /App settings updated/);
  assert.doesNotMatch(text, /Lunch from a script/);
  await snap(page, 'settings-10-activity');
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
