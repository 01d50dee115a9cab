use std::collections::VecDeque;

/// A fixed window of samples.
#[derive(Debug)]
pub struct Window {
    items: VecDeque<f64>,
    size: usize,
}

impl Window {
    /// Make an empty window.
    pub fn new(size: usize) -> Self {
        Window { items: VecDeque::new(), size }
    }

    pub fn mean(&self) -> f64 {
        self.items.iter().sum::<f64>() / self.items.len() as f64
    }
}

fn main() {
    let w = Window::new(3);
    println!("{}", w.mean());
}
