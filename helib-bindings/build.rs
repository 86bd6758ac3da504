//! Builds the helib-fork C++ engine and links NTL and GMP. The FFI declarations are committed
//! (src/generated/); with the `bindgen` feature they are generated afresh from helib_c.h.
//!
//! Failures a user can fix (missing system packages) end the build with a message that names
//! the Debian package and `make deps` instead of a compiler or linker error further down.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::process;

/// A library found either through its `*_DIR` override or in the standard system locations.
struct SystemLib {
    /// Directory to add to the C++ include path; `None` when the compiler finds it by itself.
    include_dir: Option<PathBuf>,
    /// Directory to add to the linker search path; `None` for the system default.
    lib_dir: Option<PathBuf>,
}

fn main() {
    let manifest_dir = PathBuf::from(env_or_die("CARGO_MANIFEST_DIR"));
    // A link to the repository's helib-fork/ (the package holds the files themselves).
    let fork_dir = manifest_dir.join("helib-fork");
    let fork_src = fork_dir.join("src");
    let fork_include = fork_dir.join("include");
    let header = fork_include.join("helib_c.h");

    println!("cargo:rerun-if-env-changed=NTL_DIR");
    println!("cargo:rerun-if-env-changed=GMP_DIR");
    println!("cargo:rerun-if-env-changed=HELIB_SANITIZE");
    // A directory entry makes cargo rescan its contents' mtimes, so new and edited files
    // are both noticed.
    println!("cargo:rerun-if-changed={}", fork_src.display());
    println!("cargo:rerun-if-changed={}", fork_include.display());
    println!("cargo:rerun-if-changed={}", header.display());

    if !header.is_file() {
        die(&format!(
            "the C API header {} is missing: helib-bindings/helib-fork must be the link to the \
             repository's helib-fork/ (or, in a package, its copy)",
            header.display()
        ));
    }

    let ntl = find_ntl();
    let gmp = find_gmp();

    // Bindings first: a missing libclang is reported in seconds, not after the C++ build.
    #[cfg(feature = "bindgen")]
    generate_bindings(&header);
    let sanitizers = sanitizers();
    compile_engine(&fork_src, &fork_include, &ntl, &gmp, &sanitizers);
    link_system_libs(&ntl, &gmp, &sanitizers);
}

/// The sanitizers `HELIB_SANITIZE` asks for (`address`, `undefined`, or both, comma-separated),
/// for checking the engine under the Rust tests (`make sanitize`). Empty when unset.
fn sanitizers() -> Vec<String> {
    let Some(value) = env::var_os("HELIB_SANITIZE") else {
        return Vec::new();
    };
    let value = value.to_string_lossy().into_owned();
    let list: Vec<String> = value
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if let Some(bad) = list
        .iter()
        .find(|s| !matches!(s.as_str(), "address" | "undefined"))
    {
        die(&format!(
            "HELIB_SANITIZE={value}: unknown sanitizer `{bad}` (use address, undefined or both)"
        ));
    }
    list
}

/// Compiles every `*.cpp` below helib-fork/src (a recursive glob, so new engine files need no
/// edit here); headers are included by their path below `src`.
fn compile_engine(
    fork_src: &Path,
    fork_include: &Path,
    ntl: &SystemLib,
    gmp: &SystemLib,
    sanitizers: &[String],
) {
    let sources = cpp_sources(fork_src);
    if sources.is_empty() {
        println!(
            "cargo:warning=helib-fork/src has no .cpp files yet; the engine is not compiled and \
             linking will fail"
        );
        return;
    }

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        // Crypto tests are unusably slow unoptimized, so debug builds get -O3 too.
        .opt_level(3)
        .pic(true)
        .warnings(true)
        .extra_warnings(true)
        // Code that is distributed must run on any x86-64, so no -march=native.
        .flag_if_supported("-mtune=generic")
        .flag_if_supported("-pthread")
        .include(fork_include)
        .include(fork_src);
    for dir in [&ntl.include_dir, &gmp.include_dir].into_iter().flatten() {
        build.include(dir);
    }
    // The double-precision modular arithmetic is exact only with every product and sum rounded
    // as written; off x86-64 (aarch64 has FMA in its base set) GCC would fuse them by default.
    if env::var("CARGO_CFG_TARGET_ARCH").as_deref() != Ok("x86_64") {
        build.flag_if_supported("-ffp-contract=off");
    }
    if !sanitizers.is_empty() {
        // Any finding stops the process, so a test run cannot pass over one.
        build
            .flag(format!("-fsanitize={}", sanitizers.join(",")))
            .flag("-fno-sanitize-recover=all")
            .flag("-fno-omit-frame-pointer")
            .debug(true);
    }
    if deterministic_keys() {
        build.define("HELIB_INSECURE_DETERMINISTIC_KEYS", None);
    }
    for src in &sources {
        build.file(src);
    }
    // Emits the link line for the static archive; system libraries are added after it so a
    // single-pass linker resolves the engine's references to NTL and GMP.
    build.compile("helib_fork");
    // The archive's path, for the test that checks what it exports.
    let out_dir = PathBuf::from(env_or_die("OUT_DIR"));
    println!(
        "cargo:rustc-env=HELIB_FORK_ARCHIVE={}",
        out_dir.join("libhelib_fork.a").display()
    );
}

