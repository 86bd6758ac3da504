# bigp-he: BGV with a big-integer plaintext modulus (BN254) -- build entry points.
#
#   make fft          install missing system packages, then run the main job: an encrypted
#                     BN254 FFT of size 1024 at 128-bit security, verified against arkworks
#                     (FFT_ARGS="--size 4096 --threads 1" to change it)
#   make arithmetic   the arithmetic tour (context, keys, encrypt, add, multiply, decrypt)
#   make groth16      a Groth16 proof (ark-groth16, BN254) of a 1000-constraint circuit whose
#                     witness map runs on ciphertexts, verified (GROTH16_ARGS="--constraints 30000")
#   make aggregate    private aggregation: 1000 users' encrypted vectors of 32768 BN254
#                     elements summed from files, verified (AGGREGATE_ARGS="--users 10000")
#   make peers        build and run the peers benchmark (this library, Paillier-3072, SEAL,
#                     fhe.rs; one core), writing peers.json; installs cmake and GMP
#   make fft-mpi      the four-step FFT across NP MPI ranks (default 2; installs Open MPI):
#                     setup, mpirun, verify (FFT_ARGS="--size 1048576", MPI_THREADS per rank)
#   make test-mpi     the MPI tests: 1, 2 and 4 ranks, TCP, a killed rank (installs Open MPI)
#   make serve        he-server on 127.0.0.1:8700 with a fresh token (printed, and written to
#                     target/he-server/token); SERVE_ARGS="--allow-toy-ring --memory-budget 8G"
#   make load-test    8 clients against a fresh server for 60 s: jobs/s, latency, errors, peak
#                     memory against the budget (LOAD_ARGS="--clients 16 --seconds 30")
#   make cosnark      a Groth16 proof by 3 parties sharing the witness and the key, each its own
#                     process, the witness map on a fresh he-server on loopback, verified
#                     (COSNARK_ARGS="--parties 4 --constraints 30000 --json")
#   make circom       circomlib circuits (Poseidon, MiMC, Pedersen, SHA-256 of one and two blocks)
#                     compiled by circom, keys from snarkjs, proofs with the witness map on
#                     ciphertexts, each checked by snarkjs groth16 verify (installs Node.js,
#                     npm packages under target/circom; CIRCOM_CIRCUITS="poseidon_hash")
#   make run          the same as make fft
#   make test         install missing system packages, then run the whole test suite
#   make lint         clippy and rustdoc with warnings as errors, rustfmt --check if present, and
#                     the committed FFI declarations against bindgen's (installs libclang)
#   make bindings     regenerate the FFI declarations after a change to helib_c.h
#   make package      cargo package the four library crates, then build a crate against the
#                     packages alone and run a verified FFT
#   make bench        criterion benchmarks
#   make plots        draw docs/figures/*.svg (time and overhead by size, per route) from the
#                     measured runs in docs/figures/runs.jsonl
#   make plot-data    measure those runs anew (fft and groth16 --json, 2^10 to 2^20, about
#                     11 minutes, 12 GB peak; FIGURE_MAX_LOG2=16 stops earlier), then make plots
#   make sanitize     the test suite on the engine built with ASan and UBSan (slow)
#   make fuzz         fuzz the deserializers with libFuzzer (FUZZ_SECONDS=300; installs clang)
#   make deps         only install the missing system packages (Debian/Ubuntu)
#   make cross-aarch64  build everything for aarch64 Linux with Debian's cross toolchain and
#                     arm64 NTL/GMP (installs them)

CARGO ?= cargo
# CI builds exactly the committed dependency versions.
LOCKED := $(if $(CI),--locked,)

# What the C++ engine needs on Debian/Ubuntu (the FFI declarations are committed).
DEB_PACKAGES := build-essential g++ pkg-config libntl-dev libgmp-dev
# Root needs no sudo (CI containers often have none).
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# A comma inside a $(call) argument.
, := ,

.PHONY: all deps node-deps circom fft arithmetic groth16 aggregate peers mpi-deps fft-mpi test-mpi serve load-test cosnark run test lint bindgen-deps bindings package bench plots plot-data sanitize fuzz clean help cross-deps cross-aarch64 cross-test-aarch64

all: test

help:
	@sed -n '3,43p' Makefile | sed 's/^# \{0,1\}//'

