//! The byte form of the parties' messages: a tag naming the message, then fields in order.
//! Byte strings carry their length (checked against what is left before anything is
//! allocated), group elements are arkworks' compressed points (checked on the curve and in
//! the subgroup), and a message must end where its last field does.

use ark_serialize::{CanonicalDeserialize, CanonicalSerialize};

use crate::Error;

/// Appends fields to a message.
pub(crate) struct Writer(Vec<u8>);

impl Writer {
    pub(crate) fn new(tag: &[u8; 8]) -> Self {
        Writer(tag.to_vec())
    }

    pub(crate) fn u32(mut self, v: u32) -> Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }

    pub(crate) fn bytes(mut self, b: &[u8]) -> Self {
        self.0.extend_from_slice(&(b.len() as u64).to_le_bytes());
        self.0.extend_from_slice(b);
        self
    }

    /// A list of at most `max` byte strings, as [`Reader::list`] reads it.
    pub(crate) fn list(self, items: &[Vec<u8>], max: usize) -> Result<Self, Error> {
        if items.len() > max {
            return Err(Error::InvalidInput(format!(
                "{} entries in a list of at most {max}",
                items.len()
            )));
        }
        Ok(items
            .iter()
            .fold(self.u32(items.len() as u32), |w, b| w.bytes(b)))
    }

    pub(crate) fn point(mut self, p: &impl CanonicalSerialize) -> Result<Self, Error> {
        p.serialize_compressed(&mut self.0)
            .map_err(|e| Error::InvalidInput(format!("a group element does not serialize: {e}")))?;
        Ok(self)
    }

    pub(crate) fn finish(self) -> Vec<u8> {
        self.0
    }
}

/// Reads a message's fields in order; every failure names the message.
pub(crate) struct Reader<'a> {
    rest: &'a [u8],
    what: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8], tag: &[u8; 8], what: &'static str) -> Result<Self, Error> {
        match bytes.strip_prefix(tag.as_slice()) {
            Some(rest) => Ok(Reader { rest, what }),
            None => Err(Error::InvalidInput(format!("these bytes are not a {what}"))),
        }
    }

    fn fail(&self, why: impl std::fmt::Display) -> Error {
        Error::InvalidInput(format!("a malformed {what}: {why}", what = self.what))
    }

    fn take(&mut self, len: usize, field: &str) -> Result<&'a [u8], Error> {
        if len > self.rest.len() {
            return Err(self.fail(format!(
                "{field} needs {len} bytes, {} are left",
                self.rest.len()
            )));
        }
        let (head, tail) = self.rest.split_at(len);
        self.rest = tail;
        Ok(head)
    }

    pub(crate) fn u32(&mut self, field: &str) -> Result<u32, Error> {
        let b = self.take(4, field)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn bytes(&mut self, field: &str) -> Result<Vec<u8>, Error> {
        let b = self.take(8, field)?;
        let len = u64::from_le_bytes(b.try_into().unwrap_or([0xff; 8]));
        let len = usize::try_from(len).map_err(|_| self.fail(format!("{field} is too long")))?;
        Ok(self.take(len, field)?.to_vec())
    }

    /// A list of at most `max` byte strings.
    pub(crate) fn list(&mut self, max: usize, field: &str) -> Result<Vec<Vec<u8>>, Error> {
        let count = self.u32(field)? as usize;
        if count > max {
            return Err(self.fail(format!(
                "{count} entries for {field}, at most {max} expected"
            )));
        }
        (0..count).map(|_| self.bytes(field)).collect()
    }

    pub(crate) fn point<P: CanonicalDeserialize>(&mut self, field: &str) -> Result<P, Error> {
        P::deserialize_compressed(&mut self.rest)
            .map_err(|e| self.fail(format!("{field} is not a group element ({e})")))
    }

    pub(crate) fn end(self) -> Result<(), Error> {
        if self.rest.is_empty() {
            Ok(())
        } else {
            Err(self.fail(format!("{} bytes after its last field", self.rest.len())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_read_back_and_bad_lengths_are_refused() {
        let bytes = Writer::new(b"TESTMSG1")
            .u32(7)
            .list(&[vec![1, 2, 3], vec![]], 2)
            .unwrap()
            .bytes(&[9; 5])
            .finish();
        assert!(Writer::new(b"TESTMSG1").list(&[vec![], vec![]], 1).is_err());
        let mut r = Reader::new(&bytes, b"TESTMSG1", "test message").unwrap();
        assert_eq!(r.u32("n").unwrap(), 7);
        assert_eq!(r.list(2, "l").unwrap(), vec![vec![1, 2, 3], vec![]]);
        assert_eq!(r.bytes("b").unwrap(), vec![9; 5]);
        r.end().unwrap();

        assert!(Reader::new(&bytes, b"OTHERMSG", "other").is_err());
        // A list longer than allowed, a length past the end, trailing bytes.
        let mut r = Reader::new(&bytes, b"TESTMSG1", "test message").unwrap();
        r.u32("n").unwrap();
        assert!(r.list(1, "l").is_err());
        let cut = &bytes[..bytes.len() - 1];
        let mut r = Reader::new(cut, b"TESTMSG1", "test message").unwrap();
        r.u32("n").unwrap();
        r.list(2, "l").unwrap();
        let e = r.bytes("b").unwrap_err().to_string();
        assert!(e.contains("b needs 5 bytes, 4 are left"), "{e}");
        let mut long = bytes.clone();
        long.push(0);
        let mut r = Reader::new(&long, b"TESTMSG1", "test message").unwrap();
        r.u32("n").unwrap();
        r.list(2, "l").unwrap();
        r.bytes("b").unwrap();
        assert!(r.end().is_err());
    }
}
