//! Sharded builds (design decision 7): the shard of a record, [`engine::shard`] (shared with
//! `fixdex eval defects4j --shard`), re-exported.

pub use engine::shard::{SCHEDULER_VARS, SHARD_PLACEHOLDER, Shard, ShardError};

impl From<ShardError> for crate::Error {
    fn from(e: ShardError) -> Self {
        crate::Error::Shard { spec: e.spec, reason: e.reason }
    }
}
