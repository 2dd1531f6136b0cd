//! The bf16 projections on Intel AMX (Advanced Matrix Extensions: Sapphire Rapids and later).
//!
//! AMX adds eight tile registers (`tmm0`–`tmm7`, up to 16 rows × 64 bytes each) and
//! `tdpbf16ps`, which multiplies a `16 × 32` bf16 tile of `A` by a `32 × 16` bf16 tile of
//! `B` (stored as 16 rows of 16 bf16 pairs, the "VNNI" layout) into a `16 × 16` f32 tile:
//! 8,192 multiply-adds in one instruction, 16× what one `vdpbf16ps` on 512-bit registers
//! does. Each output is an f32 sum of bf16 × bf16 products, as in the AVX-512 kernel
//! (denormal inputs and outputs are flushed to zero, as the instruction defines; Intel 64
//! and IA-32 Architectures Software Developer's Manual, vol. 2, `TDPBF16PS`).
//!
//! Blocking: [`gemm_rows`] converts [`BLOCK_ROWS`] rows of `A` at a time to bf16 (row-major,
//! `k` padded to the packed `B`'s `2 · kp`), then for every [`super::NR`]-column panel of
//! `B` keeps a `32 × 32` block of `C` in four tiles (`tmm0`–`tmm3`), loads two `A` tiles
//! (`tmm4`, `tmm5`) and two `B` tiles (`tmm6`, `tmm7`) per 32 values of `k`, and issues
//! four `tdpbf16ps`. The packed `B` ([`super::PackedB`]) is already in the VNNI layout:
//! a panel's rows of [`super::NR`] words are two `B` tiles side by side, loaded with a
//! 128-byte row stride; `kp` is padded to a multiple of 16 at packing for this kernel.
//!
//! Measured on an Intel Xeon (Sapphire Rapids class, 2-vCPU KVM guest), one thread,
//! `[2048, 384] · [384, 1536]` with the conversion of `A`: ~450 GFLOP/s, against ~110 for
//! faer's f32 and ~83 for the AVX-512 bf16 kernel (issue 12's notes).
//!
//! Operating-system support: Linux enables the tile data state only for a process that
//! asks (`arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`, Linux 5.16+,
//! Documentation/arch/x86/xstate.rst); without the request the first tile instruction
//! raises SIGILL, which is how an earlier note came to read AMX as "faulting in this VM".
//! [`available`] asks once, then runs a one-tile self-test against the scalar product.
//! `FIXDEX_AMX=off` turns the kernel off (for side-by-side measurement).
//!
//! Safety: Rust has no stable AMX intrinsics, so the tile instructions are inline assembly
//! (the workspace's third recorded `unsafe` exception, after the mmap and `vdpbf16ps`).
//! Every tile load reads `16` rows of `64` bytes at `base + row · stride`; each `base` is
//! the start of a slice whose length is checked (by slicing, which panics when short) to
//! cover the last row, so no access leaves its slice. Stores go to a local `32 × 32` f32
//! array. The tile configuration is loaded at the start of every [`gemm_rows`] call on the
//! calling thread and released at its end; nothing else in the process uses the tiles.

use std::sync::OnceLock;

use super::{NR, PackedB};

/// Rows of `A` per block: two tiles of 16.
pub const BLOCK_ROWS: usize = 32;

/// bf16 pairs (`k / 2`) per tile: 16 rows of the `B` tile, 64 bytes of each `A` row.
pub const KP_STEP: usize = 16;

/// Whether AMX-BF16 runs here: the CPU says so (CPUID leaf 7: AMX-TILE and AMX-BF16), the
/// kernel granted this process the tile data state, a tile product matches the scalar one,
/// and `FIXDEX_AMX` is not `off`/`0`. Decided once per process.
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        let off = std::env::var("FIXDEX_AMX").is_ok_and(|v| matches!(v.as_str(), "off" | "0" | "false"));
        !off && super::available() && os::cpu_has_amx_bf16() && os::request_tile_data() && self_test()
    })
}

/// Rows of `A` per outer block of [`gemm_rows`]: every 32-row block of them meets a group
/// of [`PANEL_GROUP`] panels of `B` while those stay in L1/L2. The encoder's groups are ~768
/// tokens, so in practice one block: each panel of the weights is read once per call. (256
/// ran ~5 % slower in the encoder: the weights were read three times per group.)
pub const OUTER_ROWS: usize = 1024;

