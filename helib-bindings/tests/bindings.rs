//! The committed FFI declarations are what bindgen makes of helib_c.h today. Runs with the
//! `bindgen` feature (`make lint` does, with and without the insecure-keys feature); with
//! `HELIB_UPDATE_BINDINGS=1` it writes the fresh declarations over the committed files
//! instead (`make bindings`).
#![cfg(feature = "bindgen")]

use std::path::Path;

#[test]
fn the_committed_bindings_are_current() {
    let mut names = vec!["helib_c.rs"];
    if cfg!(feature = "insecure-deterministic-keys") {
        names.push("helib_c_insecure_keys.rs");
    }
    for name in names {
        let fresh = std::fs::read_to_string(Path::new(env!("HELIB_GENERATED_BINDINGS")).join(name))
            .unwrap();
        let committed = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src/generated")
            .join(name);
        if std::env::var_os("HELIB_UPDATE_BINDINGS").is_some() {
            std::fs::write(&committed, &fresh).unwrap();
            continue;
        }
        let old = std::fs::read_to_string(&committed).unwrap_or_default();
        assert!(
            old == fresh,
            "{} differs from what bindgen makes of helib_c.h: run `make bindings` and commit it",
            committed.display()
        );
    }
}
