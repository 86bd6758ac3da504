//! Raw FFI bindings to the `helib-fork` C++ BGV engine.
//!
//! This is a `-sys` crate: its build script compiles every `.cpp` file below `helib-fork/src`
//! (folders `math`, `scheme`, `serialization`, `capi`) into a static library, links it
//! against NTL and GMP (shared), and generates these declarations
//! with bindgen from the pure C header `helib-fork/include/helib_c.h` — the only contract
//! between Rust and C++. Nothing here is safe to call without reading that header; use the
//! `helib-rs` crate for a safe API.
//!
//! Conventions of the C API, in short: every function returns a [`helib_status`]
//! ([`HELIB_OK`] on success); on failure [`helib_last_error`] returns the calling thread's
//! message. Handles are typed opaque pointers with one producing call and one `_free` that
//! accepts NULL. Big integers travel as little-endian `u64` limbs.
//!
//! Building needs a C++17 compiler, NTL and GMP headers (Debian: `libntl-dev`, `libgmp-dev`)
//! and libclang for bindgen (Debian: `libclang-dev`); `make deps` at the repository root
//! installs them. `NTL_DIR` / `GMP_DIR` point the build at non-standard installs (each with
//! `include/` and `lib/`).

#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

// The header's C comments are carried over as docs; their math (`Z[X]`, `coeffs[i]`) is not
// meant as rustdoc links.
#[allow(missing_docs, clippy::all, rustdoc::broken_intra_doc_links)]
mod generated {
    include!(concat!(env!("OUT_DIR"), "/helib_c.rs"));
}

pub use generated::*;
