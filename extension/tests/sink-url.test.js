import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { geckoUpgradesToHttps, parseSinkUrl, sinkHostPermission, sinkTransport } from '../lib/sink-url.js';

// The host reads the same cases (host/src/domain/sink_url.rs).
const FIXTURE = JSON.parse(readFileSync(new URL('../../tests/fixtures/sink-urls.json', import.meta.url), 'utf8'));

test("a sink URL is what the host's SinkUrl takes, case by case", () => {
  for (const { url } of FIXTURE.sinks) assert.ok(parseSinkUrl(url), url);
  for (const url of FIXTURE.not_sinks) assert.equal(parseSinkUrl(url), null, url);
});

test('its transport and host permission are the host\'s', () => {
  for (const { url, transport, host_permission: permission } of FIXTURE.sinks) {
    assert.equal(sinkTransport(url), transport, url);
    assert.equal(sinkHostPermission(url), permission, url);
  }
  for (const url of FIXTURE.not_sinks) assert.equal(sinkTransport(url), null, url);
});

test("the host's upload URL is the one the browser's own parser requests", () => {
  for (const { url, upload_url: upload } of FIXTURE.sinks) {
    const parsed = parseSinkUrl(url);
    parsed.hash = '';
    assert.equal(parsed.href, upload, url);
  }
});

test("Firefox's upgrade of a plain sink off loopback is the host's rule, case by case", () => {
  for (const { url, gecko_upgrades_to_https: upgraded } of FIXTURE.sinks) {
    assert.equal(typeof upgraded, 'boolean', url);
    assert.equal(geckoUpgradesToHttps(url), upgraded, url);
  }
  for (const url of FIXTURE.not_sinks) assert.equal(geckoUpgradesToHttps(url), false, url);
});
