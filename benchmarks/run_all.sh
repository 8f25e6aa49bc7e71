#!/usr/bin/env bash
# Runs every benchmark of benchmarks/README.md in turn, with the options the README reports, and keeps
# each one's output in benchmarks/results/NAME.txt. Nothing else should run meanwhile: about 2.5 hours
# on 2 cores. Needs ./setup.sh --with-torch, UD English-EWT (../shared/data/ud-english-ewt or
# $UD_EWT_DIR) and, for the memory cgroup of grading_latency.py, root.
#   benchmarks/run_all.sh                                  all of them
#   benchmarks/run_all.sh grading_latency worker_overhead  only these (the NAMEs below)
set -euo pipefail
cd "$(dirname "$0")/.."
python=.venv/bin/python
out=benchmarks/results
mkdir -p "$out"

chosen=" $* "
run() {
    local name=$1
    shift
    if [ "$chosen" != "  " ] && [[ "$chosen" != *" $name "* ]]; then return; fi
    echo "== $name"
    { echo "\$ $python $*"; date -u '+%Y-%m-%d %H:%M UTC'; "$python" "$@"; } 2>&1 | tee "$out/$name.txt"
}

run grading_latency benchmarks/grading_latency.py
run worker_overhead benchmarks/worker_overhead.py
run gradient_check benchmarks/gradient_check.py --details
run word2vec_training benchmarks/word2vec_training.py --full-run
run parser_training benchmarks/parser_training.py --float32 --epochs 12
run batch_regrade benchmarks/batch_regrade.py --submissions 50 --jobs 1 2 3 --runs 3
run batch_scaling benchmarks/batch_regrade.py --submissions 25 100 --jobs 1 2 --runs 1
run carried_forward benchmarks/carried_forward.py --runs 3
run derivations benchmarks/derivations.py
run written_reading benchmarks/written_reading.py --size-mb 8 --runs 3 --grade
run isolation benchmarks/isolation.py --runs 10
run mutation benchmarks/mutation.py --jobs 2 --details --json benchmarks/results/mutation.json
