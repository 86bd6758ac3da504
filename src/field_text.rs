//! BN254 scalars as text: one decimal integer in `[0, p)` a line, as the `fft` example reads
//! its `--input` and writes its `--output`.

use std::path::Path;
use std::str::FromStr;

use ark_bn254::Fr;

use crate::job::BoxError;

/// The most bytes of a line: 77 digits, spaces around them and the newline.
const MAX_LINE_BYTES: u64 = 80;

/// The values of the file at `path`, one a line (blank lines skipped), for a transform of at
/// most `max_values` points. No more than `max_values` lines' worth of bytes is read, whatever
/// the file is (a device or a pipe reports no length), and the line count is checked
/// ([`check_size`](crate::job::check_size)) before any value is parsed. Errors name the file
/// and the line.
pub fn read_elements(path: &Path, max_values: usize) -> Result<Vec<Fr>, BoxError> {
    let shown = path.display();
    let max = MAX_LINE_BYTES.saturating_mul(max_values as u64);
    let bytes = helib_rs::read_file_at_most(path, max)?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{shown} is not text"))?;
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    if let Err(e) = crate::job::check_size(lines.len()) {
        return Err(format!("{shown} holds {} values: {e}", lines.len()).into());
    }
    if lines.len() > max_values {
        return Err(format!(
            "{shown} holds {} values, more than {max_values}",
            lines.len()
        )
        .into());
    }
    Ok(lines
        .into_iter()
        .map(|(i, l)| parse_element(l).map_err(|e| format!("{shown}:{}: {e}", i + 1)))
        .collect::<Result<_, _>>()?)
}

/// A decimal integer in `[0, p)`: no sign, no reduction of larger numbers.
pub fn parse_element(s: &str) -> Result<Fr, String> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s:?} is not a decimal integer"));
    }
    let value = Fr::from_str(s).map_err(|_| format!("{s:?} is not a field element"))?;
    // from_str reduces mod p; a different canonical form means the input was >= p.
    let canonical = value.to_string();
    if canonical != s.trim_start_matches('0') && !(canonical == "0" && s.bytes().all(|b| b == b'0'))
    {
        return Err(format!("{s} is not below the BN254 scalar field modulus"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::PrimeField;

    fn temp(name: &str, text: &[u8]) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("field-text-{}-{name}", std::process::id()));
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn values_round_trip_and_bad_lines_are_named() {
        let path = temp("ok", b"1\n\n  2 \n3\n0\n");
        let got = read_elements(&path, 16).unwrap();
        assert_eq!(got, [1u64, 2, 3, 0].map(Fr::from));
        let p = Fr::MODULUS.to_string();
        std::fs::write(&path, format!("1\n{p}\n3\n4\n")).unwrap();
        let err = read_elements(&path, 16).unwrap_err().to_string();
        assert!(err.contains(":2:") && err.contains("not below"), "{err}");
        std::fs::write(&path, "1\n-2\n3\n4\n").unwrap();
        assert!(read_elements(&path, 16).is_err());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn counts_are_checked_before_parsing() {
        // Three lines of garbage: a size no transform takes, refused for its count.
        let path = temp("count", b"x\ny\nz\n");
        let err = read_elements(&path, 16).unwrap_err().to_string();
        assert!(err.contains("holds 3 values"), "{err}");
        // More lines than the caller takes.
        std::fs::write(&path, "1\n".repeat(32)).unwrap();
        let err = read_elements(&path, 16).unwrap_err().to_string();
        assert!(err.contains("more than"), "{err}");
        std::fs::remove_file(&path).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn an_endless_device_is_refused_after_a_bounded_read() {
        let err = read_elements(Path::new("/dev/zero"), 1024)
            .unwrap_err()
            .to_string();
        assert!(err.contains("more than"), "{err}");
    }
}
