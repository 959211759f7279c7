# Shared by the real-input tests: a headed browser on a virtual X display with a window
# manager, driven only by X11 keys and clicks (xdotool). No CDP, no WebDriver, no
# Marionette, no automation flag: the browser cannot tell this from a person.
# Each test keeps its temp dir (screenshots, logs, the store) and prints where it is.

set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin="$repo/target/debug/unobserved"
[ -x "$bin" ] || { echo "build first: cargo build" >&2; exit 1; }
for tool in Xvfb openbox xdotool import node; do
  command -v "$tool" >/dev/null || { echo "missing $tool: scripts/ensure-deps.sh all installs it" >&2; exit 1; }
done

work=$(mktemp -d "/tmp/unobserved-real-input-$1-XXXXXX")
shots="$work/screenshots"
mkdir -p "$shots" "$work/home"
export HOME="$work/home" UNOBSERVED_STATE_DIR="$work/state" MOZ_CRASHREPORTER_DISABLE=1
step=0
passed=0

# A free display number, so parallel runs and a developer's own X server are left alone.
display=99
while [ -e "/tmp/.X11-unix/X$display" ] || [ -e "/tmp/.X$display-lock" ]; do display=$((display + 1)); done
export DISPLAY=":$display"
Xvfb "$DISPLAY" -screen 0 1280x900x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb=$!
for _ in $(seq 50); do xdotool getdisplaygeometry >/dev/null 2>&1 && break; sleep 0.1; done
openbox >"$work/openbox.log" 2>&1 &
browser_pid=
cleanup() {
  local rc=$?
  [ -n "$browser_pid" ] && kill "$browser_pid" 2>/dev/null
  sleep 1
  kill "$xvfb" 2>/dev/null || true
  if [ "$rc" = 0 ]; then echo "ok: $passed checks; screenshots in $shots"
  else echo "FAILED (exit $rc); screenshots, browser log and store in $work" >&2; fi
}
trap cleanup EXIT

fail() { echo "FAIL $*" >&2; shot "failure"; exit 1; }
ok() { passed=$((passed + 1)); echo "ok   $*"; }
shot() { step=$((step + 1)); import -window root "$shots/$(printf %02d "$step")-$1.png" 2>/dev/null || true; }
key() { xdotool key --clearmodifiers "$@"; sleep 0.4; }
type_text() { xdotool type --delay 20 "$1"; sleep 0.3; }

# Waits for a window of the browser to show, then focuses it.
focus_browser() {
  local class=$1 win
  for _ in $(seq 150); do
    win=$(xdotool search --onlyvisible --class "$class" 2>/dev/null | tail -1) && [ -n "$win" ] && break
    sleep 0.2
  done
  [ -n "${win:-}" ] || fail "no $class window appeared"
  xdotool windowactivate --sync "$win" 2>/dev/null || xdotool windowfocus --sync "$win"
  sleep 0.5
}

# The stored runs that have ended, as JSON lines: id, status, observed, size, reps,
# control, the auto budget and why it stopped, the plan's loads, the loads its blocks ran
# under, how many comparisons are given per condition, the loads in which each comparison
# has a verdict of its own (the distinct sets, `;`-joined: "cpu,none" when every
# comparison has one in both), and per-arm integrity.
ended_runs() {
  "$bin" report --format json 2>/dev/null | node -e '
    let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => {
      const r = s.trim() ? JSON.parse(s) : { runs: [] };
      for (const x of r.runs) if (x.run.status !== "running") console.log(JSON.stringify({
        id: x.run.run_id, status: x.run.status, observed: x.run.observed,
        size: x.run.plan?.size_bytes, reps: x.run.plan?.reps, control: Boolean(x.run.plan?.control),
        auto_seconds: x.run.plan?.auto?.max_seconds ?? null, auto_stop: x.run.auto_stop ?? null,
        modules: Object.fromEntries((x.run.plan?.modules ?? []).map((m) => [m.name, m.sha256])),
        loads: (x.run.plan?.loads ?? []).join(","),
        block_loads: [...new Set((x.run.blocks ?? []).map((b) => b.load))].sort().join(","),
        per_condition: (x.comparisons ?? []).filter((c) => (c.parts ?? []).some((p) => p.of === "condition")).length,
        condition_verdicts: [...new Set((x.comparisons ?? []).map((c) => (c.parts ?? [])
          .filter((p) => p.of === "condition" && typeof p.verdict === "string").map((p) => p.condition.load).sort().join(",")))].join(";"),
        arms: Object.fromEntries(x.summary.map((a) => [a.arm.label, Object.keys(a.statuses).join("+")])) }));
    });'
}

# Waits until one more run has ended than `before`, and prints it.
wait_for_run() {
  local before=$1 limit=${2:-240} runs
  for _ in $(seq "$limit"); do
    runs=$(ended_runs)
    if [ "$(printf '%s' "$runs" | grep -c .)" -gt "$before" ]; then printf '%s\n' "$runs" | tail -1; return; fi
    sleep 1
  done
  fail "no run ended within ${limit}s"
}
count_runs() { ended_runs | grep -c . || true; }
field() { node -e 'const r = JSON.parse(process.argv[1]); const v = process.argv[2].split(".").reduce((o, k) => o?.[k], r); console.log(v ?? "")' "$1" "$2"; }
