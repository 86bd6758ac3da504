//! arkworks serialization (`ark-serialize`) of contexts, keys and ciphertexts, for code that
//! moves its data with `CanonicalSerialize` / `CanonicalDeserialize`.
//!
//! The canonical form of every object is its [`to_bytes`](Context::to_bytes) form preceded by
//! its length as a little-endian `u64` (what ark-serialize writes for a byte vector), compressed
//! or not alike. A [`Context`] reads back on its own. Keys and ciphertexts are bound to a
//! context (and a ciphertext to the public key it is used with), which ark-serialize's
//! deserializers cannot be given, so they read back through [`DeserializeInContext`] with what
//! they belong to. Reading validates exactly as `from_bytes` does (the `Validate` flag cannot
//! turn that off: unchecked bytes are never used), and a length prefix is never trusted for an
//! allocation: the bytes are read as they arrive.
//!
//! ```
//! use ark_bn254::Fr;
//! use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
//! use helib_rs::{Context, Ctxt, DeserializeInContext, PubKey, SecKey};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = Context::builder().ring_degree(2048).plaintext_field::<Fr>()
//!     .ciphertext_bits(600).allow_insecure(true).build()?; // toy size, insecure
//! let sk = SecKey::generate(&ctx)?;
//! let pk = PubKey::generate(&sk)?;
//! let ct = pk.encrypt_poly(&[Fr::from(7u64)])?;
//!
//! let mut bytes = Vec::new();
//! pk.serialize_compressed(&mut bytes)?;
//! ct.serialize_compressed(&mut bytes)?;
//!
//! let mut reader = &bytes[..];
//! let pk2 = PubKey::deserialize_in(&ctx, &mut reader)?;
//! let ct2 = Ctxt::deserialize_in(&pk2, &mut reader)?;
//! assert_eq!(sk.decrypt_poly::<Fr>(&ct2)?[0], Fr::from(7u64));
//!
//! // A context reads back on its own (an insecure toy one only when asked to).
//! let mut c = Vec::new();
//! Context::for_field::<Fr>(32768, 700)?.serialize_compressed(&mut c)?;
//! assert_eq!(Context::deserialize_compressed(&c[..])?.ring_degree(), 32768);
//! # Ok(())
//! # }
//! ```

use std::io::{Read, Write};

use ark_serialize::{
    CanonicalDeserialize, CanonicalSerialize, Compress, SerializationError, Valid, Validate,
};

use crate::context::Context;
use crate::ctxt::Ctxt;
use crate::error::Error;
use crate::keys::{GaloisKeys, MasterKeys};
use crate::keys::{PubKey, SecKey};
use crate::serialization::size_limits::{ObjectKind, MAX_CONTEXT_BYTES};

/// Reading a key or a ciphertext with what it belongs to: its context (keys) or the public key
/// it is used with (ciphertexts). The bytes are those of `CanonicalSerialize`; the checks are
/// those of `from_bytes`.
pub trait DeserializeInContext: Sized {
    /// What reading needs: a [`Context`] for keys, a [`PubKey`] for ciphertexts.
    type Owner;

    /// Reads one object from `reader`.
    fn deserialize_in<R: Read>(owner: &Self::Owner, reader: R) -> Result<Self, SerializationError>;
}

/// The engine's errors as ark-serialize's: bad bytes are invalid data, anything else I/O.
fn to_ark(e: Error) -> SerializationError {
    match e {
        Error::InvalidArgument(_) | Error::Mismatch(_) | Error::InsecureParameters(_) => {
            SerializationError::InvalidData
        }
        other => SerializationError::IoError(std::io::Error::other(other)),
    }
}

fn write_prefixed<W: Write>(bytes: &[u8], mut writer: W) -> Result<(), SerializationError> {
    (bytes.len() as u64).serialize_compressed(&mut writer)?;
    writer.write_all(bytes)?;
    Ok(())
}

/// The bytes after a length prefix, read as they arrive (a forged length costs no allocation
/// beyond what the reader really holds), and refused before reading when the prefix exceeds
/// `max`, the most a valid object of the kind takes.
fn read_prefixed<R: Read>(mut reader: R, max: u64) -> Result<Vec<u8>, SerializationError> {
    let len = u64::deserialize_compressed(&mut reader)?;
    if len > max {
        return Err(SerializationError::InvalidData);
    }
    let mut bytes = Vec::new();
    let read = reader.take(len).read_to_end(&mut bytes)?;
    if read as u64 != len {
        return Err(SerializationError::IoError(std::io::Error::from(
            std::io::ErrorKind::UnexpectedEof,
        )));
    }
    Ok(bytes)
}

