# Sourced by scripts/test, scripts/play and the benchmarks: makes .venv from
# nothing but a Python 3.11+ interpreter, and keeps it in step with
# pyproject.toml. Sets VENV_PY to the venv's interpreter.
# Usage: UNO_EXTRAS=test . scripts/bootstrap.sh    (extras are optional)
# The extras come from a variable, not from "$1": a sourced script sees its
# caller's arguments, and a benchmark's "--json" is no pip extra.

set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
EXTRAS="${UNO_EXTRAS:-}"

find_python() {
    local candidate
    for candidate in "${PYTHON:-}" python3.13 python3.12 python3.11 python3; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

if [ ! -x "$VENV/bin/python" ]; then
    if ! PY="$(find_python)"; then
        echo "uno-lan needs Python 3.11 or newer: install it, or point PYTHON at one." >&2
        exit 1
    fi
    echo "Setting up $VENV with $("$PY" --version)..." >&2
    if ! "$PY" -m venv "$VENV"; then
        echo "Could not create a virtual environment: install your system's venv package (e.g. python3-venv) and try again." >&2
        rm -rf "$VENV"
        exit 1
    fi
fi
VENV_PY="$VENV/bin/python"

# Reinstall only when pyproject.toml changes or new extras are asked for; a
# venv set up for the tests (a superset) serves the game too.
digest="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
stamp="$VENV/.uno-lan-installed"
{ read -r have_digest have_extras < "$stamp"; } 2>/dev/null || { have_digest=""; have_extras=""; }
# Asking for no extras keeps the ones already installed (the game after the tests).
[ -n "$EXTRAS" ] || EXTRAS="${have_extras:-}"
if [ "$have_digest" != "$digest" ] || [ "$have_extras" != "$EXTRAS" ]; then
    echo "Installing uno-lan${EXTRAS:+ with [$EXTRAS]} into .venv..." >&2
    "$VENV_PY" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
    spec="$ROOT"
    [ -n "$EXTRAS" ] && spec="$ROOT[$EXTRAS]"
    "$VENV_PY" -m pip install --quiet --disable-pip-version-check -e "$spec" >&2
    echo "$digest ${EXTRAS:-}" > "$stamp"
fi
export PATH="$VENV/bin:$PATH"
