#!/usr/bin/env bash
# Builds the deserializer fuzz target with clang (libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer) and fuzzes it for FUZZ_SECONDS (default 300) on FUZZ_JOBS
# processes (default 1). Called by `make fuzz`, which installs clang first.
#
# Everything lives under target/fuzz: the binary, the fixture's secret key, the corpus (kept
# between runs, so each run goes on from the last) and any crash-* / leak-* / timeout-* inputs,
# each of which reproduces with `target/fuzz/deserialize_fuzzer FILE`.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=target/fuzz
mkdir -p "$out/corpus"

cxx=${FUZZ_CXX:-}
if [ -z "$cxx" ]; then
    for c in clang++ clang++-19 clang++-18 clang++-17 clang++-16 clang++-15 clang++-14; do
        if command -v "$c" >/dev/null 2>&1; then cxx=$c; break; fi
    done
fi
if [ -z "$cxx" ]; then
    echo "fuzz: no clang++ found (Debian package: clang); set FUZZ_CXX to one" >&2
    exit 1
fi

bin=$out/deserialize_fuzzer
sources=(helib-fork/src/*/*.cpp helib-fork/fuzz/deserialize_fuzzer.cpp)
if [ ! -x "$bin" ] || [ -n "$(find "${sources[@]}" helib-fork/src/*/*.h helib-fork/include -newer "$bin" | head -1)" ]; then
    echo "fuzz: building $bin with $cxx"
    "$cxx" -std=c++17 -O2 -g -fno-omit-frame-pointer \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -Ihelib-fork/include -Ihelib-fork/src "${sources[@]}" \
        -lntl -lgmp -pthread -o "$bin"
fi

seconds=${FUZZ_SECONDS:-300}
jobs=${FUZZ_JOBS:-1}
echo "fuzz: ${seconds} s on $jobs process(es); corpus $out/corpus"
# From inside $out, where parallel jobs write their fuzz-N.log files.
cd "$out"
export HELIB_FUZZ_KEY=secret-key HELIB_FUZZ_SEEDS=corpus
# Keys are up to ~1 MB at the fixture's ring, so inputs may be that large; 2 GB per process.
options=(-max_total_time="$seconds" -max_len=1200000 -rss_limit_mb=2048 -timeout=20 -print_final_stats=1)
if [ "$jobs" -gt 1 ]; then options+=(-jobs="$jobs" -workers="$jobs"); fi
./deserialize_fuzzer "${options[@]}" corpus