/// The most bytes a valid `kind` takes under `ctx`.
fn max_len(ctx: &Context, kind: ObjectKind) -> Result<u64, SerializationError> {
    ctx.max_serialized_len(kind).map_err(to_ark)
}

/// `CanonicalSerialize` as the length-prefixed `to_bytes` form.
macro_rules! canonical_bytes {
    ($ty:ty, $bytes:expr) => {
        impl CanonicalSerialize for $ty {
            fn serialize_with_mode<W: Write>(
                &self,
                writer: W,
                _compress: Compress,
            ) -> Result<(), SerializationError> {
                let bytes = $bytes(self).map_err(to_ark)?;
                write_prefixed(&bytes, writer)
            }

            fn serialized_size(&self, _compress: Compress) -> usize {
                // The engine announces sizes only for keys; the others are small or written
                // anyway. A failure (never for a live object) counts as the prefix alone.
                $bytes(self).map_or(8, |b| 8 + b.len())
            }
        }
    };
}

canonical_bytes!(Context, |c: &Context| c.to_bytes());
canonical_bytes!(PubKey, |k: &PubKey| k.to_bytes());
canonical_bytes!(GaloisKeys, |k: &GaloisKeys| k.to_bytes());
canonical_bytes!(MasterKeys, |k: &MasterKeys| k.to_bytes());
canonical_bytes!(Ctxt, |c: &Ctxt| c.to_bytes());
canonical_bytes!(SecKey, |k: &SecKey| k.to_bytes().map(|b| b.to_vec()));

impl Valid for Context {
    /// Every context that exists passed its checks when it was read or built.
    fn check(&self) -> Result<(), SerializationError> {
        Ok(())
    }
}

impl CanonicalDeserialize for Context {
    /// A >= 128-bit secure context ([`Context::from_bytes`]); insecure ones are
    /// [`SerializationError::InvalidData`] whatever `validate` says (read those with
    /// [`Context::from_bytes_allow_insecure`]).
    fn deserialize_with_mode<R: Read>(
        reader: R,
        _compress: Compress,
        _validate: Validate,
    ) -> Result<Self, SerializationError> {
        Context::from_bytes(&read_prefixed(reader, MAX_CONTEXT_BYTES)?).map_err(to_ark)
    }
}

impl DeserializeInContext for PubKey {
    type Owner = Context;
    fn deserialize_in<R: Read>(ctx: &Context, reader: R) -> Result<Self, SerializationError> {
        PubKey::from_bytes(
            ctx,
            &read_prefixed(reader, max_len(ctx, ObjectKind::PublicKey)?)?,
        )
        .map_err(to_ark)
    }
}

impl DeserializeInContext for GaloisKeys {
    type Owner = Context;
    fn deserialize_in<R: Read>(ctx: &Context, reader: R) -> Result<Self, SerializationError> {
        let max = max_len(ctx, ObjectKind::GaloisKeys(ctx.ring_degree()))?;
        GaloisKeys::from_bytes(ctx, &read_prefixed(reader, max)?).map_err(to_ark)
    }
}

impl DeserializeInContext for MasterKeys {
    type Owner = Context;
    fn deserialize_in<R: Read>(ctx: &Context, reader: R) -> Result<Self, SerializationError> {
        let max = max_len(ctx, ObjectKind::MasterKeys(ctx.ring_degree()))?;
        MasterKeys::from_bytes(ctx, &read_prefixed(reader, max)?).map_err(to_ark)
    }
}

impl DeserializeInContext for SecKey {
    type Owner = Context;
    fn deserialize_in<R: Read>(ctx: &Context, reader: R) -> Result<Self, SerializationError> {
        let max = max_len(ctx, ObjectKind::SecretKey)?;
        let bytes = zeroize::Zeroizing::new(read_prefixed(reader, max)?);
        SecKey::from_bytes(ctx, &bytes).map_err(to_ark)
    }
}

