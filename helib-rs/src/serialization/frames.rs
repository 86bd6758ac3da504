//! A list of byte strings as one: the count (u32, little-endian), then each string's length
//! (u64) and bytes. The form of an aggregation upload (one string per ciphertext).

use crate::error::{Error, Result};

/// The frames of `parts`.
pub(crate) fn join_frames<B: AsRef<[u8]>>(parts: &[B]) -> Result<Vec<u8>> {
    let count = u32::try_from(parts.len())
        .map_err(|_| Error::InvalidArgument("over 2^32 byte strings in one frame list".into()))?;
    let total: usize = parts.iter().map(|p| 8 + p.as_ref().len()).sum();
    let mut out = Vec::with_capacity(4 + total);
    out.extend_from_slice(&count.to_le_bytes());
    for part in parts {
        let bytes = part.as_ref();
        out.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        out.extend_from_slice(bytes);
    }
    Ok(out)
}

/// The byte strings of [`join_frames`]' form, borrowed from `bytes`: every length checked
/// against what is left, no bytes after the last. `what` names the list in errors.
pub(crate) fn split_frames<'a>(bytes: &'a [u8], what: &str) -> Result<Vec<&'a [u8]>> {
    let truncated = || Error::InvalidArgument(format!("{what} is truncated"));
    let mut rest = bytes;
    let mut take = |len: usize| -> Result<&'a [u8]> {
        if rest.len() < len {
            return Err(truncated());
        }
        let (head, tail) = rest.split_at(len);
        rest = tail;
        Ok(head)
    };
    let count = u32::from_le_bytes(take(4)?.try_into().map_err(|_| truncated())?);
    // Each frame takes at least its 8-byte length: a count beyond that is refused unallocated.
    if count as usize > bytes.len() / 8 {
        return Err(truncated());
    }
    let mut out = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = u64::from_le_bytes(take(8)?.try_into().map_err(|_| truncated())?);
        out.push(take(usize::try_from(len).map_err(|_| truncated())?)?);
    }
    if !rest.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{} bytes after the last byte string of {what}",
            rest.len()
        )));
    }
    Ok(out)
}

/// The count a frame list announces, if it has one.
pub(crate) fn frame_count(bytes: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_round_trip_and_refuse_bad_lengths() {
        let parts = [vec![1u8, 2, 3], vec![], vec![9u8; 10]];
        let bytes = join_frames(&parts).unwrap();
        assert_eq!(frame_count(&bytes), Some(3));
        let back = split_frames(&bytes, "the list").unwrap();
        assert_eq!(back, parts.iter().map(Vec::as_slice).collect::<Vec<_>>());
        for cut in 0..bytes.len() {
            assert!(
                split_frames(&bytes[..cut], "the list").is_err(),
                "cut at {cut}"
            );
        }
        let mut long = bytes.clone();
        long.push(0);
        assert!(split_frames(&long, "the list")
            .unwrap_err()
            .to_string()
            .contains("1 bytes after"));
        // A count that no length could back, and a length beyond the bytes.
        let mut forged = bytes.clone();
        forged[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(split_frames(&forged, "the list").is_err());
        let mut forged = bytes;
        forged[4..12].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(split_frames(&forged, "the list").is_err());
    }
}
