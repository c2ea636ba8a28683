use lowering_tests::*;

differential! {
    pub async fn add(a: u32, b: u32) -> u32 {
        let x = now("a", a).await;
        let d = Loud::new("d");
        let y = later("b", b).await;
        drop(d);
        x + y
    }
}

#[test]
fn add_works() {
    let (outcome, log) = same(10, || classic::add(1, 2), || runtime::add(1, 2));
    assert_eq!(outcome, Outcome::Value(3));
    println!("{log:?}");
}