# Installs the missing Debian packages among $(1), or says what to install elsewhere. A package
# installed for two architectures (the cross build's arm64 GMP) is found by its qualified name.
define install_missing
	@if ! command -v dpkg >/dev/null 2>&1; then \
	    echo "deps: not a Debian-based system; install $(2)"; \
	else \
	    missing=""; \
	    arch=$$(dpkg --print-architecture); \
	    for pkg in $(1); do \
	        dpkg -s "$$pkg" >/dev/null 2>&1 || dpkg -s "$$pkg:$$arch" >/dev/null 2>&1 || \
	            missing="$$missing $$pkg"; \
	    done; \
	    if [ -n "$$missing" ]; then \
	        echo "deps: installing$$missing"; \
	        $(SUDO) apt-get update && \
	        $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y $$missing; \
	    else \
	        echo "deps: system packages present ($(1))"; \
	    fi; \
	fi
endef

deps:
	$(call install_missing,$(DEB_PACKAGES),a C++17 compiler$(,) NTL and GMP yourself (set NTL_DIR / GMP_DIR for non-standard prefixes))
	@command -v $(CARGO) >/dev/null 2>&1 || { \
	    echo "deps: cargo not found. Install Rust (1.89 or newer) with rustup:"; \
	    echo "      curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh"; \
	    echo "      (or: apt-get install rustup && rustup default stable), then re-run make."; \
	    exit 1; }

fft: deps
	$(CARGO) run $(LOCKED) --release --example fft -- $(FFT_ARGS)

arithmetic: deps
	$(CARGO) run $(LOCKED) --release --example arithmetic

groth16: deps
	$(CARGO) run $(LOCKED) --release --example groth16 -- $(GROTH16_ARGS)

# When the peers benchmark is built (make peers), the example runs it too.
aggregate: deps
	$(CARGO) run $(LOCKED) --release --example aggregate -- $(AGGREGATE_ARGS)

# Outside the workspace (peers/Cargo.toml), so make test never builds SEAL or Paillier.
PEERS_PACKAGES := cmake libgmp-dev
peers: deps
	$(call install_missing,$(PEERS_PACKAGES),cmake and GMP yourself)
	$(CARGO) build $(LOCKED) --release --manifest-path peers/Cargo.toml
	peers/target/release/peers --output peers.json $(PEERS_ARGS)

