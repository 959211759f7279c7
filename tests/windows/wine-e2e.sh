#!/usr/bin/env bash
# Windows, really executed: the cross-built unobserved.exe under Wine, in a throwaway
# WINEPREFIX. Install then doctor then uninstall (registry and files exactly as before),
# --system into HKLM, a foreign registry value kept unless --force (and restored), the
# native hello over pipes, a run recorded in %LOCALAPPDATA%\unobserved, and an upload to
# the Windows sink verified by hash from the Linux side.
#
#   tests/windows/wine-e2e.sh        (scripts/test-all.sh runs it; ensure-deps installs
#                                     wine64, gcc-mingw-w64-x86-64 and the Rust target)
set -euo pipefail
cd "$(dirname "$0")/../.."

target=x86_64-pc-windows-gnu
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
echo "==> cross-building unobserved.exe ($target, release)"
cargo build --release --target "$target" -p unobserved --quiet

work=$(mktemp -d /tmp/unobserved-wine-XXXXXX)
# No Mono or Gecko prompts; our ProcessPrng stand-in (below) before any builtin.
export WINEPREFIX="$work/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=;bcryptprimitives=n,b"
cleanup() { wineserver -k 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cp "target/$target/release/unobserved.exe" "$work/"
exe="$work/unobserved.exe"
echo "==> a fresh Wine prefix"
wineboot -i >/dev/null 2>&1 || true
# Test setup only: Wine 8 lacks ProcessPrng, which Rust's std imports on Windows. The
# stand-in goes in the prefix's system32, so the copy `install` makes finds it too.
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  tests/windows/bcryptprimitives-shim.c -ladvapi32
localappdata=$(winepath -u "$(wine cmd /c echo %LOCALAPPDATA% 2>/dev/null | tr -d '\r')")

passed=0
failed=0
check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
  fi
}

u() { wine "$exe" "$@"; }
key_chrome='Software\Google\Chrome\NativeMessagingHosts\org.unobserved.host'
key_edge='Software\Microsoft\Edge\NativeMessagingHosts\org.unobserved.host'
key_firefox='Software\Mozilla\NativeMessagingHosts\org.unobserved.host'
# The default value of a key, or nothing when the key is absent.
reg_value() { wine reg query "$1" /ve 2>/dev/null | tr -d '\r' | awk -F'REG_SZ' 'NF > 1 { sub(/^[ \t]+/, "", $2); print $2 }'; }
# Everything the test looks at: the three keys in both hives, and the files.
snapshot() {
  for hive in HKCU HKLM; do
    for k in "$key_chrome" "$key_edge" "$key_firefox"; do
      echo "$hive\\$k = $(reg_value "$hive\\$k")"
    done
  done
  (cd "$localappdata" && find . -path ./unobserved/unobserved.log -prune -o -print | LC_ALL=C sort)
}

before=$(snapshot)

# --- install, doctor, uninstall -----------------------------------------------------
check "install for chrome, edge and firefox exits 0" \
  u install --browser chrome --browser edge --browser firefox
check "HKCU keys point at manifests in %LOCALAPPDATA%\\unobserved" \
  bash -c '[[ "$1" == *'"'"'AppData\Local\unobserved\'"'"'* ]] && [[ "$2" == *unobserved* ]] && [[ "$3" == *unobserved* ]]' _ \
  "$(reg_value "HKCU\\$key_chrome")" "$(reg_value "HKCU\\$key_edge")" "$(reg_value "HKCU\\$key_firefox")"
check "the manifest the Chrome key names exists and names the host" \
  grep -q '"name": *"org.unobserved.host"' "$(winepath -u "$(reg_value "HKCU\\$key_chrome")")"
check "doctor is all green (a real hello from the installed host)" u doctor
check "uninstall exits 0" u uninstall
check "registry and files are exactly as before install" \
  bash -c '[ "$1" == "$2" ] || { diff <(echo "$1") <(echo "$2"); false; }' _ "$before" "$(snapshot)"

