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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GaloisSteps {
    pub(crate) steps: Vec<i64>,
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
        self.steps.extend(ks);
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
            row_swap: self.row_swap || other.row_swap,
        }
    }
}
