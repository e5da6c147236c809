#!/bin/bash
# Run libFuzzer targets one after the other, each for SECONDS, from its seed corpus
# (tests/fuzz/corpus_NAME, and examples/ for the scripts; read only: new inputs go to
# build/fuzz/corpus_NAME), with
# tests/fuzz/NAME.dict when there is one. Prints one line per target: executions, time,
# corpus, findings; exits 1 when any target found something (kept in build/fuzz/findings/).
# Usage (from the top directory, after make): tests/fuzz/run.sh SECONDS NAME...
set -u
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
secs=$1
shift
top=$(pwd)
mkdir -p build/fuzz/findings
rc=0
# Inputs that make a target slow are findings too, but a whole file of JSON may be long.
declare -A max_len=([script]=4096 [result]=262144 [cli]=1024 [logread]=16384 [record]=8192)
for t in "$@"; do
    bin=build/fuzz/fuzz_$t
    log=build/fuzz/fuzz_$t.log
    mkdir -p "build/fuzz/corpus_$t"
    dict=()
    [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="tests/fuzz/$t.dict")
    [ -f "build/fuzz/$t.dict" ] && dict=(-dict="build/fuzz/$t.dict") # made by the build
    seeds=("tests/fuzz/corpus_$t")
    [ "$t" = script ] && seeds+=(examples) # the example scripts are seeds too
    before=$(ls build/fuzz/findings | wc -l)
    start=$(date +%s)
    "$bin" -max_total_time="$secs" -max_len="${max_len[$t]:-4096}" -timeout=5 \
        -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$top/build/fuzz/findings/$t-" \
        "${dict[@]}" "build/fuzz/corpus_$t" "${seeds[@]}" >"$log" 2>&1
    status=$?
    elapsed=$(($(date +%s) - start))
    after=$(ls build/fuzz/findings | wc -l)
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    units=$(ls "build/fuzz/corpus_$t" | wc -l)
    n_seeds=$(find "${seeds[@]}" -type f | wc -l)
    if [ "$status" -ne 0 ] || [ "$after" -ne "$before" ]; then
        rc=1
        echo "fuzz_$t: FINDING after ${execs:-?} executions in ${elapsed} s (see $log):"
        grep -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error|artifact_prefix|Test unit written)' \
            "$log" | head -n 8 | sed 's/^/    /'
    else
        echo "fuzz_$t: ${execs:-?} executions in ${elapsed} s (${rate:-?}/s), $n_seeds seeds," \
            "$units inputs in build/fuzz/corpus_$t, no findings"
    fi
done
exit $rc
