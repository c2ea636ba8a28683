// `?` on an awaited value that is not a `Result`, and on one whose error does not convert.
#[allow(unused_imports)]
use lowering::lowering;
use lowering::leaf::ready;

// (as a plain async fn)
pub async fn f() -> Result<u32, String> {
    let n = ready(3u32).await?;
    let m = ready(Err::<u32, u8>(3)).await?;
    Ok(n + m)
}

fn main() {}
