//! Expansion size (I8): what the attribute generated, in lines of formatted Rust.
//!
//! The macro prints the expansion of the functions named `$LOWERING_SHOW_EXPANSION` (`*`: all
//! of them). The inspected crate's rustc command (recorded by the wrapper) is replayed once
//! with `--emit=dep-info` only, which stops rustc right after macro expansion. The printed
//! expansions are formatted with `rustfmt` and told apart by the function and lowering their
//! record names.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{Context, Error, Result};
use crate::rustc_record::RustcInvocation;

/// Formatted, non-blank lines of the expansions of functions named `function` that got
/// `lowering`, summed (several modules may have a function of that name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expansion {
    pub function: String,
    pub lowering: String,
    pub lines: u64,
    /// How many expansions were summed.
    pub count: u64,
}

/// The expansion of every annotated function, by function name and lowering.
pub fn measure(invocation: &RustcInvocation, dir: &Path) -> Result<Vec<Expansion>> {
    std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    let edition = invocation.args.iter().find_map(|arg| arg.strip_prefix("--edition=")).unwrap_or("2021").to_owned();
    eprintln!("inspect: expanding every annotated function");
    let printed = expand(invocation, "*", dir)?;
    let mut all = split(&printed, &edition)?;
    all.sort_by(|a, b| (&a.function, &a.lowering).cmp(&(&b.function, &b.lowering)));
    Ok(all)
}

/// Replay rustc for `name` and return what the macro printed.
fn expand(invocation: &RustcInvocation, name: &str, dir: &Path) -> Result<String> {
    let out_dir = dir.join(if name == "*" { "all" } else { name });
    std::fs::create_dir_all(&out_dir).context(|| format!("creating {}", out_dir.display()))?;
    let mut args = invocation.replay_args();
    args.push(format!("--emit=dep-info={}", out_dir.join("expansion.d").display()));
    args.push("--out-dir".to_owned());
    args.push(out_dir.display().to_string());
    let output = Command::new(&invocation.program)
        .args(&args)
        .current_dir(&invocation.cwd)
        .envs(&invocation.env)
        .env("LOWERING_SHOW_EXPANSION", name)
        .stdin(Stdio::null())
        .output()
        .context(|| format!("running {} to expand `{name}`", invocation.program.display()))?;
    let printed: String = String::from_utf8_lossy(&output.stderr)
        .lines()
        .filter(|line| !line.starts_with("{\"$message_type\""))
        .map(|line| format!("{line}\n"))
        .collect();
    if !output.status.success() {
        return Err(Error::new(format!("expanding `{name}` failed ({}):\n{printed}", output.status)));
    }
    Ok(printed)
}

/// Format the printed expansions and sum their lines per function and lowering, both read
/// from the record each expansion carries.
fn split(printed: &str, edition: &str) -> Result<Vec<Expansion>> {
    let formatted = rustfmt(printed, edition).context(|| "formatting the expansions")?;
    let mut by_function: BTreeMap<(String, String), (u64, u64)> = BTreeMap::new();
    for item in top_level_items(&formatted) {
        let lowering = if item.contains("Lowering::Classic") {
            "classic"
        } else if item.contains("Lowering::Runtime") {
            "runtime"
        } else {
            continue;
        };
        let Some(function) = recorded_function(&item) else { continue };
        let entry = by_function.entry((function, lowering.to_owned())).or_default();
        entry.0 += item.lines().filter(|line| !line.trim().is_empty()).count() as u64;
        entry.1 += 1;
    }
    Ok(by_function
        .into_iter()
        .map(|((function, lowering), (lines, count))| Expansion { function, lowering, lines, count })
        .collect())
}

/// The `function: "name"` field of the record inside a formatted expansion.
fn recorded_function(item: &str) -> Option<String> {
    let record = &item[item.find("LoweringRecord {")?..];
    let name = &record[record.find("function: \"")? + "function: \"".len()..];
    Some(name[..name.find('"')?].to_owned())
}

fn rustfmt(text: &str, edition: &str) -> Result<String> {
    let mut child = Command::new("rustfmt")
        .args(["--edition", edition, "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context(|| "running rustfmt (is the rustfmt component installed?)")?;
    let mut stdin = child.stdin.take().context(|| "rustfmt's stdin")?;
    let input = text.to_owned();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().context(|| "waiting for rustfmt")?;
    writer.join().map_err(|_| Error::new("writing to rustfmt"))?.context(|| "writing to rustfmt")?;
    if !output.status.success() {
        return Err(Error::new(String::from_utf8_lossy(&output.stderr).into_owned()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The top-level items of formatted code: each ends with `}` at column 0.
fn top_level_items(formatted: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut current = String::new();
    for line in formatted.lines() {
        current.push_str(line);
        current.push('\n');
        if line == "}" || line == "};" {
            items.push(std::mem::take(&mut current));
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expansions_are_told_apart_by_their_record() {
        let printed = "pub fn f() -> u32 { static R : LoweringRecord = LoweringRecord { lowering : :: lowering :: Lowering :: Classic, function : \"f\" }; 1 }\n\
                       pub async fn f() -> u32 { static R : LoweringRecord = LoweringRecord { lowering : :: lowering :: Lowering :: Runtime, function : \"f\" }; 1 }\n";
        let Ok(found) = split(printed, "2021") else {
            // No rustfmt on this machine: nothing to check here.
            return;
        };
        assert_eq!(
            found.iter().map(|e| (e.lowering.as_str(), e.count)).collect::<Vec<_>>(),
            [("classic", 1), ("runtime", 1)]
        );
    }
}
