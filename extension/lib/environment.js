// Which browser and OS this is, from the user agent. A table, not a chain of ifs:
// the first row whose token appears wins, so more specific brands come first.
// host/src/serve/user_agent.rs reads user agents the same way (for pages of
// `unobserved serve`); tests/fixtures/user-agents.json holds both to it.
// `versionAfter`: where the version is, when not after the token (Safari's Version/).
const BROWSERS = [
  { token: 'Edg/', name: 'Edge' },
  { token: 'EdgiOS/', name: 'Edge' },
  { token: 'OPR/', name: 'Opera' },
  { token: 'Vivaldi/', name: 'Vivaldi' },
  { token: 'Brave/', name: 'Brave' },
  { token: 'Firefox/', name: 'Firefox' },
  { token: 'FxiOS/', name: 'Firefox' },
  { token: 'HeadlessChrome/', name: 'Chromium' },
  { token: 'CriOS/', name: 'Chrome' },
  { token: 'Chrome/', name: 'Chrome' },
  { token: 'Epiphany/', name: 'GNOME Web' },
  { token: 'Safari/', name: 'Safari', versionAfter: 'Version/' },
];

const SYSTEMS = [
  { token: 'iPhone', name: 'iOS' },
  { token: 'iPad', name: 'iPadOS' },
  { token: 'Windows', name: 'Windows' },
  { token: 'Mac OS X', name: 'macOS' },
  { token: 'Android', name: 'Android' },
  { token: 'CrOS', name: 'ChromeOS' },
  { token: 'Linux', name: 'Linux' },
];

export function parseUserAgent(ua, { brands = [], isBrave = false } = {}) {
  const row = BROWSERS.find((b) => ua.includes(b.token));
  let name = row?.name ?? 'unknown';
  let version = row ? (ua.split(row.versionAfter ?? row.token)[1] ?? '').split(/[ ;)]/)[0] : '';
  // Chromium and Chrome share a UA; the brand list (userAgentData) tells them apart.
  if (name === 'Chrome') {
    if (isBrave || brands.some((b) => b.brand === 'Brave')) name = 'Brave';
    else if (!brands.some((b) => b.brand === 'Google Chrome') && brands.some((b) => b.brand === 'Chromium')) name = 'Chromium';
  }
  const os = SYSTEMS.find((s) => ua.includes(s.token))?.name ?? 'unknown';
  // Safari's tokens on Linux are WebKitGTK (MiniBrowser, GNOME Web), with a made-up
  // Safari version.
  if (name === 'Safari' && os === 'Linux') {
    name = 'WebKitGTK';
    version = '';
  }
  return { browser: name, browser_version: version, os };
}

/**
 * Whether this extension runs in Firefox (Gecko): only it has runtime.getBrowserInfo.
 * Its extension pages upgrade plain http:// off loopback to https:// (sink-url.js).
 */
export function isGecko(api) {
  return typeof api?.runtime?.getBrowserInfo === 'function';
}

/** Browser facts from inside any extension context. */
export async function describeBrowser(api) {
  if (api.runtime.getBrowserInfo) {
    const info = await api.runtime.getBrowserInfo();
    const os = parseUserAgent(navigator.userAgent).os;
    return { browser: info.name, browser_version: info.version, os };
  }
  const facts = parseUserAgent(navigator.userAgent, {
    brands: navigator.userAgentData?.brands ?? [],
    isBrave: Boolean(navigator.brave),
  });
  // Chromium's UA string says 156.0.0.0; the full version needs a high-entropy hint.
  try {
    const hints = await navigator.userAgentData?.getHighEntropyValues(['fullVersionList']);
    const full = hints?.fullVersionList?.find((b) => /Chrom|Edge|Brave|Opera|Vivaldi/.test(b.brand));
    if (full?.version) facts.browser_version = full.version;
  } catch {
    // keep the reduced version
  }
  return facts;
}

/**
 * The Chromium family, by the names browsers give themselves: the installer's table
 * (installer/src/browsers.rs) is the source, through tests/fixtures/browser-families.json.
 */
export const CHROMIUM_FAMILY = Object.freeze(['Chrome', 'Chromium', 'Edge', 'Brave', 'Opera', 'Vivaldi']);

/** Whether this browser is of the Chromium family (its fixes: "restart Chrome", the debugger control). */
export function isChromiumFamily(browser) {
  return CHROMIUM_FAMILY.includes(browser);
}
