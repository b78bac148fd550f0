# Sourced by scripts/play and scripts/test: create or refresh .venv from pyproject.toml.
# The caller sets `extras` to the optional dependencies it needs: "" for playing (the
# runtime dependencies only, quick to install), "test" for the test tools. Each set has
# its own stamp, so that play then test adds the test tools, and test then play installs
# nothing more; a changed pyproject.toml refreshes each set when it is next used.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$root/.venv"
extras="${extras:-}"
stamp="$venv/.installed-${extras:-runtime}"
want="$(sha256sum < "$root/pyproject.toml" | cut -d' ' -f1)"
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
legacy="$venv/.installed-from"  # one stamp for everything, runtime and test tools alike
if [ -f "$legacy" ]; then
    for set in runtime test; do
        [ -f "$venv/.installed-$set" ] || cp "$legacy" "$venv/.installed-$set"
    done
    rm -f "$legacy"
fi
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    if [ ! -x "$venv/bin/python" ]; then
        echo "Setting up $venv (first run only)..." >&2
        rm -f "$venv"/.installed-*  # stamps of a venv that is gone
        "$py" -m venv "$venv"
    else
        echo "Updating $venv${extras:+ with the $extras tools}..." >&2
    fi
    spec="$root${extras:+[$extras]}"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$spec" >&2
    echo "$want" > "$stamp"
    echo "$want" > "$venv/.installed-runtime"  # every set includes what playing needs
fi
