//! [`GaloisSteps`](crate::GaloisSteps): which rotations a computation needs, in slot terms.

/// The rotations a computation needs, in user terms: row-rotation steps and, optionally, the
/// row swap. Turned into keys by [`GaloisKeys::generate`](crate::GaloisKeys::generate).
///
/// A step `k` rotates both rows of `N/2` slots **left** by `k` (the new slot `j` is the old
/// slot `j + k`); a negative `k` rotates right by `|k|`. Steps are taken modulo the row size
/// `N/2` when the keys are generated, so `-1` and `N/2 - 1` need the same key, and a step of
/// `0` (modulo `N/2`) needs no key at all. Duplicates are harmless.
///
/// # Example
///
/// ```
/// use helib_rs::GaloisSteps;
///
/// let steps = GaloisSteps::new().step(1).steps([2, 4, -1]).row_swap();
/// assert_eq!(steps.requested_steps(), &[1, 2, 4, -1]);
/// assert!(steps.includes_row_swap());
/// ```
///
/// # Keys for the lower levels only
///
/// A rotation a computation uses only after its ciphertexts have dropped some primes (a second
/// stage, say) needs a key over the remaining primes only: [`step_up_to_level`](Self::step_up_to_level)
/// asks for such a key, which is smaller in memory and on the wire by the primes it leaves out.
/// Rotating a ciphertext above that level with it is an [`Error::Level`](crate::Error::Level);
/// the transforms of `he-fft` switch their inputs down to the levels their keys serve
/// ([`GaloisKeys::max_level_for`](crate::GaloisKeys::max_level_for)).
///
/// ```
/// use helib_rs::GaloisSteps;
///
/// let steps = GaloisSteps::new().step(1).step_up_to_level(8, 3);
/// assert_eq!(steps.requested_steps(), &[1, 8]);
/// assert_eq!(steps.requested_levels(), &[None, Some(3)]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GaloisSteps {
    pub(crate) steps: Vec<i64>,
    /// Parallel to `steps`: the highest level the step's key must serve (`None`: every level).
    pub(crate) levels: Vec<Option<u32>>,
    pub(crate) row_swap: bool,
}

impl GaloisSteps {
    /// No rotations at all (keys generated from this are empty).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let none = GaloisSteps::new();
    /// assert!(none.requested_steps().is_empty());
    /// assert!(!none.includes_row_swap());
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// The most keys these steps take: one per requested step and one for the row swap
    /// (steps that name the same element share a key). The bound a reader of the keys' bytes
    /// passes to [`ObjectKind::GaloisKeys`](crate::ObjectKind::GaloisKeys).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert_eq!(GaloisSteps::new().step(1).step(2).max_keys(), 2);
    /// ```
    pub fn max_keys(&self) -> usize {
        self.steps.len() + usize::from(self.row_swap)
    }

    /// Adds the row rotation by `k` (positive: left, negative: right).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().step(5).step(-3);
    /// assert_eq!(steps.requested_steps(), &[5, -3]);
    /// ```
    pub fn step(mut self, k: i64) -> Self {
        self.steps.push(k);
        self.levels.push(None);
        self
    }

    /// Adds the row rotation by `k` for ciphertexts at `level` or below only: its key carries
    /// the chain primes below `level` (and the special primes), no more. Asked for twice, a
    /// step's key serves the most levels asked (any request without a level: all of them).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().step_up_to_level(4, 10).step_up_to_level(4, 12);
    /// assert_eq!(steps.requested_levels(), &[Some(10), Some(12)]); // the key serves 12
    /// ```
    pub fn step_up_to_level(mut self, k: i64, level: u32) -> Self {
        self.steps.push(k);
        self.levels.push(Some(level));
        self
    }

    /// [`step_up_to_level`](Self::step_up_to_level) for every step in `ks`.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().steps_up_to_level([1, 2, 3], 5);
    /// assert_eq!(steps.requested_levels(), &[Some(5); 3]);
    /// ```
    pub fn steps_up_to_level(mut self, ks: impl IntoIterator<Item = i64>, level: u32) -> Self {
        for k in ks {
            self = self.step_up_to_level(k, level);
        }
        self
    }

    /// Adds every row rotation in `ks`.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// // The power-of-two steps: any rotation is a sum of them.
    /// let steps = GaloisSteps::new().steps((0..10).map(|i| 1i64 << i));
    /// assert_eq!(steps.requested_steps().len(), 10);
    /// ```
    pub fn steps(mut self, ks: impl IntoIterator<Item = i64>) -> Self {
        for k in ks {
            self = self.step(k);
        }
        self
    }

    /// Adds the row swap (Galois element `2N - 1`).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert!(GaloisSteps::new().row_swap().includes_row_swap());
    /// ```
    pub fn row_swap(mut self) -> Self {
        self.row_swap = true;
        self
    }

    /// The steps added so far, as given (not yet reduced modulo `N/2`).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert_eq!(GaloisSteps::new().step(-1).step(7).requested_steps(), &[-1, 7]);
    /// ```
    pub fn requested_steps(&self) -> &[i64] {
        &self.steps
    }

    /// For each of [`requested_steps`](Self::requested_steps), the highest level its key was
    /// asked to serve (`None`: every level).
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().step(1).step_up_to_level(2, 7);
    /// assert_eq!(steps.requested_levels(), &[None, Some(7)]);
    /// ```
    pub fn requested_levels(&self) -> &[Option<u32>] {
        &self.levels
    }

    /// The same steps, each for ciphertexts at `level` or below only (a cap already lower is
    /// kept). The row swap's key always serves every level.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().step(1).step_up_to_level(2, 3).up_to_level(5);
    /// assert_eq!(steps.requested_levels(), &[Some(5), Some(3)]);
    /// ```
    pub fn up_to_level(mut self, level: u32) -> Self {
        self.levels
            .iter_mut()
            .for_each(|l| *l = Some(l.map_or(level, |l| l.min(level))));
        self
    }

    /// The same steps with every level cap lifted: keys for every level.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let steps = GaloisSteps::new().step_up_to_level(2, 7).all_levels();
    /// assert_eq!(steps.requested_levels(), &[None]);
    /// ```
    pub fn all_levels(mut self) -> Self {
        self.levels.iter_mut().for_each(|l| *l = None);
        self
    }

    /// Whether the row swap was requested.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// assert!(!GaloisSteps::new().step(1).includes_row_swap());
    /// ```
    pub fn includes_row_swap(&self) -> bool {
        self.row_swap
    }

    /// Everything either set asks for: the keys for two computations run with one key set.
    ///
    /// ```
    /// use helib_rs::GaloisSteps;
    ///
    /// let both = GaloisSteps::new().step(1).union(&GaloisSteps::new().step(2).row_swap());
    /// assert_eq!(both.requested_steps(), &[1, 2]);
    /// assert!(both.includes_row_swap());
    /// ```
    pub fn union(&self, other: &GaloisSteps) -> GaloisSteps {
        GaloisSteps {
            steps: self.steps.iter().chain(&other.steps).copied().collect(),
            levels: self.levels.iter().chain(&other.levels).copied().collect(),
            row_swap: self.row_swap || other.row_swap,
        }
    }
}