# --- --system writes HKLM -------------------------------------------------------------
check "install --system exits 0" u install --system --browser chrome
check "--system writes HKLM, not HKCU" \
  bash -c '[ -n "$1" ] && [ -z "$2" ]' _ "$(reg_value "HKLM\\$key_chrome")" "$(reg_value "HKCU\\$key_chrome")"
check "uninstall --system removes it" \
  bash -c 'wine "$0" uninstall --system >/dev/null && [ -z "$(wine reg query "HKLM\\$1" /ve 2>/dev/null | tr -d "\r" | grep REG_SZ)" ]' "$exe" "$key_chrome"

# --- a foreign value is kept unless --force, and restored -----------------------------
wine reg add "HKCU\\$key_chrome" /ve /d 'C:\other\host.json' /f >/dev/null 2>&1
check "install refuses to replace a foreign registry value (exit 1)" \
  bash -c 'wine "$0" install --browser chrome >/dev/null 2>&1; [ $? -eq 1 ]' "$exe"
check "the foreign value is untouched" \
  test "$(reg_value "HKCU\\$key_chrome")" = 'C:\other\host.json'
check "install --force replaces it" \
  bash -c 'wine "$0" install --browser chrome --force >/dev/null && [[ "$(wine reg query "HKCU\\$1" /ve 2>/dev/null)" == *unobserved* ]]' "$exe" "$key_chrome"
check "uninstall puts the foreign value back" \
  bash -c 'wine "$0" uninstall >/dev/null && [ "$2" = "$(wine reg query "HKCU\\$1" /ve 2>/dev/null | tr -d "\r" | awk -F"REG_SZ" "NF>1 {sub(/^[ \t]+/, \"\", \$2); print \$2}")" ]' \
  "$exe" "$key_chrome" 'C:\other\host.json'
wine reg delete "HKCU\\$key_chrome" /f >/dev/null 2>&1 || true

# --- the native host over pipes --------------------------------------------------------
frame() {
  local body=$1 n=${#1}
  printf "$(printf '\\%03o\\%03o\\%03o\\%03o' $((n & 255)) $((n >> 8 & 255)) $((n >> 16 & 255)) $((n >> 24 & 255)))"
  printf '%s' "$body"
}
origin='chrome-extension://ofhblkgjlepfiadjplffojmacooicfhm/'
run='{"type":"run-started","run":{"run_id":"wine-1","browser":"Edge","plan":{"size_bytes":1024,"reps":1,"warmup":0,"bodies":["Blob"]}}}'
replies=$( { frame '{"type":"hello"}'; frame "$run"; } | wine "$exe" "$origin" 2>/dev/null | LC_ALL=C tr -c '[:print:]' '\n')
check "the native host answers a framed hello" grep -q '"type":"hello"' <<<"$replies"
check "and records a run" grep -q '"type":"run-started","run_id":"wine-1"' <<<"$replies"
check "the store is %LOCALAPPDATA%\\unobserved\\results.jsonl" \
  grep -q '"run_id":"wine-1"' "$localappdata/unobserved/results.jsonl"

# --- the Windows sink, uploaded to from Linux -----------------------------------------
wine "$exe" sink --listen 127.0.0.1:0 >"$work/sink.out" 2>/dev/null &
sink=$!
for _ in $(seq 100); do
  [ -s "$work/sink.out" ] && break
  sleep 0.1
done
url=$(head -1 "$work/sink.out" | tr -d '\r')
head -c $((32 << 20)) /dev/urandom >"$work/body.bin"
want=$(sha256sum "$work/body.bin" | cut -d' ' -f1)
got=$(curl -s --max-time 60 -T "$work/body.bin" -X PUT "$url" | grep -o '"sha256":"[0-9a-f]*"' | cut -d'"' -f4)
kill "$sink" 2>/dev/null || true
check "a 32 MiB upload to the Windows sink arrives with the right SHA-256" test "$got" = "$want"

echo "wine: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
