//! The committed FFI declarations are what bindgen makes of helib_c.h today. Runs with the
//! `bindgen` feature (`make lint` does); with `HELIB_UPDATE_BINDINGS=1` it writes the fresh
//! declarations over the committed file instead (`make bindings`).
#![cfg(feature = "bindgen")]

#[test]
fn the_committed_bindings_are_current() {
    let fresh = std::fs::read_to_string(env!("HELIB_GENERATED_BINDINGS")).unwrap();
    let name = if cfg!(feature = "insecure-deterministic-keys") {
        "helib_c_insecure_keys.rs"
    } else {
        "helib_c.rs"
    };
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/generated")
        .join(name);
    if std::env::var_os("HELIB_UPDATE_BINDINGS").is_some() {
        std::fs::write(&committed, &fresh).unwrap();
        return;
    }
    let old = std::fs::read_to_string(&committed).unwrap_or_default();
    assert!(
        old == fresh,
        "{} differs from what bindgen makes of helib_c.h: run `make bindings` and commit it",
        committed.display()
    );
}
