// A hint names a local of the function: `moves(cmnd)` names none.
use lowering::lowering;

struct Cmd;

impl Cmd {
    async fn apply(self) -> u32 {
        1
    }
}

#[lowering(classic, moves(cmnd))]
async fn run() -> u32 {
    let cmd = Cmd;
    cmd.apply().await
}

#[lowering(classic, moves(cmd), keeps(cmd))]
async fn both() -> u32 {
    let cmd = Cmd;
    cmd.apply().await
}

fn main() {}
