# Sourced by scripts/play and scripts/test: create or refresh .venv from pyproject.toml.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.installed-from"
want="$(cat "$root/pyproject.toml" | sha256sum | cut -d' ' -f1)"
py="${PYTHON:-python3}"
if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "p2pcards needs Python 3.11 or newer (found: $("$py" --version 2>&1))" >&2
    exit 1
fi
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "Setting up $venv (first run only)..." >&2
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
    "$venv/bin/python" -m pip install --quiet -e "$root[test]" >&2
    echo "$want" > "$stamp"
fi
