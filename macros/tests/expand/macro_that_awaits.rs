#[lowering(classic, awaits(read_exact))]
async fn header(mut stream: Stream) -> [u8; 2] {
    let [version, len] = read_exact!(stream, [0u8; 2]);
    log(version, len);
    read_exact!(stream, [0u8; 2])
}
