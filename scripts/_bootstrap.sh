# Shared by scripts/up and scripts/test: make sure tmux, git (jq, top) and a Python >= 3.11 venv with
# mytty installed exist. Sourced, not run.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else
    echo "mytty: need root (or sudo) to run: $*" >&2; return 1; fi
}

need_apt=()
command -v tmux >/dev/null 2>&1 || need_apt+=(tmux)
command -v git >/dev/null 2>&1 || need_apt+=(git)
# Not needed by mytty itself, but the README's first commands use them (containers lack both).
command -v jq >/dev/null 2>&1 || need_apt+=(jq)
command -v top >/dev/null 2>&1 || need_apt+=(procps)
# The host tests (tests/hosts) start a real sshd on loopback; the package brings the ssh client.
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
# The test suite also checks quoting and start-up under zsh and fish.
for extra in ${MYTTY_TEST_SHELLS:-}; do
  command -v "$extra" >/dev/null 2>&1 || need_apt+=("$extra")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "mytty: installing ${need_apt[*]} with apt-get" >&2
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
  else
    echo "mytty: please install: ${need_apt[*]}" >&2
    exit 1
  fi
fi
# The web view's browser tests (tests/web/test_browser.py) drive Debian's headless Chromium. It is
# brought along for the tests but never required: without it those tests are skipped (pytest -rs,
# as .ci/run runs it, lists them with the reason), so a failed install is said and not fatal.
case ${MYTTY_EXTRAS:-} in *test*)
  if [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1 && as_root apt-get update -qq &&
       as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; then
      echo "mytty: installed chromium with apt-get (for tests/web/test_browser.py)" >&2
    else
      echo "mytty: skip: chromium could not be installed; tests/web/test_browser.py will be skipped" >&2
    fi
  fi ;;
esac

python=""
for candidate in python3.13 python3.12 python3.11 python3; do
  if command -v "$candidate" >/dev/null 2>&1 &&
     "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    python=$candidate; break
  fi
done
if [ -z "$python" ]; then
  echo "mytty: needs Python 3.11 or newer" >&2
  exit 1
fi
venv=${MYTTY_VENV:-$repo/.venv}
. "$repo/scripts/_venv.sh"
make_venv "$python" "$venv"
# The install is editable, so only a changed pyproject.toml (dependencies, entry points) or
# other extras need pip again; a re-run of scripts/up starts at once.
extras=${MYTTY_EXTRAS:-}
stamp="$venv/.mytty-installed-${extras//[^a-z0-9]/}"
want="$(cksum <"$repo/pyproject.toml") $repo"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ] || [ ! -x "$venv/bin/mytty" ]; then
  if [ -x "$venv/bin/mytty" ]; then
    echo "mytty: updating the install in $venv (pyproject.toml or extras changed)..." >&2
  else
    echo "mytty: installing mytty and its dependencies into $venv (first run, about 30 s)..." >&2
  fi
  rm -f "$stamp"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -e "$repo$extras"
  printf '%s\n' "$want" >"$stamp"
fi
