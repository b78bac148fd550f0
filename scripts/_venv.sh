# Sourced by scripts/play and scripts/test: create or refresh .venv from pyproject.toml.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
stamp="$venv/.installed-from"
want="$(cat "$root/pyproject.toml" | sha256sum | cut -d' ' -f1)"
py=""
for candidate in ${PYTHON:-} python3 python3.14 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null 2>&1 &&
        "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        py="$candidate"
        break
    fi
done
if [ -z "$py" ]; then
    echo "p2pcards needs Python 3.11 or newer (python3 is: $(python3 --version 2>&1))" >&2
    exit 1
fi
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "Setting up $venv (first run only)..." >&2
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --upgrade pip >&2
    "$venv/bin/python" -m pip install --quiet -e "$root[test]" >&2
    echo "$want" > "$stamp"
fi
