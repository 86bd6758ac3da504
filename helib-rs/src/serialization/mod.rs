//! Contexts, keys and ciphertexts as bytes: their own byte form (`to_bytes` / `from_bytes`),
//! and arkworks serialization on top of it.

#[cfg(feature = "ark-serialize")]
pub(crate) mod ark;
pub(crate) mod bytes;
pub(crate) mod frames;
pub(crate) mod size_limits;
