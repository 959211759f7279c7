#!/usr/bin/env bash
# The everyday Chromium flow as a person does it, with real keys under Xvfb: install the
# host for a profile, load the control build, open the popup with its shortcut, Run,
# reopen the popup, Control, then Options > Save > Run with the new size, then local
# HTTPS and a run over h2. Every check reads the store through the real binary.
#
#   tests/real-input/chromium.sh     (scripts/test-all.sh runs it; needs a debug build)
source "$(dirname "$0")/lib.sh" chromium

profile="$work/profile"
mkdir -p "$profile"
chromium=$("$bin" __find-browser chromium)

# README: pack the control build, register the host for this profile.
"$bin" pack --out "$work/dist" --with-control >/dev/null 2>&1
"$bin" install --browser chromium --profile "$profile" >"$work/install.log" 2>&1 || fail "install: $(cat "$work/install.log")"
ok "install --profile registered the host in the profile"

args=(--user-data-dir="$profile" --load-extension="$work/dist/chromium-control" --no-first-run
  --no-default-browser-check --disable-background-networking --disable-component-update
  --disable-sync --disable-gpu --window-size=1200,850 --window-position=0,0)
[ "$(id -u)" = 0 ] && args+=(--no-sandbox)
"$chromium" "${args[@]}" about:blank >"$work/browser.log" 2>&1 &
browser_pid=$!
focus_browser chromium
sleep 3
shot welcome-page

open_popup() { focus_browser chromium; key alt+shift+u; sleep 1.5; }

# 1. Run with the defaults.
before=$(count_runs)
open_popup
shot popup-open
key Return # Run has the focus
sleep 2
shot running
run=$(wait_for_run "$before")
[ "$(field "$run" status)" = complete ] || fail "run: $run"
[ "$(field "$run" observed)" = no ] || fail "a real-input run must be unobserved: $run"
[ "$(field "$run" size)" = 33554432 ] || fail "default size: $run"
[ "$(field "$run" arms.Uint8Array)" = ok ] || fail "Uint8Array not intact: $run"
[ "$(field "$run" auto_seconds)" = 60 ] && [ -n "$(field "$run" auto_stop)" ] || fail "the default run was not auto-sampled, or did not say why it stopped: $run"
ok "Run from the popup: complete, observed no, 32 MiB, intact, auto-sampled ($(field "$run" auto_stop))"
sleep 2
shot summary-tab
open_popup
shot popup-result
key Escape

# 2. Options > Save, then Run with the new size, and the benchmark tab set to close and
#    bring back the tab the run started from.
before=$(count_runs)
open_popup
key shift+Tab Return # the Options link, just before Run
sleep 2
shot options
key ctrl+a; type_text 4 # the size field has the focus
key Tab ctrl+a; type_text 4
# Past the auto-sampling box to its budget: 5 seconds keeps the later runs short.
key Tab Tab ctrl+a; type_text 5
# Past warm-up, the four body kinds, the three transports, the sink URL and the load box
# to the after-run choice; Down picks "go back to the tab I was on"; Tab to Save.
key Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab Down Tab Return
sleep 1
shot options-saved
open_popup
key Return
run=$(wait_for_run "$before")
[ "$(field "$run" size)" = 4194304 ] && [ "$(field "$run" reps)" = 4 ] && [ "$(field "$run" auto_seconds)" = 5 ] || fail "Options were not used: $run"
[ "$(field "$run" status)" = complete ] || fail "run after Options: $run"
ok "Options > Save > Run used 4 MiB x 4 reps, then auto-sampled for up to 5 s"
sleep 2
shot after-options-run
# The window's title is its active tab's: the options tab is back, not the summary.
title=$(xdotool getactivewindow getwindowname)
case "$title" in "Unobserved options"*) ;; *) fail "after the run the active tab is \"$title\", not the options tab it started from" ;; esac
ok "the benchmark tab closed and the tab the run started from is active again"

# 3. Control: Tab from Run to Control.
before=$(count_runs)
open_popup
key Tab Return
sleep 2
shot control-running
run=$(wait_for_run "$before" 300)
[ "$(field "$run" control)" = true ] || fail "Control did not start a control run: $run"
[ "$(field "$run" status)" = complete ] || fail "control run: $run"
[ "$(field "$run" observed)" = yes ] || fail "a control run attaches a debugger, so it is observed: $run"
ok "Control from the popup: a complete control run, flagged observed"
sleep 2
open_popup
shot popup-control-result
key Escape

# 3b. The popup's load tick box, past Run and Control: the run takes turns, blocks
#     quiet and with the host's CPU load, and stores both conditions.
before=$(count_runs)
open_popup
key Tab Tab space
shot popup-load-ticked
key shift+Tab shift+Tab Return
run=$(wait_for_run "$before" 300)
[ "$(field "$run" status)" = complete ] || fail "run with the load box ticked: $run"
[ "$(field "$run" loads)" = none,cpu ] || fail "the load box did not send the plan's loads: $run"
[ "$(field "$run" block_loads)" = cpu,none ] || fail "the run did not measure blocks under both loads: $run"
[ "$(field "$run" per_condition)" -ge 1 ] && [ "$(field "$run" condition_verdicts)" = cpu,none ] \
  || fail "not every comparison has a verdict in each condition: $run"
