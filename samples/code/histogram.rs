//! A fixed-bucket histogram for latency measurements, with percentile queries.

use std::fmt;

/// Errors returned when building a histogram.
#[derive(Debug, PartialEq)]
pub enum HistogramError {
    /// The bucket bounds were empty or not strictly increasing.
    BadBounds,
}

/// Counts values into buckets with the given upper bounds (inclusive).
/// Values above the last bound go into an overflow bucket.
#[derive(Debug, Clone)]
pub struct Histogram {
    bounds: Vec<f64>,
    counts: Vec<u64>,
    total: u64,
}

impl Histogram {
    /// Creates a histogram; `bounds` must be strictly increasing.
    pub fn new(bounds: Vec<f64>) -> Result<Self, HistogramError> {
        if bounds.is_empty() || bounds.windows(2).any(|w| w[0] >= w[1]) {
            return Err(HistogramError::BadBounds);
        }
        let counts = vec![0; bounds.len() + 1];
        Ok(Histogram { bounds, counts, total: 0 })
    }

    /// Records one value.
    pub fn record(&mut self, value: f64) {
        let index = self.bounds.partition_point(|&b| b < value);
        self.counts[index] += 1;
        self.total += 1;
    }

    /// The upper bound of the bucket holding the `p`-th percentile (0 < p <= 100),
    /// or `None` when it falls into the overflow bucket or nothing was recorded.
    pub fn percentile(&self, p: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((p / 100.0) * self.total as f64).ceil() as u64;
        let mut seen = 0;
        for (i, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return self.bounds.get(i).copied();
            }
        }
        None
    }
}

impl fmt::Display for Histogram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (bound, count) in self.bounds.iter().zip(&self.counts) {
            writeln!(f, "<= {bound:>8.1} ms: {count}")?;
        }
        write!(f, "overflow: {}", self.counts[self.bounds.len()])
    }
}
