//! The library side of `fixdex bench`: reading its inputs, measuring the machine and the
//! process, and the figures it reports. The binary only parses flags, times the passes and
//! prints one JSON line per measurement.
//!
//! | file | responsibility |
//! | --- | --- |
//! | [`vecs`] | TEXMEX `.fvecs` / `.ivecs`, NumPy float32 `.npy` and snippet JSONL, parsed from their bytes |
//! | [`host`] | [`Host`]: CPU model, vendor, logical CPUs, SIMD features (the `host` object of every line) |
//! | [`cpu`] | [`CpuReading`]: this process's CPU time and resident memory, from `/proc` |
//! | [`measure`] | recall@k against exact neighbours, MiniLM FLOPs, CPU utilisation, cosine to a reference |
//! | [`raw`] | an index over raw vectors (no model, no text): what `bench ann` searches |
//!
//! ```
//! use engine::bench::{measure, vecs};
//!
//! // Two 2-dimensional vectors in TEXMEX .fvecs: int32 dim, then dim f32, per vector.
//! let mut bytes = Vec::new();
//! for v in [[1.0f32, 0.0], [0.0, 1.0]] {
//!     bytes.extend(2u32.to_le_bytes());
//!     v.iter().for_each(|x| bytes.extend(x.to_le_bytes()));
//! }
//! let (flat, dim) = vecs::parse_fvecs(&bytes)?;
//! assert_eq!((flat, dim), (vec![1.0, 0.0, 0.0, 1.0], 2));
//! assert_eq!(measure::recall_at(&[vec![3, 9]], &[vec![3, 4]], 2), 0.5);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod cpu;
pub mod host;
pub mod measure;
pub mod raw;
pub mod vecs;

pub use cpu::CpuReading;
pub use host::Host;
