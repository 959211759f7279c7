import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CHROMIUM_FAMILY, isChromiumFamily, parseUserAgent } from '../lib/environment.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../../tests/fixtures/user-agents.json', import.meta.url)));
const FAMILIES = JSON.parse(readFileSync(new URL('../../tests/fixtures/browser-families.json', import.meta.url)));

test('the shared user agents read as the fixture says (the host reads them so too)', () => {
  for (const { ua, brands, want } of FIXTURE.cases) {
    assert.deepEqual(parseUserAgent(ua, { brands: brands ?? [] }), want, ua);
  }
});

const UAS = {
  chromeHeadless: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
  chrome: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
  edge: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36 Edg/151.0.4129.59',
  firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:153.0) Gecko/20100101 Firefox/153.0',
  mac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
};

test('browsers and systems are recognised', () => {
  assert.deepEqual(parseUserAgent(UAS.chromeHeadless), { browser: 'Chromium', browser_version: '156.0.0.0', os: 'Linux' });
  assert.deepEqual(parseUserAgent(UAS.edge), { browser: 'Edge', browser_version: '151.0.4129.59', os: 'Windows' });
  assert.deepEqual(parseUserAgent(UAS.firefox), { browser: 'Firefox', browser_version: '153.0', os: 'Linux' });
  assert.equal(parseUserAgent(UAS.mac).os, 'macOS');
});

test('Chrome, Chromium and Brave share a UA; brands tell them apart', () => {
  assert.equal(parseUserAgent(UAS.chrome, { brands: [{ brand: 'Google Chrome' }, { brand: 'Chromium' }] }).browser, 'Chrome');
  assert.equal(parseUserAgent(UAS.chrome, { brands: [{ brand: 'Chromium' }] }).browser, 'Chromium');
  assert.equal(parseUserAgent(UAS.chrome, { isBrave: true }).browser, 'Brave');
});

test("the Chromium family is the installer's: every browser it knows, by the name it gives itself", () => {
  assert.ok(FAMILIES.browsers.some((b) => b.family === 'firefox'), 'the fixture has both families');
  for (const { key, calls_itself: name, family } of FAMILIES.browsers) {
    assert.equal(isChromiumFamily(name), family === 'chromium', `${key} (${name})`);
  }
  const chromium = new Set(FAMILIES.browsers.filter((b) => b.family === 'chromium').map((b) => b.calls_itself));
  assert.deepEqual([...CHROMIUM_FAMILY].sort(), [...chromium].sort(), 'no name the installer does not know');
});
