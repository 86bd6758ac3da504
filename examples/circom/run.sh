#!/usr/bin/env bash
# make circom: circomlib circuits of growing size compiled by circom, keys from snarkjs, proofs
# with the witness map on ciphertexts (examples/circom.rs), checked by `snarkjs groth16 verify`.
#
# Everything it makes goes under target/circom/: the npm packages (pinned below), one
# powers-of-tau file (made here, cached), and per circuit its .r1cs, witness, keys,
# proof.json and public.json. One JSON line per circuit is appended to
# target/circom/results.jsonl and printed. CIRCOM_CIRCUITS picks circuits (default: all five,
# smallest first); CIRCOM_ARGS goes to the example (e.g. "--threads 2").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
repo=$(pwd)
work=$repo/target/circom
circuits=${CIRCOM_CIRCUITS:-"poseidon_hash mimc_sponge pedersen_hash sha256_one_block sha256_two_blocks"}
packages="circom2@0.2.23 snarkjs@0.7.6 circomlib@2.0.5"

# The domain each circuit needs (log2), so that one powers-of-tau file serves them all.
power() {
    case $1 in
        poseidon_hash) echo 10 ;; mimc_sponge) echo 11 ;; pedersen_hash) echo 12 ;;
        sha256_one_block) echo 15 ;; sha256_two_blocks) echo 16 ;;
        *) echo "circom: unknown circuit $1 (examples/circom/*.circom)" >&2; exit 2 ;;
    esac
}

mkdir -p "$work"
if [ ! -f "$work/node_modules/snarkjs/build/cli.cjs" ] || [ ! -d "$work/node_modules/circomlib" ] \
    || [ ! -d "$work/node_modules/circom2" ]; then
    echo "circom: npm install $packages"
    (cd "$work" && npm install --no-audit --no-fund --no-save $packages)
fi
snarkjs=$work/node_modules/snarkjs/build/cli.cjs
sj() { node "$snarkjs" "$@"; }

cargo build --locked --release --example circom

max=0
for c in $circuits; do p=$(power "$c"); [ "$p" -gt "$max" ] && max=$p; done
# Any file made before for at least this power serves.
ptau=$work/ptau/bn128_$max.ptau
for p in $(seq "$max" 28); do
    if [ -f "$work/ptau/bn128_$p.ptau" ]; then ptau=$work/ptau/bn128_$p.ptau; break; fi
done
if [ ! -f "$ptau" ]; then
    # A one-party ceremony: fine for measuring, not for production keys.
    echo "circom: powers of tau 2^$max (once; a few minutes at 2^16)"
    mkdir -p "$work/ptau"
    sj powersoftau new bn128 "$max" "$work/ptau/0.ptau" >/dev/null
    sj powersoftau contribute "$work/ptau/0.ptau" "$work/ptau/1.ptau" --name=bigp-he \
        -e="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >/dev/null
    sj powersoftau prepare phase2 "$work/ptau/1.ptau" "$ptau.partial" >/dev/null
    mv "$ptau.partial" "$ptau"
    rm -f "$work/ptau/0.ptau" "$work/ptau/1.ptau"
fi

status=0
for c in $circuits; do
    dir=$work/$c
    mkdir -p "$dir"
    echo "circom: $c: compile, setup, witness"
    # circom2 (WebAssembly) reads include paths relative to where it runs. The keys are made
    # again only when the circuit or the powers of tau changed.
    mkdir -p "$dir/build"
    (cd "$work" && npx --no-install circom2 "$repo/examples/circom/$c.circom" --r1cs --wasm \
        -o "$dir/build" -l node_modules >/dev/null)
    cmp -s "$dir/build/$c.r1cs" "$dir/$c.r1cs" || cp "$dir/build/$c.r1cs" "$dir/$c.r1cs"
    if [ ! -f "$dir/$c.zkey" ] || [ "$dir/$c.r1cs" -nt "$dir/$c.zkey" ] || [ "$ptau" -nt "$dir/$c.zkey" ]; then
        sj groth16 setup "$dir/$c.r1cs" "$ptau" "$dir/${c}_0.zkey" >/dev/null
        # Into place only when whole, so that an interrupted run leaves no key to reuse.
        sj zkey contribute "$dir/${c}_0.zkey" "$dir/$c.zkey.partial" --name=bigp-he \
            -e="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')" >/dev/null
        mv "$dir/$c.zkey.partial" "$dir/$c.zkey"
        rm -f "$dir/${c}_0.zkey"
    fi
    sj zkey export verificationkey "$dir/$c.zkey" "$dir/verification_key.json" >/dev/null
    sj wtns calculate "$dir/build/${c}_js/$c.wasm" "$repo/examples/circom/$c.json" "$dir/$c.wtns" >/dev/null
    echo "circom: $c: prove with the witness map on ciphertexts, verify with snarkjs"
    set +e
    # shellcheck disable=SC2086
    line=$("$repo/target/release/examples/circom" --r1cs "$dir/$c.r1cs" --wtns "$dir/$c.wtns" \
        --zkey "$dir/$c.zkey" --verification-key "$dir/verification_key.json" \
        --snarkjs "$snarkjs" --out "$dir" --name "$c" --json ${CIRCOM_ARGS:-} | tail -n 1)
    rc=$?
    set -e
    [ -n "$line" ] && echo "$line" && echo "$line" >>"$work/results.jsonl"
    if [ "$rc" -eq 0 ]; then
        # snarkjs's own word on the proof this run wrote.
        sj groth16 verify "$dir/verification_key.json" "$dir/public.json" "$dir/proof.json" \
            | tail -n 1 || status=1
    else
        echo "circom: $c: failed (exit status $rc)" >&2
        status=1
    fi
done
exit "$status"
