//! Zobrist keys with a fixed seed, from a tiny self-contained PRNG (SplitMix64), so hashes are the
//! same on every build and every run (the `rand` crate's generators may change between versions).

use std::sync::OnceLock;

/// Largest number of padded cells any board uses ((64 + 10) squared).
pub const MAX_CELLS: usize = 74 * 74;

/// Seed of the key generator. Changing it changes every hash (and the bench signature).
pub const SEED: u64 = 0x05EE_D0F2_E45A;

/// SplitMix64: a small, well-mixed 64-bit generator (public-domain algorithm by S. Vigna).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// A seed that differs between runs, for choices meant to vary (swap2 proposals, the referee's
/// shuffle without `--seed`): the clock's nanoseconds and the process id. Callers log it.
pub fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

/// Per-colour, per-padded-cell keys.
pub struct Keys {
    pub stone: [Box<[u64]>; 2],
    /// XORed in when white is to move.
    pub side: u64,
}

/// The shared key table (built on first use).
pub fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = SplitMix64(SEED);
        let mut gen = || {
            (0..MAX_CELLS)
                .map(|_| rng.next_u64())
                .collect::<Box<[u64]>>()
        };
        let black = gen();
        let white = gen();
        let side = rng.next_u64();
        Keys {
            stone: [black, white],
            side,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixed_and_distinct() {
        let k = keys();
        let mut r = SplitMix64(SEED);
        assert_eq!(k.stone[0][0], r.next_u64());
        let mut all: Vec<u64> = k.stone[0]
            .iter()
            .chain(k.stone[1].iter())
            .copied()
            .collect();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), 2 * MAX_CELLS);
    }
}
