// Which browser and OS this is, from the user agent. A table, not a chain of ifs:
// the first row whose token appears wins, so more specific brands come first.
const BROWSERS = [
  { token: 'Edg/', name: 'Edge' },
  { token: 'OPR/', name: 'Opera' },
  { token: 'Vivaldi/', name: 'Vivaldi' },
  { token: 'Brave/', name: 'Brave' },
  { token: 'Firefox/', name: 'Firefox' },
  { token: 'HeadlessChrome/', name: 'Chromium' },
  { token: 'Chrome/', name: 'Chrome' },
];

const SYSTEMS = [
  { token: 'Windows', name: 'Windows' },
  { token: 'Mac OS X', name: 'macOS' },
  { token: 'Android', name: 'Android' },
  { token: 'CrOS', name: 'ChromeOS' },
  { token: 'Linux', name: 'Linux' },
];

export function parseUserAgent(ua, { brands = [], isBrave = false } = {}) {
  const row = BROWSERS.find((b) => ua.includes(b.token));
  let name = row?.name ?? 'unknown';
  const version = row ? (ua.split(row.token)[1] ?? '').split(/[ ;)]/)[0] : '';
  // Chromium and Chrome share a UA; the brand list (userAgentData) tells them apart.
  if (name === 'Chrome') {
    if (isBrave || brands.some((b) => b.brand === 'Brave')) name = 'Brave';
    else if (!brands.some((b) => b.brand === 'Google Chrome') && brands.some((b) => b.brand === 'Chromium')) name = 'Chromium';
  }
  const os = SYSTEMS.find((s) => ua.includes(s.token))?.name ?? 'unknown';
  return { browser: name, browser_version: version, os };
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

/** A browser family word for fixes ("restart Chrome"). */
export function isChromiumFamily(browser) {
  return ['Chrome', 'Chromium', 'Edge', 'Brave', 'Opera', 'Vivaldi'].includes(browser);
}