/// Whether the insecure seeded key generation is compiled in (the crate feature).
fn deterministic_keys() -> bool {
    env::var_os("CARGO_FEATURE_INSECURE_DETERMINISTIC_KEYS").is_some()
}

fn cpp_sources(dir: &Path) -> Vec<PathBuf> {
    let mut sources = Vec::new();
    collect_cpp(dir, &mut sources);
    // A stable order keeps the archive (and so the build) reproducible.
    sources.sort();
    sources
}

/// Every `*.cpp` below `dir` (the engine's layers are folders: math, scheme, serialization,
/// capi).
fn collect_cpp(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => die(&format!("cannot read {}: {e}", dir.display())),
    };
    for path in entries.filter_map(|entry| entry.ok().map(|e| e.path())) {
        if path.is_dir() {
            collect_cpp(&path, out);
        } else if path.is_file() && path.extension().is_some_and(|ext| ext == "cpp") {
            out.push(path);
        }
    }
}

fn link_system_libs(ntl: &SystemLib, gmp: &SystemLib, sanitizers: &[String]) {
    // The runtimes of the sanitized engine (the Rust code itself is not instrumented).
    for s in sanitizers {
        let lib = if s == "address" { "asan" } else { "ubsan" };
        println!("cargo:rustc-link-lib=dylib={lib}");
    }
    for dir in [&ntl.lib_dir, &gmp.lib_dir].into_iter().flatten() {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    // NTL calls into GMP, so ntl must come first on the link line.
    println!("cargo:rustc-link-lib=dylib=ntl");
    println!("cargo:rustc-link-lib=dylib=gmp");
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rustc-link-lib=dylib=stdc++");
}

fn find_ntl() -> SystemLib {
    if let Some(dir) = env::var_os("NTL_DIR") {
        let dir = PathBuf::from(dir);
        let include = dir.join("include");
        if !include.join("NTL").join("ZZ.h").is_file() {
            die(&format!(
                "NTL_DIR={} but {} does not exist; point NTL_DIR at an NTL install prefix \
                 (with include/NTL/ZZ.h and lib/libntl.*)",
                dir.display(),
                include.join("NTL/ZZ.h").display()
            ));
        }
        return SystemLib {
            include_dir: Some(include),
            lib_dir: Some(dir.join("lib")),
        };
    }
    if Path::new("/usr/include/NTL/ZZ.h").is_file() {
        return SystemLib {
            include_dir: None,
            lib_dir: None,
        };
    }
    if Path::new("/usr/local/include/NTL/ZZ.h").is_file() {
        return SystemLib {
            include_dir: Some(PathBuf::from("/usr/local/include")),
            lib_dir: Some(PathBuf::from("/usr/local/lib")),
        };
    }
    die(
        "NTL headers not found (looked for /usr/include/NTL/ZZ.h and \
         /usr/local/include/NTL/ZZ.h).\n  Install them with `make deps` (Debian package: \
         libntl-dev), or set NTL_DIR to an NTL install prefix.",
    )
}

fn find_gmp() -> SystemLib {
    if let Some(dir) = env::var_os("GMP_DIR") {
        let dir = PathBuf::from(dir);
        let include = dir.join("include");
        if !include.join("gmp.h").is_file() {
            die(&format!(
                "GMP_DIR={} but {} does not exist; point GMP_DIR at a GMP install prefix \
                 (with include/gmp.h and lib/libgmp.*)",
                dir.display(),
                include.join("gmp.h").display()
            ));
        }
        return SystemLib {
            include_dir: Some(include),
            lib_dir: Some(dir.join("lib")),
        };
    }
    // Debian keeps gmp.h in the multiarch directory, which the compiler searches by itself.
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let multiarch = format!("/usr/include/{arch}-linux-gnu/gmp.h");
    if Path::new("/usr/include/gmp.h").is_file() || Path::new(&multiarch).is_file() {
        return SystemLib {
            include_dir: None,
            lib_dir: None,
        };
    }
    if Path::new("/usr/local/include/gmp.h").is_file() {
        return SystemLib {
            include_dir: Some(PathBuf::from("/usr/local/include")),
            lib_dir: Some(PathBuf::from("/usr/local/lib")),
        };
    }
    die(&format!(
        "GMP headers not found (looked for /usr/include/gmp.h, {multiarch} and \
         /usr/local/include/gmp.h).\n  Install them with `make deps` (Debian package: \
         libgmp-dev), or set GMP_DIR to a GMP install prefix."
    ))
}

/// The insecure feature's one extra function, declared apart from the rest.
#[cfg(feature = "bindgen")]
const INSECURE_KEYS_FUNCTION: &str = "helib_seckey_new_insecure_deterministic";

/// Generates the declarations into OUT_DIR, where lib.rs takes them with the `bindgen`
/// feature: `helib_c.rs` for the whole API, and for the insecure feature
/// `helib_c_insecure_keys.rs` with its one extra function (beside, not instead of, the rest).
/// Names both directory for the test that compares them with the committed ones.
#[cfg(feature = "bindgen")]
fn generate_bindings(header: &Path) {
    let out_dir = PathBuf::from(env_or_die("OUT_DIR"));
    let base = bindgen::Builder::default()
        .header(header.to_string_lossy())
        // helib_status is int32_t, so the status macros should compare without casts.
        .default_macro_constant_type(bindgen::MacroTypeVariation::Signed)
        // The header documents its API in plain /* */ comments; carry them into rustdoc.
        .clang_arg("-fparse-all-comments")
        .parse_callbacks(Box::new(bindgen::CargoCallbacks::new()));
    let api = base
        .clone()
        .allowlist_function("helib_.*")
        .allowlist_type("helib_.*")
        .allowlist_var("HELIB_.*");
    write_bindings(api, header, &out_dir.join("helib_c.rs"));
    if deterministic_keys() {
        // The function alone: the types it names come from helib_c.rs.
        let extra = base
            .clang_arg("-DHELIB_INSECURE_DETERMINISTIC_KEYS")
            .allowlist_function(INSECURE_KEYS_FUNCTION)
            .allowlist_recursively(false);
        write_bindings(extra, header, &out_dir.join("helib_c_insecure_keys.rs"));
    }
    println!(
        "cargo:rustc-env=HELIB_GENERATED_BINDINGS={}",
        out_dir.display()
    );
}

/// Runs `builder` and writes what it generates to `out`.
#[cfg(feature = "bindgen")]
fn write_bindings(builder: bindgen::Builder, header: &Path, out: &Path) {
    // bindgen panics (rather than returning an error) when it cannot load libclang; turn that
    // into a message that says which package to install.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    // The builder is moved in and never looked at again, so no half-updated state can leak.
    let generated =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || builder.generate()));
    std::panic::set_hook(previous_hook);

    let bindings = match generated {
        Ok(Ok(bindings)) => bindings,
        Ok(Err(e)) => die(&format!(
            "bindgen could not process {}: {e}",
            header.display()
        )),
        Err(panic) => {
            let detail = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown failure");
            die(&format!(
                "bindgen failed ({detail}).\n  This usually means libclang is missing: install \
                 it with `make bindgen-deps` (Debian package: libclang-dev), or set LIBCLANG_PATH \
                 to the directory holding libclang.so."
            ))
        }
    };
    if let Err(e) = bindings.write_to_file(out) {
        die(&format!("cannot write {}: {e}", out.display()));
    }
}

fn env_or_die(name: &str) -> String {
    match env::var(name) {
        Ok(value) => value,
        Err(_) => die(&format!("cargo did not set {name}")),
    }
}

/// Stops the build with a readable message (cargo shows a build script's stderr on failure).
fn die(message: &str) -> ! {
    eprintln!("\nerror: helib-bindings: {message}\n");
    process::exit(1);
}
