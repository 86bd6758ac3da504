#!/usr/bin/env bash
# Measures the runs the figures are drawn from: the fft and groth16 examples' --json lines, on
# two threads, each route at the sizes it serves, appended to docs/figures/runs.jsonl (or $1).
# Sizes up to 32768 run three times (the figures take the median); larger ones once. The whole
# set took about 11 minutes and 11.9 GB at its peak (the witness map at 2^20) on two cores;
# FIGURE_MAX_LOG2 (default 20) stops earlier.
set -euo pipefail
# The output path as the caller meant it, before moving to the repository's root.
out=$(realpath -m "${1:-$(dirname "${BASH_SOURCE[0]}")/../docs/figures/runs.jsonl}")
cd "$(dirname "${BASH_SOURCE[0]}")/.."

max_log2=${FIGURE_MAX_LOG2:-20}
mkdir -p "$(dirname "$out")"
cargo build --locked --release --example fft --example groth16
bin=target/release/examples
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
# The CPU's name, kept to characters that need no escaping in JSON.
cpu=$( (lscpu 2>/dev/null || true) | sed -n 's/^Model name: *//p' | head -1 | tr -cd 'A-Za-z0-9 ._()@+-')
cpu=${cpu:-unknown}
ifma=$(grep -qw avx512ifma /proc/cpuinfo && echo true || echo false)

# One run: the example's last line (its JSON) wrapped with what was run and where.
record() {
    local example=$1; shift
    local line
    echo "figures: $example $*" >&2
    line=$("$bin/$example" "$@" --threads 2 --json | tail -n 1)
    printf '{"example":"%s","commit":"%s","cpu":"%s","avx512_ifma":%s,"result":%s}\n' \
        "$example" "$commit" "$cpu" "$ifma" "$line" >>"$out"
}

# Route flag and the sizes (log2) it serves.
fft_runs=(
    "--one-stage 10 11"
    "--two-stage 10 12 14 15"
    "--four-step 16 18 20"
    "--row-ffts 16 18 20"
)
for spec in "${fft_runs[@]}"; do
    read -r flag sizes <<<"$spec"
    for k in $sizes; do
        [ "$k" -le "$max_log2" ] || continue
        repeats=$([ "$k" -le 15 ] && echo 3 || echo 1)
        for _ in $(seq "$repeats"); do record fft "$flag" --size $((1 << k)); done
    done
done

# The witness map takes the server-only route for each size (packed, one ciphertext, four
# steps); the circuit has n - 2 constraints so that its domain is n.
for k in 10 12 14 15 16 18 20; do
    [ "$k" -le "$max_log2" ] || continue
    repeats=$([ "$k" -le 15 ] && echo 3 || echo 1)
    for _ in $(seq "$repeats"); do record groth16 --constraints $(((1 << k) - 2)); done
done
echo "figures: runs appended to $out" >&2
