//! Expansion snapshots: for each representative function in `tests/expand/NAME.rs`, what the
//! attribute writes, formatted by rustfmt, checked in as `tests/expand/NAME.expanded.rs` and
//! compared here, so that a reviewer sees what the macro generates and a change to it shows
//! in the diff. A classic expansion starts with the facts it was written from: the locals that
//! live in place, each with its reason (`classic::analyse::in_place`). `LOWERING_BLESS=1 cargo test -p lowering-macros snapshots` writes them anew.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use proc_macro2::TokenStream;

/// The attribute's arguments and the item under it, as the compiler hands them over.
fn split(source: &str) -> (TokenStream, TokenStream) {
    let mut item: syn::ItemFn = syn::parse_str(source).expect("a function under the attribute");
    let at = item.attrs.iter().position(|attr| attr.path().is_ident("lowering")).expect("#[lowering(..)]");
    let attr = item.attrs.remove(at);
    let args = match attr.meta {
        syn::Meta::List(list) => list.tokens,
        _ => panic!("#[lowering(..)] takes arguments"),
    };
    (args, quote::ToTokens::into_token_stream(item))
}

fn rustfmt() -> Command {
    Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
}

/// Whether rustfmt runs here, after asking rustup for it once when it does not.
fn rustfmt_available() -> bool {
    let runs = || rustfmt().arg("--version").output().is_ok_and(|output| output.status.success());
    runs()
        || (Command::new("rustup").args(["component", "add", "rustfmt"]).status().is_ok_and(|status| status.success())
            && runs())
}

fn formatted(tokens: &TokenStream) -> String {
    let mut child = rustfmt()
        .args(["--edition", "2024", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("rustfmt runs");
    child.stdin.take().expect("stdin").write_all(tokens.to_string().as_bytes()).expect("writing to rustfmt");
    let output = child.wait_with_output().expect("rustfmt ends");
    assert!(output.status.success(), "rustfmt failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).expect("rustfmt writes UTF-8")
}

fn inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/expand");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/expand")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.to_string_lossy().ends_with(".rs") && !path.to_string_lossy().ends_with(".expanded.rs"))
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn expansions_are_the_checked_in_ones() {
    if !rustfmt_available() {
        println!("skipping the expansion snapshots: rustfmt is not installed and rustup could not add it");
        return;
    }
    let bless = std::env::var_os("LOWERING_BLESS").is_some();
    let mut differ = Vec::new();
    let mut walks = Vec::new();
    let inputs = inputs();
    assert!(inputs.len() >= 12, "a dozen representative functions: {inputs:?}");
    for input in inputs {
        let source = std::fs::read_to_string(&input).expect("the input");
        let (args, item) = split(&source);
        let classic = args.to_string().contains("classic");
        let mut expanded = formatted(&crate::expand(args, item));
        if classic {
            let name = input.file_name().unwrap_or_default().to_string_lossy().into_owned();
            walks.push((crate::classic::walks_of_last(), name));
            // The facts the code was written from, above it: which locals live in place, and
            // why (a line and column are the binding's, in the input file).
            let facts: String = crate::classic::in_place_of_last().lines().map(|line| format!("// {line}\n")).collect();
            expanded = facts + &expanded;
        }
        let snapshot = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&snapshot, &expanded).expect("writing the snapshot");
            continue;
        }
        match std::fs::read_to_string(&snapshot) {
            Ok(known) if known == expanded => {}
            _ => differ.push(snapshot.display().to_string()),
        }
    }
    // The walk settles in a few rounds (`classic::MAX_ROUNDS`'s argument): a change that makes
    // it take more shows here before it reaches the bound.
    assert!(walks.iter().all(|(count, _)| (1..=3).contains(count)), "walks per function: {walks:?}");
    // A loop whose body moves what its head saves needs the second walk: the fixed point is
    // exercised, not only bounded.
    assert!(walks.contains(&(2, "await_in_a_loop.rs".to_owned())), "walks per function: {walks:?}");
    assert!(
        differ.is_empty(),
        "the expansion changed (review it, then LOWERING_BLESS=1 cargo test -p lowering-macros snapshots):\n{}",
        differ.join("\n")
    );
}
