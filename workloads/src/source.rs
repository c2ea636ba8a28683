//! A byte source read in chunks, as a connection's read loop reads: the borrowing workload's
//! input (B16). Each read completes at once (`lowering::leaf::ready`), so that the row
//! measures the lowering, not I/O.

use lowering::leaf::{Ready, ready};

pub struct Source {
    left: u64,
    next: u8,
}

impl Source {
    pub fn new(len: u64) -> Self {
        Source { left: len, next: 1 }
    }

    /// Fills the front of `buf` with the next bytes; 0 at the end.
    pub fn read(&mut self, buf: &mut [u8]) -> Ready<usize> {
        let n = buf.len().min(self.left as usize);
        for byte in &mut buf[..n] {
            *byte = self.next;
            self.next = self.next.wrapping_add(1);
        }
        self.left -= n as u64;
        ready(n)
    }
}
