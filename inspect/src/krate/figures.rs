//! What `inspect` reports per function, for the accepted functions of another crate: the
//! copy's library inspected twice, as `inspect --manifest-path` inspects a crate that uses the
//! attribute, once with the accepted functions classic (the rest runtime) and once with every
//! function runtime, and each accepted function's two lowerings set side by side.
//!
//! The library is built with `-C link-dead-code`: its non-generic fns are compiled in it even
//! when nothing in the crate calls them, as a published library's async fns are called from
//! the crates that use it. A generic fn has code only where it is instantiated: none here.
//!
//! The two configurations are two builds of one crate (a crate holds one lowering of each of
//! its functions), so the crate's figures (its rustc's time, its object's text) compare the
//! configurations, and a function's figures compare its own two lowerings.

use serde::{Deserialize, Serialize};

use super::functions::Function;
use crate::builds;
use crate::error::Result;
use crate::facts::{self, Facts, FunctionFacts};

/// The figures of a run, or why there are none.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Why they were not gathered (no accepted fn in the library, a build that failed).
    pub missing: Option<String>,
    /// `classic` (the accepted fns classic, the rest runtime) and `runtime` (every fn runtime).
    pub builds: Vec<BuildFigures>,
    /// One per accepted library fn, in the report's order.
    pub functions: Vec<FunctionFigures>,
}

/// The crate's release build in one configuration, with the inspected build's flags.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BuildFigures {
    pub configuration: String,
    /// Wall time of the crate's own rustc (not its dependencies').
    pub build_ms: u64,
    pub object_text_bytes: u64,
    pub rlib_file_bytes: u64,
    /// Types the classic lowering generated (one state machine per classic fn).
    pub generated_types: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionFigures {
    pub path: String,
    pub file: String,
    pub line: usize,
    /// `None`: the build holds no record of it (see `note`).
    pub classic: Option<Lowered>,
    pub runtime: Option<Lowered>,
    pub note: Option<String>,
}

/// One lowering of a function, as `inspect` counts it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lowered {
    /// What the record says it was lowered as (`classic`, `runtime`).
    pub lowering: String,
    pub generated_type: Option<String>,
    /// The classic state machine, or the future the runtime fn returns.
    pub state_bytes: Option<u64>,
    /// The heap block of a classic call (task header, state machine, result slot).
    pub task_bytes: Option<u64>,
    pub mir_statements: u64,
    pub llvm_ir_instructions: u64,
    pub native_bytes: u64,
    /// Why the function's code is not under its own name, when it is not.
    pub code_note: Option<String>,
}

/// A configuration to inspect: the copy written with `classic` functions classic.
pub type Write<'a> = dyn Fn(&[usize]) -> Result<()> + 'a;

/// Inspect the copy (`package`) with the `accepted` functions classic, then with none, and
/// set each accepted function's two lowerings side by side.
pub fn gather(package: &builds::Package, functions: &[Function], accepted: &[usize], write: &Write) -> Figures {
    let in_library: Vec<usize> = accepted.iter().copied().filter(|&i| !functions[i].in_binary()).collect();
    if in_library.is_empty() {
        let why = if accepted.is_empty() { "no fn was accepted" } else { "every accepted fn is in a binary" };
        return Figures { missing: Some(format!("not gathered: {why}")), ..Figures::default() };
    }
    let inspect = |configuration: &str, classic: &[usize]| -> std::result::Result<Facts, String> {
        eprintln!("crate: [figures] inspecting the library, {configuration}");
        write(classic).map_err(|error| error.to_string())?;
        facts::gather(package)
            .map(|(_, facts)| facts)
            .map_err(|error| format!("inspecting the {configuration} build failed: {error}"))
    };
    let classic = match inspect("accepted fns classic", &in_library) {
        Ok(facts) => facts,
        Err(why) => return Figures { missing: Some(why), ..Figures::default() },
    };
    let runtime = match inspect("every fn runtime", &[]) {
        Ok(facts) => facts,
        Err(why) => return Figures { missing: Some(why), ..Figures::default() },
    };
    let functions = in_library
        .iter()
        .map(|&i| {
            let function = &functions[i];
            let classic = lowered(record_of(&classic, function));
            let runtime = lowered(record_of(&runtime, function));
            let note = (classic.is_none() || runtime.is_none()).then(|| {
                "no lowering record of it in a build (not compiled in the library's release build?)".to_owned()
            });
            FunctionFigures {
                path: function.path.clone(),
                file: function.file.clone(),
                line: function.line,
                classic,
                runtime,
                note,
            }
        })
        .collect();
    Figures {
        missing: None,
        builds: vec![build_figures("classic", &classic), build_figures("runtime", &runtime)],
        functions,
    }
}

fn build_figures(configuration: &str, facts: &Facts) -> BuildFigures {
    BuildFigures {
        configuration: configuration.to_owned(),
        build_ms: facts.krate.build_ms,
        object_text_bytes: facts.krate.object_text_bytes,
        rlib_file_bytes: facts.krate.rlib_file_bytes,
        generated_types: facts.functions.iter().filter(|f| f.record.generated_type.is_some()).count() as u64,
    }
}

/// The function's facts in a build: the record whose file is the function's and whose line
/// falls in its lines (the attribute, on the function's own lines, names them).
fn record_of<'a>(facts: &'a Facts, function: &Function) -> Option<&'a FunctionFacts> {
    facts.functions.iter().find(|candidate| {
        let record = &candidate.record;
        let line = record.line as usize;
        same_file(&record.file, &function.file) && (function.line..=function.end_line).contains(&line)
    })
}

/// `file!()` is relative to the workspace root, the function's file to its package.
fn same_file(recorded: &str, file: &str) -> bool {
    let recorded = recorded.replace('\\', "/");
    recorded == file || recorded.ends_with(&format!("/{file}"))
}

fn lowered(facts: Option<&FunctionFacts>) -> Option<Lowered> {
    let facts = facts?;
    Some(Lowered {
        lowering: facts.record.lowering.clone(),
        generated_type: facts.record.generated_type.clone(),
        state_bytes: facts.state_bytes,
        task_bytes: facts.task_bytes,
        mir_statements: facts.mir.statements,
        llvm_ir_instructions: facts.ir_instructions(),
        native_bytes: facts.native_bytes(),
        code_note: facts.note.clone(),
    })
}

/// A figure as the report and the page show it: `-` where there is none (no task for a
/// runtime fn, no record, no code).
pub fn shown(value: Option<u64>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| value.to_string())
}

#[cfg(test)]
mod tests {
    use super::same_file;

    #[test]
    fn recorded_files_match_from_the_workspace_root_or_the_package() {
        assert!(same_file("src/lib.rs", "src/lib.rs"));
        assert!(same_file("member/src/lib.rs", "src/lib.rs"));
        assert!(!same_file("src/mylib.rs", "lib.rs"));
        assert!(!same_file("src/other.rs", "src/lib.rs"));
    }
}
