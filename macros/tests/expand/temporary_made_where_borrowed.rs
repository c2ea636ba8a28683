// A temporary an awaited call borrows, kept in a local of its own (`__h0`) and made where the
// call borrows it, with the type the call expects (`&[&dyn ToSql]`).
#[lowering(classic)]
async fn get_type(client: &Client, oid: u32) -> Result<Row, Error> {
    client.query_one("SELECT name FROM types WHERE oid = $1", &[&oid]).await
}
