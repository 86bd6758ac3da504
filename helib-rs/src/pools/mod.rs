//! One-time encryption pools: [`EncryptionPool`] (zeros in memory) and [`PoolFile`] (zeros on
//! disk). They encode and then encrypt, so they sit above both `ctxt/` and `encoding/`.

mod encryption_pool;
mod pool_file;

pub use encryption_pool::{EncryptionPool, MAX_POOL_SIZE};
pub use pool_file::PoolFile;
