use lowering::leaf::ready;
use lowering::lowering;

enum State {
    Reading(Vec<u32>),
    Done,
}

// Two arms bind the same variant's field through one `&mut` of an in-place local, the first
// across an await.
#[lowering(classic)]
async fn step() -> usize {
    let mut state = State::Reading(Vec::new());
    let n = match &mut state {
        State::Reading(buf) if buf.len() < 3 => {
            buf.push(ready(1).await);
            buf.len()
        }
        State::Reading(buf) => buf.len(),
        State::Done => 0,
    };
    drop(state);
    n
}

fn main() {}
