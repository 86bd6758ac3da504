//! [`Tenants`]: who may use the server, from a file of `TENANT TOKEN` lines, and the bearer
//! token check (constant time, every tenant compared).

use std::path::Path;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::StartError;

/// The shortest token accepted: 128 bits as hex. A token is a password that whoever reads
/// the traffic or the file holds, so it must not be guessable (`make serve` makes 192 bits).
pub const MIN_TOKEN_LEN: usize = 32;
/// The longest tenant name.
pub const MAX_TENANT_LEN: usize = 64;

/// The tenants and the SHA-256 of their tokens (the tokens themselves are not kept).
#[derive(Clone, Debug)]
pub struct Tenants {
    entries: Vec<(String, [u8; 32])>,
}

impl Tenants {
    /// Reads `path`: one `TENANT TOKEN` pair per line, blank lines and lines starting with `#`
    /// skipped. Tenant names are 1 to 64 of `A-Z a-z 0-9 _ -` (they name folders); tokens are
    /// at least 16 characters without spaces. A repeated tenant or token is an error.
    pub fn from_file(path: &Path) -> Result<Tenants, StartError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| StartError::Tokens(format!("{}: {e}", path.display())))?;
        Self::parse(&text).map_err(|e| StartError::Tokens(format!("{}: {e}", path.display())))
    }

    /// The tenants of a tokens file's text ([`from_file`](Self::from_file)).
    pub fn parse(text: &str) -> Result<Tenants, String> {
        let mut entries: Vec<(String, [u8; 32])> = Vec::new();
        for (number, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = || format!("line {}", number + 1);
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [tenant, token] = fields[..] else {
                return Err(format!("{}: expected `TENANT TOKEN`", at()));
            };
            if !valid_tenant(tenant) {
                return Err(format!(
                    "{}: a tenant name is 1 to {MAX_TENANT_LEN} of A-Z a-z 0-9 _ -",
                    at()
                ));
            }
            if token.len() < MIN_TOKEN_LEN {
                return Err(format!(
                    "{}: tenant {tenant}'s token is shorter than {MIN_TOKEN_LEN} characters",
                    at()
                ));
            }
            let hash = digest(token);
            if entries.iter().any(|(t, h)| t == tenant || *h == hash) {
                return Err(format!(
                    "{}: tenant {tenant} or its token is repeated",
                    at()
                ));
            }
            entries.push((tenant.to_string(), hash));
        }
        if entries.is_empty() {
            return Err("no tenants".into());
        }
        Ok(Tenants { entries })
    }

    /// The tenant whose token `token` is, comparing with every tenant's in constant time (so
    /// the time taken says nothing about which tenant or how much of a token matched).
    pub fn authenticate(&self, token: &str) -> Option<&str> {
        let hash = digest(token);
        let mut found = None;
        for (tenant, expected) in &self.entries {
            if bool::from(expected.ct_eq(&hash)) {
                found = Some(tenant.as_str());
            }
        }
        found
    }

    /// How many tenants there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Never true: a server has at least one tenant.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

fn valid_tenant(name: &str) -> bool {
    (1..=MAX_TENANT_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_name_their_tenants_and_bad_files_are_refused() {
        let t =
            Tenants::parse("# comment\n\nalice 0123456789abcdef0123456789abcdef\nbob   fedcba9876543210fedcba9876543210\n")
                .unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(
            t.authenticate("0123456789abcdef0123456789abcdef"),
            Some("alice")
        );
        assert_eq!(
            t.authenticate("fedcba9876543210fedcba9876543210"),
            Some("bob")
        );
        assert_eq!(t.authenticate("0123456789abcdef0123456789abcde"), None);
        assert_eq!(t.authenticate(""), None);
        for bad in [
            "",
            "alice",
            "alice 0123456789abcdef0123",
            "al/ice 0123456789abcdef0123456789abcdef",
            "alice 0123456789abcdef0123456789abcdef extra",
            "alice 0123456789abcdef0123456789abcdef\nalice fedcba9876543210fedcba9876543210",
            "alice 0123456789abcdef0123456789abcdef\nbob 0123456789abcdef0123456789abcdef",
        ] {
            assert!(Tenants::parse(bad).is_err(), "{bad:?}");
        }
    }
}