impl DeserializeInContext for Ctxt {
    type Owner = PubKey;
    fn deserialize_in<R: Read>(pk: &PubKey, reader: R) -> Result<Self, SerializationError> {
        let max = max_len(pk.context(), ObjectKind::Ciphertext)?;
        Ctxt::from_bytes(pk, &read_prefixed(reader, max)?).map_err(to_ark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GaloisSteps;
    use ark_bn254::Fr;

    fn toy() -> Context {
        Context::builder()
            .ring_degree(1024)
            .plaintext_field::<Fr>()
            .ciphertext_bits(400)
            .allow_insecure(true)
            .build()
            .unwrap()
    }

    #[test]
    fn a_prefix_beyond_the_kind_is_refused_before_reading() {
        let ctx = toy();
        let sk = SecKey::generate(&ctx).unwrap();
        let pk = PubKey::generate(&sk).unwrap();
        let mut bytes = Vec::new();
        pk.serialize_compressed(&mut bytes).unwrap();
        // A reader that would go on for ever behind a prefix one byte over the largest
        // ciphertext, and one over the largest context.
        let over = ctx.max_serialized_len(ObjectKind::Ciphertext).unwrap() + 1;
        let prefix = over.to_le_bytes();
        let endless = (&prefix[..]).chain(std::io::repeat(0));
        assert!(matches!(
            Ctxt::deserialize_in(&pk, endless),
            Err(SerializationError::InvalidData)
        ));
        let prefix = (MAX_CONTEXT_BYTES + 1).to_le_bytes();
        let endless = (&prefix[..]).chain(std::io::repeat(0));
        assert!(matches!(
            Context::deserialize_compressed(endless),
            Err(SerializationError::InvalidData)
        ));
        // The honest key still reads.
        assert!(PubKey::deserialize_in(&ctx, &bytes[..]).is_ok());
    }

    #[test]
    fn master_keys_round_trip() {
        let ctx = Context::builder()
            .ring_degree(1024)
            .plaintext_field::<Fr>()
            .ciphertext_bits(400)
            .derivable_keys(true)
            .allow_insecure(true)
            .build()
            .unwrap();
        let sk = SecKey::generate(&ctx).unwrap();
        let masters = MasterKeys::generate(&sk).unwrap();
        let mut bytes = Vec::new();
        masters.serialize_compressed(&mut bytes).unwrap();
        assert_eq!(bytes.len(), masters.compressed_size());
        let back = MasterKeys::deserialize_in(&ctx, &bytes[..]).unwrap();
        assert_eq!(back.elements(), masters.elements());
        assert!(MasterKeys::deserialize_in(&ctx, &bytes[..bytes.len() - 1]).is_err());
        assert!(back
            .derive(&GaloisSteps::new().step(17))
            .unwrap()
            .has_step(17));
    }

    #[test]
    fn round_trips_and_refuses_bad_bytes() {
        let ctx = toy();
        let sk = SecKey::generate(&ctx).unwrap();
        let pk = PubKey::generate(&sk).unwrap();
        let gk = GaloisKeys::generate(&sk, &GaloisSteps::new().step(1)).unwrap();
        let ct = pk.encrypt_poly(&[Fr::from(5u64), Fr::from(6u64)]).unwrap();

        let mut bytes = Vec::new();
        for size in [
            {
                sk.serialize_uncompressed(&mut bytes).unwrap();
                sk.uncompressed_size()
            },
            {
                gk.serialize_compressed(&mut bytes).unwrap();
                gk.compressed_size()
            },
            {
                ct.serialize_compressed(&mut bytes).unwrap();
                ct.compressed_size()
            },
        ] {
            assert!(size > 8);
        }
        let mut r = &bytes[..];
        let sk2 = SecKey::deserialize_in(&ctx, &mut r).unwrap();
        let gk2 = GaloisKeys::deserialize_in(&ctx, &mut r).unwrap();
        let mut ct2 = Ctxt::deserialize_in(&pk, &mut r).unwrap();
        assert!(r.is_empty());
        assert!(gk2.has_step(1));
        ct2.rotate_rows(1, &gk2).unwrap();
        assert_eq!(sk2.decrypt_poly::<Fr>(&ct).unwrap()[1], Fr::from(6u64));

        // Truncated, a forged length, altered bytes, another context: errors, no panic.
        let mut one = Vec::new();
        ct.serialize_compressed(&mut one).unwrap();
        assert!(Ctxt::deserialize_in(&pk, &one[..one.len() - 1]).is_err());
        let mut forged = one.clone();
        forged[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(Ctxt::deserialize_in(&pk, &forged[..]).is_err());
        let mut altered = one.clone();
        altered[12] ^= 0xff;
        assert!(matches!(
            Ctxt::deserialize_in(&pk, &altered[..]),
            Err(SerializationError::InvalidData)
        ));
        let other = Context::builder()
            .ring_degree(2048)
            .plaintext_field::<Fr>()
            .ciphertext_bits(400)
            .allow_insecure(true)
            .build()
            .unwrap();
        let mut pk_bytes = Vec::new();
        pk.serialize_compressed(&mut pk_bytes).unwrap();
        assert!(PubKey::deserialize_in(&other, &pk_bytes[..]).is_err());

        // The toy context is insecure: it reads back only through from_bytes_allow_insecure.
        let mut c = Vec::new();
        ctx.serialize_compressed(&mut c).unwrap();
        assert!(matches!(
            Context::deserialize_compressed(&c[..]),
            Err(SerializationError::InvalidData)
        ));
        assert_eq!(c.len(), ctx.compressed_size());
    }
}
