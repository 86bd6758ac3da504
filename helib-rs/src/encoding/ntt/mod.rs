//! Negacyclic NTTs over the plaintext prime, for the slot encoders: a generic one over any
//! arkworks field (`field.rs`), a Montgomery-form one for fields of four limbs (`mont.rs`),
//! with its x86-64 assembly multiplication (`mont_asm.rs`) and AVX2/AVX-512 inverse transform
//! (`simd.rs`).

pub(crate) mod field;
pub(crate) mod mont;
#[cfg(target_arch = "x86_64")]
pub(crate) mod mont_asm;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;
