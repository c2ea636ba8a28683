//! What each function's code became, read from the IR of the crate's `entry_points`
//! (`workloads::instantiate`): the function that takes the address of every function's stub
//! and of the `poll` of the future it returns, so that each has code in the artifact.
//!
//! LLVM's function merging (on in rustc's release pipeline) folds a function into an
//! identical one and, when the duplicate is internal (rustc makes small functions, such as an
//! `async fn`'s stub, inlinable across crates, hence internal here), deletes it and points
//! every use at the survivor, leaving no alias. The only trace is the address `entry_points`
//! stores: it names the survivor. So a function with no symbol of its own is "merged into X"
//! exactly when its entry stores X's symbol.
//!
//! An entry, in the IR of `entry_points`, is a run of stores: the function's name (a string
//! constant and its length), the stub's address, the poll's address, the variant. Crates
//! without named entries get no such detail.

use std::collections::HashMap;

/// One entry: the function's name and the demangled symbols stored as its addresses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub function: String,
    /// Demangled names of the function symbols stored for it (stub first, then poll).
    pub addresses: Vec<String>,
}

/// The entries of the first function named `entry_points` in the IR `text`, in order.
pub fn entries(text: &str) -> Vec<Entry> {
    let strings = string_constants(text);
    let Some(body) = entry_points_body(text) else { return Vec::new() };
    let mut found: Vec<Entry> = Vec::new();
    let mut pending_name: Option<&str> = None;
    for line in body.lines() {
        let Some(value) = line.trim_start().strip_prefix("store ").and_then(|rest| rest.split_once(", ptr ")) else {
            continue;
        };
        let value = value.0;
        if let Some(symbol) = value.strip_prefix("ptr @") {
            let symbol = symbol.trim_matches('"');
            if let Some(string) = strings.get(symbol) {
                pending_name = Some(string);
            } else if let Some(entry) = found.last_mut() {
                entry.addresses.push(format!("{:#}", rustc_demangle::demangle(symbol)));
            }
        } else if let (Some(length), Some(name)) = (value.strip_prefix("i64 "), pending_name.take()) {
            // The length of the name just stored starts a new entry.
            if let Ok(length) = length.trim().parse::<usize>()
                && let Some(name) = name.get(..length)
            {
                found.push(Entry { function: name.to_owned(), addresses: Vec::new() });
            }
        }
    }
    found
}

/// `@alloc_.. = private unnamed_addr constant [N x i8] c"text", align 1`: symbol to text.
fn string_constants(text: &str) -> HashMap<&str, &str> {
    text.lines()
        .filter(|line| line.starts_with("@alloc_"))
        .filter_map(|line| {
            let (symbol, rest) = line[1..].split_once(" = ")?;
            let start = rest.find("c\"")? + 2;
            let end = start + rest[start..].find('"')?;
            let string = &rest[start..end];
            // Only plain text: function names carry no escapes.
            (!string.contains('\\')).then_some((symbol, string))
        })
        .collect()
}

fn entry_points_body(text: &str) -> Option<&str> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = line.strip_prefix("define ")
            && let Some(at) = rest.find('@')
        {
            let symbol = rest[at + 1..].split(['(', '"']).find(|part| !part.is_empty()).unwrap_or("");
            let name = format!("{:#}", rustc_demangle::demangle(symbol));
            if name.ends_with("::entry_points") {
                let end = text[offset..].find("\n}\n").map_or(text.len(), |end| offset + end);
                return Some(&text[offset..end]);
            }
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_name_the_symbols_stored_for_each_function() {
        let ir = "\
@alloc_1 = private unnamed_addr constant [10 x i8] c\"leaf_value\", align 1
@alloc_2 = private unnamed_addr constant [11 x i8] c\"value_chainX\", align 1
define void @_RNvCs1234_1k12entry_points(ptr %_0) {
start:
  store ptr @alloc_1, ptr %a, align 8
  store i64 10, ptr %b, align 8
  store ptr @_RNvCs1234_1k1f, ptr %c, align 8
  store ptr @_RNvCs1234_1k1g, ptr %d, align 8
  store i8 0, ptr %e, align 8
  store ptr @alloc_2, ptr %a, align 8
  store i64 11, ptr %b, align 8
  store ptr @_RNvCs1234_1k1f, ptr %c, align 8
  ret void
}
";
        let found = entries(ir);
        assert_eq!(
            found,
            [
                Entry { function: "leaf_value".to_owned(), addresses: vec!["k::f".to_owned(), "k::g".to_owned()] },
                Entry { function: "value_chain".to_owned(), addresses: vec!["k::f".to_owned()] },
            ]
        );
    }
}
