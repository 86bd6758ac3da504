//! The binary container circom and snarkjs write (`.r1cs`, `.wtns`, `.zkey`): four magic
//! bytes, a version, a section count, then each section as its type (`u32`), its length
//! (`u64`) and its bytes, all little-endian.
//!
//! Every length is checked against the bytes that are there before anything is allocated
//! for it, and every error names the file.

use std::path::Path;

use ark_ff::{BigInteger, PrimeField};

use crate::Error;

/// An error about `file`.
pub(crate) fn bad(file: &str, reason: impl Into<String>) -> Error {
    Error::File {
        file: file.to_string(),
        reason: reason.into(),
    }
}

/// The whole file, or an error naming it.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, Error> {
    std::fs::read(path).map_err(|e| bad(&path.display().to_string(), format!("cannot read: {e}")))
}

/// A parsed container: its sections' types and bytes, in file order.
pub(crate) struct Sections<'a> {
    file: &'a str,
    sections: Vec<(u32, &'a [u8])>,
}

impl<'a> Sections<'a> {
    /// Parses the container of `bytes`, which must start with `magic` and carry one of
    /// `versions`; `what` names the kind of file in errors ("a circom circuit (.r1cs)").
    pub(crate) fn parse(
        file: &'a str,
        bytes: &'a [u8],
        magic: &[u8; 4],
        versions: &[u32],
        what: &str,
    ) -> Result<Self, Error> {
        let mut r = Reader::new(file, "header", bytes);
        if r.take(4).ok() != Some(&magic[..]) {
            return Err(bad(
                file,
                format!("not {what}: it does not start with {magic:?}"),
            ));
        }
        let version = r.u32()?;
        if !versions.contains(&version) {
            return Err(bad(
                file,
                format!("version {version} of {what}; this reader takes {versions:?}"),
            ));
        }
        let count = r.u32()?;
        // Each section takes at least its 12-byte head.
        if count as usize > r.remaining() / 12 {
            return Err(bad(
                file,
                format!("{count} sections in {} bytes", bytes.len()),
            ));
        }
        let mut sections = Vec::with_capacity(count as usize);
        for _ in 0..count {
            let kind = r.u32()?;
            let len = r.u64()?;
            let len = usize::try_from(len)
                .ok()
                .filter(|&l| l <= r.remaining())
                .ok_or_else(|| {
                    bad(
                        file,
                        format!(
                            "section {kind} claims {len} bytes, {} are left",
                            r.remaining()
                        ),
                    )
                })?;
            sections.push((kind, r.take(len)?));
        }
        r.finish()?;
        Ok(Sections { file, sections })
    }

    /// The one section of type `kind` (`name` for errors).
    pub(crate) fn get(&self, kind: u32, name: &'static str) -> Result<Reader<'a>, Error> {
        let mut found = self.sections.iter().filter(|(k, _)| *k == kind);
        match (found.next(), found.next()) {
            (Some(&(_, bytes)), None) => Ok(Reader::new(self.file, name, bytes)),
            (None, _) => Err(bad(self.file, format!("no {name} section (type {kind})"))),
            (Some(_), Some(_)) => Err(bad(self.file, format!("two {name} sections (type {kind})"))),
        }
    }

    /// Whether a section of type `kind` is present.
    pub(crate) fn has(&self, kind: u32) -> bool {
        self.sections.iter().any(|(k, _)| *k == kind)
    }
}

/// A bounded little-endian reader over one section.
pub(crate) struct Reader<'a> {
    file: &'a str,
    section: &'static str,
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(file: &'a str, section: &'static str, bytes: &'a [u8]) -> Self {
        Reader {
            file,
            section,
            bytes,
            pos: 0,
        }
    }

    /// An error about this section.
    pub(crate) fn bad(&self, reason: impl AsRef<str>) -> Error {
        bad(
            self.file,
            format!("{} section: {}", self.section, reason.as_ref()),
        )
    }

    /// Bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.remaining() {
            return Err(self.bad(format!("ends {} bytes early", n - self.remaining())));
        }
        let out = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(crate) fn u32(&mut self) -> Result<u32, Error> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self) -> Result<u64, Error> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// A count of items of at least `item_bytes` bytes each, refused when the section cannot
    /// hold that many: what a caller may then allocate for.
    pub(crate) fn count(&mut self, item_bytes: usize, what: &str) -> Result<usize, Error> {
        let n = self.u32()? as usize;
        self.check_room(n, item_bytes, what)?;
        Ok(n)
    }

    /// Refuses `n` items of `item_bytes` each when fewer bytes are left.
    pub(crate) fn check_room(&self, n: usize, item_bytes: usize, what: &str) -> Result<(), Error> {
        if n.checked_mul(item_bytes)
            .is_none_or(|need| need > self.remaining())
        {
            return Err(self.bad(format!(
                "{n} {what} of {item_bytes} bytes each do not fit in the {} bytes left",
                self.remaining()
            )));
        }
        Ok(())
    }

    /// The end of the section: anything left over is an error.
    pub(crate) fn finish(&self) -> Result<(), Error> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(self.bad(format!("{n} bytes after its end"))),
        }
    }

    /// A field's modulus as written (`n8` bytes, little-endian), checked to be `F`'s: the
    /// file is for this field, or an error says it is not.
    pub(crate) fn modulus<F: PrimeField>(&mut self, n8: usize, field: &str) -> Result<(), Error> {
        let written = self.take(n8)?;
        let ours = F::MODULUS.to_bytes_le();
        if written != ours.as_slice() {
            return Err(self.bad(format!(
                "its prime is not {field}'s ({n8}-byte prime; another curve or field?)"
            )));
        }
        Ok(())
    }

    /// A field element in plain form (`n8` bytes, little-endian), refused when not below the
    /// modulus.
    pub(crate) fn element<F: PrimeField>(&mut self, n8: usize) -> Result<F, Error> {
        let b = self.take(n8)?;
        F::deserialize_uncompressed(b)
            .map_err(|_| self.bad("a field element is not below the prime"))
    }
}