# MPI: he-fft-mpi is a crate of its own, so nothing else needs Open MPI. Open MPI refuses to
# run as root (CI containers) unless told twice.
MPI_PACKAGES := openmpi-bin libopenmpi-dev
MPI_ENV := $(if $(SUDO),,OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
NP ?= 2
MPI_THREADS ?= 1
FFT_MPI_DIR ?= target/fft-mpi-run
FFT_MPI := he-fft-mpi/target/release/fft-mpi
mpi-deps: deps
	$(call install_missing,$(MPI_PACKAGES),Open MPI (mpirun and its headers) yourself)

fft-mpi: mpi-deps
	$(CARGO) build $(LOCKED) --release --manifest-path he-fft-mpi/Cargo.toml
	rm -rf $(FFT_MPI_DIR)
	$(FFT_MPI) setup $(FFT_MPI_DIR) $(or $(FFT_ARGS),--size 65536)
	$(MPI_ENV) mpirun --oversubscribe -np $(NP) $(FFT_MPI) run $(FFT_MPI_DIR) --threads $(MPI_THREADS)
	$(FFT_MPI) verify $(FFT_MPI_DIR) --json

test-mpi: mpi-deps
	$(MPI_ENV) $(CARGO) test $(LOCKED) --release --manifest-path he-fft-mpi/Cargo.toml

# The delegation server on loopback, state under target/he-server. A fresh token each start
# (tenant "owner"), readable by this user only.
SERVE_DIR ?= target/he-server
SERVE_LISTEN ?= 127.0.0.1:8700
serve: deps
	$(CARGO) build $(LOCKED) --release -p he-server
	@mkdir -p $(SERVE_DIR) && umask 077 && \
	    token=$$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n') && \
	    printf 'owner %s\n' "$$token" > $(SERVE_DIR)/tokens && \
	    printf '%s\n' "$$token" > $(SERVE_DIR)/token && \
	    echo "serve: tenant owner, token $$token (also in $(SERVE_DIR)/token)" && \
	    echo "serve: try  cargo run --release --example groth16 -- --server http://$(SERVE_LISTEN) --token-file $(SERVE_DIR)/token"
	target/release/he-server --listen $(SERVE_LISTEN) --state $(SERVE_DIR)/state --tokens $(SERVE_DIR)/tokens $(SERVE_ARGS)

load-test: deps
	$(CARGO) build $(LOCKED) --release -p he-server -p he-client --example load_test
	target/release/examples/load_test --json $(LOAD_ARGS)

# The parties' example against a server of its own on another port, stopped at the end.
COSNARK_DIR ?= target/cosnark-server
COSNARK_LISTEN ?= 127.0.0.1:8701
cosnark: deps
	$(CARGO) build $(LOCKED) --release -p he-server
	$(CARGO) build $(LOCKED) --release --example cosnark
	@set -e; rm -rf $(COSNARK_DIR); mkdir -p $(COSNARK_DIR); umask 077; \
	token=$$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n'); \
	printf 'owner %s\n' "$$token" > $(COSNARK_DIR)/tokens; \
	printf '%s\n' "$$token" > $(COSNARK_DIR)/token; \
	target/release/he-server --listen $(COSNARK_LISTEN) --state $(COSNARK_DIR)/state \
	    --tokens $(COSNARK_DIR)/tokens --allow-toy-ring > $(COSNARK_DIR)/server.log 2>&1 & \
	pid=$$!; trap 'kill $$pid 2>/dev/null || true' EXIT; \
	target/release/examples/cosnark --server http://$(COSNARK_LISTEN) \
	    --token-file $(COSNARK_DIR)/token $(COSNARK_ARGS)

# Node.js and npm for circom2 and snarkjs (any installed node is kept).
node-deps: deps
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
	    echo "deps: node and npm present"; \
	elif command -v apt-get >/dev/null 2>&1; then \
	    echo "deps: installing nodejs npm"; \
	    $(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm; \
	else \
	    echo "deps: install Node.js (18 or newer) and npm yourself"; exit 1; \
	fi

circom: node-deps
	examples/circom/run.sh

run: fft

# Release mode: the tests do real cryptography and arkworks is slow unoptimized.
test: deps
	$(CARGO) test $(LOCKED) --workspace --release
	# The portable (non-AVX2) kernels, on the operation, rotation, plaintext, noise and derived-key tests.
	HELIB_FORCE_SCALAR=1 $(CARGO) test $(LOCKED) --release -p helib-rs --test arithmetic --test rotation --test rotated_sum --test ptxt --test noise --test master_keys --test capped_keys
	# Keys derived from a seed, behind their (insecure, test-only) feature.
	$(CARGO) test $(LOCKED) --release -p helib-rs --features insecure-deterministic-keys --test deterministic_keys

# bindgen, for regenerating the committed FFI declarations and checking them.
bindgen-deps: deps
	$(call install_missing,libclang-dev,libclang yourself (or set LIBCLANG_PATH))

# Rewrites helib-bindings/src/generated/ from helib_c.h (after a change to the C API).
bindings: bindgen-deps
	HELIB_UPDATE_BINDINGS=1 $(CARGO) test $(LOCKED) --release -p helib-bindings --features bindgen$(,)insecure-deterministic-keys --test bindings

lint: bindgen-deps
	# The committed FFI declarations (both files) are what bindgen makes of helib_c.h.
	$(CARGO) test $(LOCKED) --release -p helib-bindings --features bindgen$(,)insecure-deterministic-keys --test bindings
	$(CARGO) clippy $(LOCKED) --workspace --all-targets -- -D warnings
	$(CARGO) clippy $(LOCKED) -p helib-rs --all-targets --features insecure-deterministic-keys -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc $(LOCKED) --workspace --no-deps
	@if $(CARGO) fmt --version >/dev/null 2>&1; then \
	    echo "$(CARGO) fmt --all -- --check"; $(CARGO) fmt --all -- --check; \
	else \
	    echo "lint: rustfmt not installed, skipping the format check"; \
	fi

# The four library crates as packages (cargo package, which builds each from its package),
# then a crate outside the workspace that depends on the unpacked packages only runs a
# verified FFT (.ci/package-check).
PACKAGE_DIR := target/package-check
# cargo verifies each package against the others through a registry in target/package, and
# keeps what it unpacks from there under CARGO_HOME by that registry's path and the crates'
# names and versions: a second run from the same path would build the first run's sources.
# Those unpacked copies of these four crates go first.
CARGO_HOME_DIR := $(or $(CARGO_HOME),$(HOME)/.cargo)
package: deps
	rm -rf $(foreach c,helib-bindings helib-rs he-fft he-groth16,$(CARGO_HOME_DIR)/registry/src/-*/$(c)-0.1.0)
	$(CARGO) package $(LOCKED) -p helib-bindings -p helib-rs -p he-fft -p he-groth16
	rm -rf $(PACKAGE_DIR) && mkdir -p $(PACKAGE_DIR)/crates
	for c in target/package/helib-bindings-0.1.0.crate target/package/helib-rs-0.1.0.crate \
	    target/package/he-fft-0.1.0.crate target/package/he-groth16-0.1.0.crate; do \
	    tar -xzf $$c -C $(PACKAGE_DIR)/crates || exit 1; done
	cp -r .ci/package-check/src $(PACKAGE_DIR)/
	sed 's|CRATES|$(CURDIR)/$(PACKAGE_DIR)/crates|' .ci/package-check/Cargo.toml.in > $(PACKAGE_DIR)/Cargo.toml
	cd $(PACKAGE_DIR) && $(CARGO) run --release

bench: deps
	$(CARGO) bench $(LOCKED)

# The figures are drawn from committed runs, so they change only when the runs do (a test
# checks that the committed SVG files are what these runs draw).
plots: deps
	$(CARGO) run $(LOCKED) --release -p figures -- --runs docs/figures/runs.jsonl --out docs/figures

# Measured into target/ first, so that a run stopped half-way leaves the committed runs alone.
plot-data: deps
	rm -f target/figures/runs.jsonl
	figures/measure.sh target/figures/runs.jsonl
	cp target/figures/runs.jsonl docs/figures/runs.jsonl
	$(MAKE) plots

# The engine built with AddressSanitizer and UndefinedBehaviorSanitizer (gcc), driven by the
# Rust tests (SANITIZE_TESTS: cargo's selection, the whole workspace by default); any finding
# aborts its test. Several times slower than make test, in its own target directory.
SANITIZE_TESTS ?= --workspace
sanitize: deps
	HELIB_SANITIZE=address,undefined CARGO_TARGET_DIR=target/sanitize $(CARGO) test $(LOCKED) --release $(SANITIZE_TESTS)

# Coverage-guided fuzzing of every deserializer (helib-fork/fuzz), FUZZ_SECONDS (default 300).
fuzz: deps
	$(call install_missing,clang,clang yourself (or set FUZZ_CXX))
	helib-fork/fuzz/run.sh

clean:
	$(CARGO) clean

# aarch64 Linux: the engine's portable code (the AVX2 and IFMA kernels are x86-64 only), built
# with Debian's cross toolchain against arm64 GMP and NTL. libntl-dev cannot be installed for
# two architectures at once, so its arm64 headers are unpacked under target/ (NTL_DIR) next to
# the arm64 runtime library. The Rust tests cannot run under qemu-user here (the emulator hangs
# on the first thread a program creates, libtest's and rayon's alike: seen with qemu 7.2 and
# 10.0), so cross-test-aarch64 runs the engine's single-threaded C API smoke test instead.
AARCH64 := aarch64-unknown-linux-gnu
AARCH64_NTL := $(CURDIR)/target/aarch64-ntl
AARCH64_ENV := CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
	CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc CXX_aarch64_unknown_linux_gnu=aarch64-linux-gnu-g++ \
	NTL_DIR=$(AARCH64_NTL)

cross-deps: deps
	@dpkg --print-foreign-architectures | grep -qx arm64 || $(SUDO) dpkg --add-architecture arm64
	@dpkg -s libgmp-dev:arm64 libntl44:arm64 >/dev/null 2>&1 || { $(SUDO) apt-get update && \
	    $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y libgmp-dev:arm64 libntl44:arm64; }
	$(call install_missing,g++-aarch64-linux-gnu,an aarch64 cross compiler yourself)
	@[ -f $(AARCH64_NTL)/include/NTL/ZZ.h ] || { mkdir -p $(AARCH64_NTL)/deb $(AARCH64_NTL)/lib && \
	    cd $(AARCH64_NTL)/deb && apt-get download libntl-dev:arm64 && \
	    dpkg-deb -x libntl-dev_*_arm64.deb root && ln -sfn deb/root/usr/include ../include && \
	    ln -sf /usr/lib/aarch64-linux-gnu/libntl.so.44 ../lib/libntl.so; }
	rustup target list --installed | grep -qx $(AARCH64) || rustup target add $(AARCH64)

cross-aarch64: cross-deps
	$(AARCH64_ENV) $(CARGO) build $(LOCKED) --release --target $(AARCH64) --workspace --all-targets

# The engine built for aarch64, then helib-fork/tests/c_api_smoke.cpp on it under qemu-user.
cross-test-aarch64: cross-deps
	$(call install_missing,qemu-user,qemu-user yourself)
	$(AARCH64_ENV) $(CARGO) build $(LOCKED) --release --target $(AARCH64) -p helib-bindings
	aarch64-linux-gnu-g++ -std=c++17 -O2 -Ihelib-fork/include helib-fork/tests/c_api_smoke.cpp \
	    $$(ls -t target/$(AARCH64)/release/build/helib-bindings-*/out/libhelib_fork.a | head -1) \
	    -L/usr/lib/aarch64-linux-gnu -l:libntl.so.44 -l:libgmp.so.10 -pthread -o target/$(AARCH64)/c_api_smoke
	qemu-aarch64 -L /usr/aarch64-linux-gnu -E LD_LIBRARY_PATH=/usr/lib/aarch64-linux-gnu target/$(AARCH64)/c_api_smoke
