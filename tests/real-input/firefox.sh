#!/usr/bin/env bash
# The README's Firefox steps, done with real keys under Xvfb and a window manager
# (Firefox's panels need one): install the host, start Firefox, allow unsigned add-ons in
# about:config, open the packed .xpi and click Add, pin it, open the popup with its
# shortcut and Run. Then restart Firefox, tick a registered module and the CPU-load box
# in the popup, and Run again: the add-on survived. Every check reads the store through
# the real binary.
#
#   tests/real-input/firefox.sh      (scripts/test-all.sh runs it; needs a debug build)
source "$(dirname "$0")/lib.sh" firefox

profile="$work/profile"
mkdir -p "$profile"
firefox=$("$bin" __find-browser firefox)
# Test hygiene only: the throwaway prefs that stop first-run pages and background
# traffic, minus the ones that would install the add-on for us (the test does that).
grep -v -E 'xpinstall|Scopes' "$repo/host/src/launch/firefox-prefs.js" >"$profile/user.js"

# README step 1: the host. Step 2: the package.
"$bin" install --browser firefox >"$work/install.log" 2>&1 || fail "install: $(cat "$work/install.log")"
"$bin" pack --out "$work/dist" >/dev/null 2>&1
xpi=$(ls "$work"/dist/unobserved-*-firefox-unsigned.xpi)
ok "install and pack"

start_firefox() {
  # Its own session: Firefox quitting must not take this script with it.
  setsid "$firefox" -profile "$profile" -no-remote about:blank >>"$work/browser.log" 2>&1 &
  browser_pid=$!
  focus_browser firefox
  sleep 2
}
open_popup() { focus_browser firefox; key alt+shift+u; sleep 1.5; }

# Step 3: start Firefox; allow unsigned add-ons (ESR, Developer Edition, Nightly).
start_firefox
key ctrl+l; type_text about:config; key Return
sleep 2
shot about-config-warning
key Return # "Accept the Risk and Continue" has the focus
sleep 1
type_text xpinstall.signatures.required
sleep 1
key Tab Tab space # past "Show only modified", onto the row's toggle
shot signatures-off
# Step 4: open the .xpi and click Add.
key ctrl+l; type_text "file://$xpi"; key Return
sleep 3
shot add-prompt
key alt+a
sleep 3
shot added
[ "$(grep -c '"id":"unobserved@unobserved.org"' "$profile/extensions.json" 2>/dev/null)" -ge 1 ] \
  || fail "the add-on is not in the profile's extensions.json"
ok "the unsigned .xpi installed after about:config"
# Step 5: tick "Pin extension to toolbar" in the "was added" message, then OK. The
# message takes no keyboard focus, so these are mouse clicks, at the places Firefox ESR
# 153 draws them on this fixed 1280x900 display (checked after the restart below).
xdotool mousemove --sync 881 188; sleep 0.3; xdotool click 1
sleep 0.5
shot pin-ticked
xdotool mousemove --sync 1232 230; sleep 0.3; xdotool click 1
sleep 1
shot welcome-page

# A run from the popup; with a second argument, the first registered workload module is
# ticked first and its arm must be intact, with its SHA-256; with a third, the load box
# too (Firefox has no Control button or debugger link: Tab from Run to the load box,
# Space, Tab to the module's box, Space, back to Run), and the run must have measured
# blocks quiet and with the host's CPU load, every comparison with a verdict in each.
# Unticked, the box sends no loads. Both ride on the same default run: it runs to its
# 60 s budget either way.
run_and_check() {
  local before run
  before=$(count_runs)
  open_popup
  if [ -n "${2:-}" ]; then
    sleep 2 # the popup asks the host for its registered modules
    if [ -n "${3:-}" ]; then
      key Tab space
      shot "popup-load-ticked-$1"
      key Tab space
    else
      key Tab Tab space
    fi
    shot "popup-module-ticked-$1"
    key shift+Tab shift+Tab
  fi
  shot "popup-$1"
  key Return # Run has the focus
  run=$(wait_for_run "$before")
  if [ -n "${2:-}" ]; then
    [ "$(field "$run" arms.mine)" = ok ] || fail "the module ticked in the popup is not in the run, or not intact: $run"
    [ "$(field "$run" modules.mine)" = "$2" ] || fail "the run did not record the module's SHA-256 $2: $run"
    ok "a registered module ticked in Firefox's popup by keys ran as an arm, intact, with its SHA-256 on record"
  fi
  if [ -n "${3:-}" ]; then
    [ "$(field "$run" loads)" = none,cpu ] || fail "the load box did not send the plan's loads: $run"
    [ "$(field "$run" block_loads)" = cpu,none ] || fail "the run did not measure blocks under both loads: $run"
    [ "$(field "$run" per_condition)" -ge 1 ] && [ "$(field "$run" condition_verdicts)" = cpu,none ] \
      || fail "not every comparison has a verdict in each condition: $run"
    ok "the load box ticked in Firefox's popup by keys: blocks quiet and with the CPU load, every comparison ($(field "$run" per_condition)) with a verdict in each condition"
  else
    [ -z "$(field "$run" loads)" ] || fail "the load box, unticked, sent loads: $run"
  fi
  [ "$(field "$run" status)" = complete ] || fail "$1 run: $run"
  [ "$(field "$run" observed)" = no ] || fail "a real-input run must be unobserved: $run"
  [ "$(field "$run" arms.Uint8Array)" = ok ] || fail "Uint8Array not intact: $run"
  # Firefox uploads the text of a stream body; the run must say so, not hide it.
  [ "$(field "$run" arms.ReadableStream)" = corrupted ] || fail "ReadableStream should be corrupted in Firefox: $run"
  sleep 2
  shot "summary-$1"
  open_popup
  shot "popup-result-$1"
  key Escape
  ok "Run from the popup ($1): complete, observed no, Uint8Array intact, ReadableStream caught as corrupted"
}
run_and_check first

# The install survives a restart (a temporary add-on would not).
focus_browser firefox
key ctrl+q
sleep 1
shot quit-dialog
key Return # "Quit Firefox" has the focus
sleep 3
for _ in $(seq 100); do kill -0 "$browser_pid" 2>/dev/null || break; sleep 0.2; done
kill -0 "$browser_pid" 2>/dev/null && fail "Firefox did not quit on Ctrl+Q"
# Firefox wrote its toolbar layout on quit: the button is in the toolbar itself.
grep -o '\\"nav-bar\\":\[[^]]*\]' "$profile/prefs.js" | grep -q 'unobserved_unobserved_org-browser-action' \
  || fail "the button was not pinned to the toolbar"
ok "pinned to the toolbar from the \"was added\" message"
# A workload module registered while Firefox was closed: the popup lists it (the host
# names it at hello), and the run after the restart takes it as an arm.
"$bin" workload add mine "$repo/examples/workloads/fetch-blob.mjs" >"$work/workload.log" 2>&1 \
  || fail "workload add: $(cat "$work/workload.log")"
start_firefox
run_and_check after-restart "$(sha256sum "$repo/examples/workloads/fetch-blob.mjs" | cut -d' ' -f1)" load
