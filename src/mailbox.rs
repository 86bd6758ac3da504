//! A directory as the channel between processes: each message a file, written whole under a
//! temporary name and renamed, so a reader never sees half of one. What `examples/cosnark.rs`
//! runs its parties on; a deployment would put TCP or a message queue in its place.

use std::fs;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::job::BoxError;

/// Messages between processes as files in one directory.
#[derive(Clone, Debug)]
pub struct Mailbox {
    dir: PathBuf,
    timeout: Duration,
}

impl Mailbox {
    /// The mailbox in `dir` (created if missing, readable by this user only); a wait gives up
    /// after `timeout`.
    pub fn new(dir: &Path, timeout: Duration) -> Result<Mailbox, BoxError> {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot create the mailbox {}: {e}", dir.display()))?;
        Ok(Mailbox {
            dir: dir.to_path_buf(),
            timeout,
        })
    }

    /// The mailbox's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Posts `bytes` as message `name` (mode 0600: shares of secrets travel this way) and
    /// returns its length.
    pub fn post(&self, name: &str, bytes: &[u8]) -> Result<u64, BoxError> {
        let path = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.partial"));
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, &path).map_err(|e| format!("cannot post {}: {e}", path.display()))?;
        Ok(bytes.len() as u64)
    }

    /// [`wait`](Self::wait), then removes the message: for secrets meant for one reader.
    pub fn take(
        &self,
        name: &str,
        alive: &mut dyn FnMut() -> Result<(), BoxError>,
    ) -> Result<Vec<u8>, BoxError> {
        let bytes = self.wait(name, alive)?;
        let path = self.dir.join(name);
        fs::remove_file(&path).map_err(|e| format!("cannot remove {}: {e}", path.display()))?;
        Ok(bytes)
    }

    /// Waits for message `name` and reads it. `alive` is asked between looks (a failed
    /// peer process ends the wait with its error); past the timeout the error names the
    /// message.
    pub fn wait(
        &self,
        name: &str,
        alive: &mut dyn FnMut() -> Result<(), BoxError>,
    ) -> Result<Vec<u8>, BoxError> {
        let path = self.dir.join(name);
        let start = Instant::now();
        loop {
            match fs::read(&path) {
                Ok(bytes) => return Ok(bytes),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(format!("cannot read {}: {e}", path.display()).into()),
            }
            alive()?;
            if start.elapsed() > self.timeout {
                return Err(format!(
                    "no message {name} in {} after {:.0} s",
                    self.dir.display(),
                    self.timeout.as_secs_f64()
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_posted_message_is_read_and_a_missing_one_times_out() {
        let dir = std::env::temp_dir().join(format!("mailbox-test-{}", std::process::id()));
        let m = Mailbox::new(&dir, Duration::from_millis(50)).unwrap();
        assert_eq!(m.post("hello", b"abc").unwrap(), 3);
        assert_eq!(m.wait("hello", &mut || Ok(())).unwrap(), b"abc");
        assert_eq!(m.take("hello", &mut || Ok(())).unwrap(), b"abc");
        assert!(!dir.join("hello").exists());
        let e = m.wait("absent", &mut || Ok(())).unwrap_err().to_string();
        assert!(e.contains("no message absent"), "{e}");
        let e = m
            .wait("absent", &mut || Err("peer 2 failed".into()))
            .unwrap_err();
        assert_eq!(e.to_string(), "peer 2 failed");
        fs::remove_dir_all(&dir).unwrap();
    }
}
