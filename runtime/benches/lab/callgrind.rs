//! Instructions per operation, counted by callgrind: deterministic, so the figure is exact.
//!
//! Each row runs twice under `valgrind --tool=callgrind`, counting only inside the measured
//! region (`--toggle-collect`), with `n` and `2n` operations; the difference divided by the
//! extra operations leaves out whatever a run costs once (setup, first-use initialization).

use std::path::Path;
use std::process::Command;

/// `Some(version)` when valgrind can be run; the harness says so when it cannot, and
/// installs nothing.
pub fn available() -> Option<String> {
    let output = Command::new("valgrind").arg("--version").output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Instructions counted inside the region for one child run.
pub fn count(child: &mut Command, out_file: &Path) -> Result<u64, String> {
    let program = child.get_program().to_owned();
    let args: Vec<_> = child.get_args().map(ToOwned::to_owned).collect();
    let output = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg("--toggle-collect=*lowering_lab_counted_region*")
        .arg(program)
        .args(args)
        .output()
        .map_err(|error| format!("cannot run valgrind: {error}"))?;
    if !output.status.success() {
        return Err(format!("valgrind failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let text =
        std::fs::read_to_string(out_file).map_err(|error| format!("cannot read {}: {error}", out_file.display()))?;
    let _ = std::fs::remove_file(out_file);
    counted(parse_total(&text), out_file)
}

/// The count, or why there is none: a total of 0 means the counted region was never entered
/// (`--toggle-collect` matched no function: the region's symbol was renamed or inlined away),
/// which is no measurement, not 0 instructions.
fn counted(total: Option<u64>, out_file: &Path) -> Result<u64, String> {
    match total {
        None => Err(format!("no instruction total in {}", out_file.display())),
        Some(0) => Err(format!(
            "callgrind counted nothing in {}: its --toggle-collect matched no function (the counted region \
             `lowering_lab_counted_region` was not entered, or its symbol changed)",
            out_file.display()
        )),
        Some(total) => Ok(total),
    }
}

/// The `summary:` (or `totals:`) line of a callgrind output file: the Ir event count.
fn parse_total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|line| line.strip_prefix("summary:").or_else(|| line.strip_prefix("totals:")))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|count| count.parse().ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_summary_line() {
        assert_eq!(super::parse_total("events: Ir\nfn=x\n1 5\nsummary: 12345\n"), Some(12345));
        assert_eq!(super::parse_total("events: Ir\ntotals: 77\n"), Some(77));
        assert_eq!(super::parse_total("events: Ir\n"), None);
    }

    #[test]
    fn a_region_never_entered_is_an_error_not_zero() {
        let file = std::path::Path::new("out");
        assert!(super::counted(Some(0), file).unwrap_err().contains("matched no function"));
        assert_eq!(super::counted(Some(9), file), Ok(9));
    }
}
