//! Deterministic mixing: everything "random" in the simulator (placement, workload ids and
//! names, VM ids) is a hash of the seed and what it describes, never a stateful generator,
//! so any instant can be recomputed on its own.

/// splitmix64's finaliser over each part in turn.
pub fn mix(parts: &[u64]) -> u64 {
    parts.iter().fold(0x9E37_79B9_7F4A_7C15, |state, part| {
        let mut z = (state ^ part).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    })
}
