#!/usr/bin/env bash
# Rename correctness benchmark (issue 7): codeagent vs raw basedpyright vs text replacement on the
# public targets of ../shared/bench (real projects, judged by their own tests + expected sites).
# Not run by CI: it downloads corpora on first use and takes ~10 minutes on 2 cores.
#
#   benchmarks/run_rename_bench.sh [extra rename_bench.py args, e.g. --corpus toolz --target juxt]
#
# Environment: BENCH_DIR (default ../shared/bench beside the checkout), OUT (default /tmp/rename_bench_run),
# METHODS (default codeagent,pyright,tsls,text), JOBS (default 1: the machine is shared).
# After the run, benchmarks/rename_bench_regressions.py lists every target where codeagent is wrong
# and the raw server (pyright / tsls) right; it must stay empty (the script exits 1 otherwise).
# Default settings, as issue 7's command: each copy's daemon exits once the harness deletes the copy.
# CODEAGENT_LSP_DAEMON=never measures the in-process path instead.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bench="${BENCH_DIR:-$here/../shared/bench}"
out="${OUT:-/tmp/rename_bench_run}"
# shellcheck disable=SC1091
. "$here/.venv/bin/activate"
python3 "$bench/rename_bench.py" --methods "${METHODS:-codeagent,pyright,tsls,text}" --jobs "${JOBS:-1}" \
    --out "$out" "$@"
exec python3 "$here/benchmarks/rename_bench_regressions.py" "$out/results.json"