/// Panels of `B` ([`NR`] columns each) per group in [`gemm_rows`].
pub const PANEL_GROUP: usize = 4;

thread_local! {
    /// This thread's bf16 copy of `A` (reused across calls: a fresh 2 MiB buffer per
    /// projection cost page faults).
    static A_BF16: std::cell::RefCell<Vec<u16>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `dst[m, n] = a[m, k] · b` on this thread with AMX tiles; `a` and `dst` row-major f32.
///
/// `a` is converted to bf16 once (rows padded to `2 · kp` values and to a multiple of
/// [`BLOCK_ROWS`] rows with zeros); blocks of `C` are stored by the tiles straight into
/// `dst` where a whole `32 × 32` block fits, through a local block otherwise (the edges).
/// Loop order (outer to inner): [`OUTER_ROWS`] rows, groups of [`PANEL_GROUP`] panels, 32
/// rows, panel. Measured on `[768, k] · [k, n]` at the encoder's shapes with the operands
/// in cache: 500-1,000 GFLOP/s on one Sapphire Rapids core, against 470-940 for
/// rows-then-panels; inside the encoder (weights streamed from memory) ~580.
///
/// # Panics
/// When [`available`] is false, or the shapes disagree (`a.len() != m · k`,
/// `dst.len() != m · n`, `b`'s `kp` not a multiple of [`KP_STEP`]).
pub fn gemm_rows(dst: &mut [f32], a: &[f32], m: usize, b: &PackedB) {
    assert!(available(), "AMX GEMM without AMX (check amx::available() first)");
    let (k, n, kp) = (b.k, b.n, b.kp);
    assert!(kp.is_multiple_of(KP_STEP), "PackedB: kp {kp} is not a multiple of {KP_STEP}");
    assert_eq!((a.len(), dst.len()), (m * k, m * n), "AMX gemm: shapes");
    let row = 2 * kp; // bf16 values per converted row of A
    A_BF16.with_borrow_mut(|abuf| {
        abuf.resize(m.next_multiple_of(BLOCK_ROWS) * row, 0);
        convert_rows(abuf, a, k, row);
        let panels = n.div_ceil(NR);
        let mut edge = [[0f32; NR]; BLOCK_ROWS];
        os::with_tiles(|tiles| {
            for outer in (0..m).step_by(OUTER_ROWS) {
                for group in (0..panels).step_by(PANEL_GROUP) {
                    for m0 in (outer..m.min(outer + OUTER_ROWS)).step_by(BLOCK_ROWS) {
                        let ablock = &abuf[m0 * row..][..BLOCK_ROWS * row];
                        for panel in group..panels.min(group + PANEL_GROUP) {
                            let bpanel = &b.data[panel * kp * NR..][..kp * NR];
                            let (j0, rows) = (panel * NR, BLOCK_ROWS.min(m - m0));
                            let cols = NR.min(n - j0);
                            if rows == BLOCK_ROWS && cols == NR {
                                let c = &mut dst[m0 * n + j0..][..(BLOCK_ROWS - 1) * n + NR];
                                tiles.block(ablock, row, bpanel, c, n);
                                continue;
                            }
                            tiles.block(ablock, row, bpanel, edge.as_flattened_mut(), NR);
                            for (r, t) in edge.iter().enumerate().take(rows) {
                                dst[(m0 + r) * n + j0..][..cols].copy_from_slice(&t[..cols]);
                            }
                        }
                    }
                }
            }
        });
    });
}

/// `a` (`rows × k` f32) to bf16 in `abuf` (at least `rows` rows of `row` values), each row
/// padded with zeros to `row` values and the rows past `a`'s zeroed.
fn convert_rows(abuf: &mut [u16], a: &[f32], k: usize, row: usize) {
    let rows = a.len() / k.max(1);
    for (r, out) in abuf.chunks_exact_mut(row).enumerate() {
        if r < rows {
            super::round_row(&mut out[..k], &a[r * k..][..k]);
            out[k..].fill(0);
        } else {
            out.fill(0);
        }
    }
}

/// One 16 × 32 · 32 × 16 tile product against the scalar sum of the same bf16 products.
fn self_test() -> bool {
    let (m, k, n) = (16, 32, NR);
    let a: Vec<f32> = (0..m * k).map(|i| ((i * 37) % 17) as f32 / 8.0 - 1.0).collect();
    let w: Vec<f32> = (0..k * n).map(|i| ((i * 11) % 13) as f32 / 4.0 - 1.5).collect();
    let packed = PackedB::pack(&w, k, n);
    let mut c = vec![f32::NAN; m * n];
    os::with_tiles(|tiles| {
        let mut abuf = vec![0u16; BLOCK_ROWS * 2 * packed.kp];
        convert_rows(&mut abuf, &a, k, 2 * packed.kp);
        let mut block = [[0f32; NR]; BLOCK_ROWS];
        tiles.block(&abuf, 2 * packed.kp, &packed.data, block.as_flattened_mut(), NR);
        for (r, t) in block.iter().take(m).enumerate() {
            c[r * n..][..n].copy_from_slice(t);
        }
    });
    // Every input is a multiple of 1/8 with few bits: products and sums are exact.
    (0..m).all(|i| (0..n).all(|j| c[i * n + j] == (0..k).map(|x| a[i * k + x] * w[x * n + j]).sum::<f32>()))
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
#[allow(unsafe_code)]
mod os {
    use std::arch::asm;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::{BLOCK_ROWS, KP_STEP, NR};

    /// Set once the OS granted the tile data state and the CPU has AMX-BF16.
    static GRANTED: AtomicBool = AtomicBool::new(false);

    /// CPUID leaf 7, sub-leaf 0, EDX: bit 22 AMX-BF16, bit 24 AMX-TILE.
    pub fn cpu_has_amx_bf16() -> bool {
        let leaf7 = std::arch::x86_64::__cpuid_count(7, 0);
        leaf7.edx & (1 << 22) != 0 && leaf7.edx & (1 << 24) != 0
    }

    /// `arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)`: true when granted.
    /// Called only after [`cpu_has_amx_bf16`] returned true.
    pub fn request_tile_data() -> bool {
        const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
        const XFEATURE_XTILEDATA: libc::c_long = 18;
        // SAFETY: arch_prctl with these arguments reads no memory; it only changes the
        // process's permitted extended-state features (or fails, returning -1).
        let granted = unsafe { libc::syscall(libc::SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) } == 0;
        GRANTED.store(granted && cpu_has_amx_bf16(), Ordering::Relaxed);
        granted
    }

    /// The 64-byte tile configuration (palette 1): eight tiles of 16 rows × 64 bytes.
    #[repr(C, align(64))]
    struct Config {
        palette: u8,
        start_row: u8,
        reserved: [u8; 14],
        colsb: [u16; 16],
        rows: [u8; 16],
    }

    /// Proof that the tile configuration is loaded on this thread (see [`with_tiles`]).
    pub struct Tiles(());

    /// Runs `f` with the tiles configured on this thread, releasing them afterwards.
    pub fn with_tiles<R>(f: impl FnOnce(&Tiles) -> R) -> R {
        assert!(GRANTED.load(Ordering::Relaxed), "AMX tiles used before the OS granted them");
        let mut cfg = Config { palette: 1, start_row: 0, reserved: [0; 14], colsb: [0; 16], rows: [0; 16] };
        cfg.colsb[..8].fill(64);
        cfg.rows[..8].fill(16);
        // SAFETY: the CPU has AMX-TILE and the OS granted the tile state (`GRANTED`,
        // asserted above); `ldtilecfg` reads the 64 bytes of `cfg`.
        unsafe { asm!("ldtilecfg [{}]", in(reg) &raw const cfg, options(nostack, readonly)) };
        let r = f(&Tiles(()));
        // SAFETY: as above; releases this thread's tile state.
        unsafe { asm!("tilerelease", options(nostack, nomem)) };
        r
    }

    impl Tiles {
        /// `c[r · c_stride + j] = (abuf · panel)[r][j]` for the 32 × [`NR`] block, where
        /// `abuf` is [`BLOCK_ROWS`] rows of `row` bf16 values and `panel` is `row / 2` pairs ×
        /// [`NR`] words.
        ///
        /// # Panics
        /// When the slices are shorter than that, or `c` ends before the block's last value
        /// (`c.len() < 31 · c_stride + NR`, or `c_stride < NR`).
        pub fn block(&self, abuf: &[u16], row: usize, panel: &[u32], c: &mut [f32], c_stride: usize) {
            let kp = row / 2;
            assert!(row.is_multiple_of(2 * KP_STEP) && abuf.len() == BLOCK_ROWS * row && panel.len() == kp * NR);
            assert!(c_stride >= NR && c.len() >= (BLOCK_ROWS - 1) * c_stride + NR, "AMX block: C too short");
            let a_stride = 2 * row; // bytes per row of abuf
            let b_stride = 4 * NR; // bytes per row pair of the panel
            // SAFETY: the tiles are configured (`self` exists only inside `with_tiles`).
            unsafe {
                asm!("tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3", options(nostack, nomem));
            };
            for p0 in (0..kp).step_by(KP_STEP) {
                // Each tile reads 16 rows of 64 bytes at base + r · stride: the slices
                // below end at or after the last byte read (slicing panics otherwise).
                let a0 = &abuf[2 * p0..][..15 * row + 2 * KP_STEP];
                let a1 = &abuf[16 * row + 2 * p0..][..15 * row + 2 * KP_STEP];
                let b0 = &panel[p0 * NR..][..15 * NR + 16];
                let b1 = &panel[p0 * NR + 16..][..15 * NR + 16];
                // SAFETY: tiles configured; every load stays inside its slice (above).
                unsafe {
                    asm!(
                        "tileloadd tmm4, [{a0} + {sa}]",
                        "tileloadd tmm6, [{b0} + {sb}]",
                        "tdpbf16ps tmm0, tmm4, tmm6",
                        "tileloadd tmm7, [{b1} + {sb}]",
                        "tdpbf16ps tmm1, tmm4, tmm7",
                        "tileloadd tmm5, [{a1} + {sa}]",
                        "tdpbf16ps tmm2, tmm5, tmm6",
                        "tdpbf16ps tmm3, tmm5, tmm7",
                        a0 = in(reg) a0.as_ptr(), a1 = in(reg) a1.as_ptr(),
                        b0 = in(reg) b0.as_ptr(), b1 = in(reg) b1.as_ptr(),
                        sa = in(reg) a_stride, sb = in(reg) b_stride,
                        options(nostack, readonly),
                    );
                };
            }
            // Each store writes 16 rows of 64 bytes (16 f32) at a `4 · c_stride`-byte stride;
            // the four start at rows 0 and 16, columns 0 and 16 of the block: the last value
            // written is at 31 · c_stride + 31 < c.len() (asserted above).
            let (c0, c1) = c.split_at_mut(16 * c_stride);
            let (t0, t2) = (&mut c0[..15 * c_stride + 32], &mut c1[..15 * c_stride + 32]);
            // SAFETY: tiles configured; each store stays inside `t0` or `t2` (above).
            unsafe {
                asm!(
                    "tilestored [{c0} + {s}], tmm0",
                    "tilestored [{c1} + {s}], tmm1",
                    "tilestored [{c2} + {s}], tmm2",
                    "tilestored [{c3} + {s}], tmm3",
                    c0 = in(reg) t0.as_mut_ptr(), c1 = in(reg) t0[16..].as_mut_ptr(),
                    c2 = in(reg) t2.as_mut_ptr(), c3 = in(reg) t2[16..].as_mut_ptr(),
                    s = in(reg) 4 * c_stride,
                    options(nostack),
                );
            };
        }
    }
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
mod os {
    pub fn cpu_has_amx_bf16() -> bool {
        false
    }

    pub fn request_tile_data() -> bool {
        false
    }

    pub struct Tiles(());

    pub fn with_tiles<R>(_: impl FnOnce(&Tiles) -> R) -> R {
        unreachable!("AMX is used only on x86_64 Linux")
    }

    impl Tiles {
        pub fn block(&self, _: &[u16], _: usize, _: &[u32], _: &mut [f32], _: usize) {
            unreachable!("AMX is used only on x86_64 Linux")
        }
    }
}
