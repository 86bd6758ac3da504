//! Additive shares of an assignment, for trying the parties' flow on one machine.

use ark_ff::PrimeField;
use ark_std::rand::Rng;

/// `assignment` split into `k` additive shares (at least one): `k - 1` uniform vectors and
/// the difference. A coSNARK's parties get theirs from the computation that made the
/// witness; this is for tests, benchmarks and demonstrations.
pub fn split_assignment<F: PrimeField, R: Rng + ?Sized>(
    assignment: &[F],
    k: usize,
    rng: &mut R,
) -> Vec<Vec<F>> {
    let mut last = assignment.to_vec();
    let mut shares: Vec<Vec<F>> = (1..k.max(1))
        .map(|_| {
            let share: Vec<F> = (0..assignment.len()).map(|_| F::rand(rng)).collect();
            for (l, s) in last.iter_mut().zip(&share) {
                *l -= s;
            }
            share
        })
        .collect();
    shares.push(last);
    shares
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    #[test]
    fn shares_sum_to_the_assignment() {
        let z: Vec<Fr> = (1..=5u64).map(Fr::from).collect();
        let shares = split_assignment(&z, 3, &mut StdRng::seed_from_u64(1));
        assert_eq!(shares.len(), 3);
        let sum: Vec<Fr> = (0..5).map(|i| shares.iter().map(|s| s[i]).sum()).collect();
        assert_eq!(sum, z);
        assert!(shares.iter().all(|s| s != &z));
    }
}