ok "the popup's load box: blocks quiet and with the CPU load, each comparison with a verdict per condition"
sleep 1
open_popup
shot popup-load-result
key Escape

# 4. Local HTTPS, as docs/transports.md "Local HTTPS in your everyday browser" says: install it,
#    restart the browser, tick h2 under Options, Run. A ReadableStream then travels over
#    HTTP/2 to the host's TLS sink, whose certificate this profile trusts only through
#    the local CA in this HOME's NSS database (no certificate flag on the command line).
"$bin" install --browser chromium --profile "$profile" --local-https >"$work/install-https.log" 2>&1 \
  || fail "install --local-https: $(cat "$work/install-https.log")"
kill "$browser_pid"; wait "$browser_pid" 2>/dev/null || true
"$chromium" "${args[@]}" about:blank >>"$work/browser.log" 2>&1 &
browser_pid=$!
focus_browser chromium
sleep 2
before=$(count_runs)
open_popup
key shift+Tab Return # Options
sleep 2
# From the size field past reps, the auto box and budget, warm-up, the four body kinds,
# h1 and h1-tls to h2.
key Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab Tab space
shot options-h2
# The sink URL, then the load box the popup ticked: untick it; the after-run choice, Save.
key Tab Tab space Tab Tab Return
sleep 1
open_popup
key Return
run=$(wait_for_run "$before")
[ "$(field "$run" status)" = complete ] || fail "run over h1 and h2: $run"
[ "$(field "$run" "arms.ReadableStream h2")" = ok ] || fail "ReadableStream over h2 did not arrive intact: $run"
[ "$(field "$run" "arms.ReadableStream h1")" = unsupported ] || fail "ReadableStream over h1: $run"
[ -z "$(field "$run" loads)" ] || fail "Options' load box, unticked, still sent loads: $run"
ok "local HTTPS: Options h1+h2 > Run, the ReadableStream arrives intact over h2"
sleep 1
open_popup
shot popup-h2-result
key Escape

# 5. Workload modules registered with `unobserved workload add` (docs/workloads.md). The
#    popup lists them as arms to tick: Tab from Run past Control to the load box, Space
#    ticks it again (step 4's Options unticked it); on past the debugger link to the first
#    module's box, Space ticks it (each saved at once). The Options tab of step 4, open
#    since before `workload add` and drawn with the load box unticked, is the active one
#    again and stays open: it draws the modules when the popup asks the host for them, and
#    the popup's ticks when they are stored. Its keyboard focus is back on Save, where step
#    4 left it: back past the after-run choice, the load box, the sink URL and the three
#    transports to the second box, Space; forward to Save, Return (its Save keeps the
#    popup's ticks, the load box's among them). Then Run: the run has both modules' arms,
#    intact, the SHA-256 of each file it ran, and the loads the popup ticked.
"$bin" workload add mine "$repo/examples/workloads/fetch-blob.mjs" >"$work/workload.log" 2>&1 \
  || fail "workload add: $(cat "$work/workload.log")"
"$bin" workload add mine2 "$repo/examples/workloads/xhr-progress.mjs" >>"$work/workload.log" 2>&1 \
  || fail "workload add: $(cat "$work/workload.log")"
sha=$(sha256sum "$repo/examples/workloads/fetch-blob.mjs" | cut -d' ' -f1)
sha2=$(sha256sum "$repo/examples/workloads/xhr-progress.mjs" | cut -d' ' -f1)
before=$(count_runs)
open_popup
sleep 2 # the popup asks the host for its registered modules
key Tab Tab space
key Tab Tab space
shot popup-module-ticked
key Escape
sleep 1
shot options-module-redrawn
key shift+Tab shift+Tab shift+Tab shift+Tab shift+Tab shift+Tab shift+Tab space
shot options-module-ticked
key Tab Tab Tab Tab Tab Tab Tab Return
sleep 1
shot options-module-saved
open_popup
key Return
run=$(wait_for_run "$before")
[ "$(field "$run" status)" = complete ] || fail "run with registered modules: $run"
[ "$(field "$run" arms.mine)" = ok ] || fail "the module ticked in the popup is not in the run, or not intact: $run"
[ "$(field "$run" arms.mine2)" = ok ] || fail "the module ticked in Options is not in the run, or not intact: $run"
[ "$(field "$run" modules.mine)" = "$sha" ] && [ "$(field "$run" modules.mine2)" = "$sha2" ] \
  || fail "the run did not record the modules' SHA-256s $sha, $sha2: $run"
ok "registered modules ticked by keys, one in the popup and one in the Options tab open since before they were added, ran as arms, intact, with their SHA-256s on record"
[ "$(field "$run" loads)" = none,cpu ] && [ "$(field "$run" block_loads)" = cpu,none ] \
  || fail "the Options tab open since step 4 saved its load box over the popup's tick: $run"
ok "the load box ticked in the popup meanwhile survived the Save of the Options tab that was already open"
sleep 1
open_popup
shot popup-module-result
key Escape
