//! Both lowerings used through a renamed dependency (`lab` is the `lowering` crate).

use lab::leaf::yield_now;

#[lab::lowering(classic, crate = "lab")]
pub async fn classic_sum(items: Vec<u32>) -> u32 {
    let mut total = 0;
    for item in items {
        yield_now().await;
        total += item;
    }
    total
}

#[lab::lowering(runtime, crate = "lab")]
pub async fn runtime_sum(items: Vec<u32>) -> u32 {
    let mut total = 0;
    for item in items {
        yield_now().await;
        total += item;
    }
    total
}

/// The module form, through the renamed path too.
#[lab::lowering(classic, crate = "lab")]
pub mod counted {
    pub struct Counter(pub u32);

    impl Counter {
        pub async fn bump(&mut self, by: u32) -> u32 {
            let by = lab::leaf::ready(by).await;
            self.0 += by;
            self.0
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::executor::block_on;

    #[test]
    fn both_lowerings_work_through_a_renamed_dependency() {
        assert_eq!(block_on(super::classic_sum(vec![1, 2, 3])), 6);
        assert_eq!(block_on(super::runtime_sum(vec![1, 2, 3])), 6);
        let mut counter = super::counted::Counter(1);
        assert_eq!(block_on(counter.bump(2)), 3);
    }

    #[test]
    fn records_read_through_the_renamed_crate() {
        let records: Vec<_> = lab::records_of(module_path!().trim_end_matches("::tests"), "classic_sum").collect();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].lowering, lab::Lowering::Classic);
        assert_eq!(records[0].generated_type, Some("ClassicSumStateMachine"));
        let records: Vec<_> = lab::records_of(module_path!().trim_end_matches("::tests"), "runtime_sum").collect();
        assert_eq!(records[0].lowering, lab::Lowering::Runtime);
        assert_eq!(records[0].generated_type, None);
    }
}
