#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks for Unobserved, when it can:
#   ensure-deps.sh chromium        just Chromium (for the default suite)
#   ensure-deps.sh all             Chromium, Firefox ESR, WebKitGTK, NSS's certutil, Wine, Xvfb and xdotool, Node.js
#                                  and the npm dev tools
# Without root it installs nothing and prints the exact command to run instead.
set -euo pipefail
cd "$(dirname "$0")/.."

want="${1:-all}"
packages=()
have() { command -v "$1" >/dev/null 2>&1; }

[ -x /usr/lib/chromium/chromium ] || have chromium || packages+=(chromium)
have curl || packages+=(curl)
have hostname || packages+=(hostname)
# The emulated gigabit LAN (host/tests/browsers_lan.rs): ip netns, veth and tc.
{ have ip && have tc; } || packages+=(iproute2)
if [ "$want" = all ]; then
  have firefox-esr || have firefox || packages+=(firefox-esr)
  # install --local-https trusts its CA with NSS's certutil (tests/local_https.rs).
  have certutil || packages+=(libnss3-tools)
  # The Windows end-to-end test: Wine and the MinGW linker.
  have wine || packages+=(wine wine64)
  have x86_64-w64-mingw32-gcc || packages+=(gcc-mingw-w64-x86-64)
  # The real-input tests: a virtual display, a window manager, keys and screenshots.
  have Xvfb || packages+=(xvfb)
  have xdotool || packages+=(xdotool)
  have openbox || packages+=(openbox)
  have import || packages+=(imagemagick)
  # WebKit: MiniBrowser (run --browser webkit, serve's tests), WebKitWebDriver (the
  # observed-run control), zbarimg (decodes serve's QR code).
  ls /usr/lib/*/webkit2gtk-4.1/MiniBrowser >/dev/null 2>&1 || packages+=(libwebkit2gtk-4.1-0)
  have WebKitWebDriver || packages+=(webkit2gtk-driver)
  have zbarimg || packages+=(zbar-tools)
  have node || packages+=(nodejs)
  have npm || packages+=(npm)
fi

if [ ${#packages[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "==> installing ${packages[*]} (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${packages[@]}"
  elif have sudo && sudo -n true 2>/dev/null; then
    echo "==> installing ${packages[*]} (sudo apt-get)"
    sudo apt-get update -q
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${packages[@]}"
  else
    echo "Missing: ${packages[*]}" >&2
    echo "Install them with:  sudo apt-get install -y ${packages[*]}" >&2
    exit 1
  fi
fi

if [ "$want" = all ]; then
  if ! rustup target list --installed 2>/dev/null | grep -qx x86_64-pc-windows-gnu; then
    echo "==> adding the Rust target x86_64-pc-windows-gnu (for the Wine test)"
    rustup target add x86_64-pc-windows-gnu
  fi
  for tool in fmt clippy; do
    if ! cargo "$tool" --version >/dev/null 2>&1; then
      echo "cargo $tool is missing: install it with 'rustup component add ${tool/fmt/rustfmt}'" >&2
      exit 1
    fi
  done
  if [ ! -x node_modules/.bin/eslint ] || [ ! -x node_modules/.bin/web-ext ] || [ ! -x node_modules/.bin/esbuild ] || [ ! -d node_modules/tus-js-client ] || [ ! -d node_modules/happy-dom ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "==> installing npm dev tools (web-ext, eslint, puppeteer-core; esbuild and tus-js-client for the workload examples; happy-dom for the result view's DOM test)"
    npm ci --no-audit --no-fund
  fi
  # The example modules that import packages, bundled (examples/workloads/dist/, not committed).
  node scripts/build-workloads.mjs
fi
