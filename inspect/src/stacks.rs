//! Live stacks (D1-D3): the package's `lowering_stacks` example, run in a debug and a
//! release build, prints the stacks its probes captured in sections
//! (`@@ stack <scenario> <variant>`, the full `std::backtrace` format). Here they are split
//! into frames and measured.
//!
//! A stack's *operation frames* run from the innermost frame of an annotated function (the
//! one that called the probe) out to the outermost frame that is an annotated function or
//! runtime (`lowering`) code, every frame in between included (closure shims, `catch_unwind`).
//! Frames outside that span (the probe, the executor, the host, `main`) are the host's and
//! the same for both variants. Inlined frames count: the symbolizer reports them, as a
//! profiler with debug info does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Context, Error, Result};
use crate::records::{RUNTIME_CRATE, Record};

/// One section of the example's output.
#[derive(Debug, Clone)]
pub struct Section {
    pub kind: String,
    pub scenario: String,
    pub variant: String,
    pub body: String,
}

pub fn sections(output: &str) -> Vec<Section> {
    let mut found: Vec<Section> = Vec::new();
    for line in output.lines() {
        if let Some(header) = line.strip_prefix("@@ ") {
            let mut words = header.split_whitespace();
            let (Some(kind), Some(scenario), Some(variant)) = (words.next(), words.next(), words.next()) else {
                continue;
            };
            found.push(Section {
                kind: kind.to_owned(),
                scenario: scenario.to_owned(),
                variant: variant.to_owned(),
                body: String::new(),
            });
        } else if let Some(section) = found.last_mut() {
            section.body.push_str(line);
            section.body.push('\n');
        }
    }
    found
}

/// A stack frame: the demangled function name, without hashes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    pub name: String,
    /// `file:line:column`, when the symbolizer knew it.
    pub location: Option<String>,
}

/// Frames of a backtrace printed with `{:#}` (`  N:  0xADDR - name` then `at file:line:col`).
pub fn frames(text: &str) -> Vec<Frame> {
    let mut found: Vec<Frame> = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(location) = trimmed.strip_prefix("at ") {
            if let Some(frame) = found.last_mut() {
                frame.location = Some(location.to_owned());
            }
            continue;
        }
        let Some((number, rest)) = trimmed.split_once(':') else {
            continue;
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let name = rest.trim().split_once(" - ").map_or(rest.trim(), |(_, name)| name);
        found.push(Frame { name: clean_name(name), location: None });
    }
    found
}

/// Drop the legacy hash suffix (`::h0123456789abcdef`) and v0 crate disambiguators (`std[..]`).
fn clean_name(name: &str) -> String {
    let name = match name.rsplit_once("::h") {
        Some((head, hash)) if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) => head,
        _ => name,
    };
    let mut cleaned = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(open) = rest.find('[') {
        let close = rest[open..].find(']').map(|at| open + at);
        match close {
            Some(close) if rest[open + 1..close].bytes().all(|b| b.is_ascii_hexdigit()) && close > open + 1 => {
                cleaned.push_str(&rest[..open]);
                rest = &rest[close + 1..];
            }
            _ => {
                cleaned.push_str(&rest[..=open]);
                rest = &rest[open + 1..];
            }
        }
    }
    cleaned.push_str(rest);
    cleaned
}

/// The operation frames of one captured stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stack {
    pub frames: u64,
    /// Of those, frames of annotated functions (stubs, `move_next`, coroutine bodies).
    pub user_frames: u64,
    pub names: Vec<String>,
}

/// Which frames are whose. Debug builds name every frame by its full path; release builds
/// name inlined frames by their bare name (`{closure#0}`, `{async_fn#0}`, `diag_chain1`), so
/// a frame is also recognised by where it is: in a source file of the annotated functions,
/// or in the runtime crate's sources.
pub struct FrameKinds {
    paths: Vec<String>,
    functions: Vec<String>,
    files: Vec<PathBuf>,
    runtime_dir: Option<PathBuf>,
    /// Where relative paths in frames and records start.
    root: PathBuf,
}

impl FrameKinds {
    pub fn new(records: &[Record], root: &Path, runtime_dir: Option<&Path>) -> Self {
        let mut files: Vec<PathBuf> = records.iter().map(|record| root.join(&record.file)).collect();
        files.sort();
        files.dedup();
        FrameKinds {
            paths: records.iter().map(Record::path).collect(),
            functions: records.iter().map(|record| record.function.clone()).collect(),
            files,
            runtime_dir: runtime_dir.map(Path::to_path_buf),
            root: root.to_path_buf(),
        }
    }

    /// The source file of a frame, resolved against the root.
    pub fn file_of(&self, frame: &Frame) -> Option<PathBuf> {
        let location = frame.location.as_deref()?;
        let mut parts = location.rsplitn(3, ':');
        let (_column, _line, file) = (parts.next()?, parts.next()?, parts.next()?);
        Some(self.root.join(file.strip_prefix("./").unwrap_or(file)))
    }

    /// `file:line` of a frame, the file relative to the root: the column of a caller's
    /// frame points into code the lowering generated, the line does not.
    pub fn relative_line(&self, frame: &Frame) -> Option<String> {
        let file = self.file_of(frame)?;
        let line = frame.location.as_deref()?.rsplit(':').nth(1)?;
        let file = file.strip_prefix(&self.root).unwrap_or(&file);
        Some(format!("{}:{line}", file.display()))
    }

    /// The record path the frame's name starts with (debug builds), if any.
    pub fn record_path_of(&self, frame: &Frame) -> Option<&str> {
        self.paths
            .iter()
            .map(String::as_str)
            .find(|path| frame.name.strip_prefix(path).is_some_and(|rest| rest.is_empty() || rest.starts_with("::")))
    }

    /// Whether the frame is in the source file of an annotated function.
    pub fn in_user_file(&self, frame: &Frame) -> bool {
        self.file_of(frame).is_some_and(|file| self.files.contains(&file))
    }

    pub fn is_user(&self, frame: &Frame) -> bool {
        let bare = frame.name.split('<').next().unwrap_or(&frame.name);
        self.record_path_of(frame).is_some()
            || self.in_user_file(frame)
            || (!bare.contains("::") && self.functions.iter().any(|function| function == bare))
    }

    fn is_runtime(&self, frame: &Frame) -> bool {
        let runtime = format!("{RUNTIME_CRATE}::");
        frame.name.starts_with(&runtime)
            || frame.name.strip_prefix('<').is_some_and(|inner| inner.starts_with(&runtime))
            || self.runtime_dir.as_ref().zip(self.file_of(frame)).is_some_and(|(dir, file)| file.starts_with(dir))
    }

    /// The operation frames of `frames` (see the module docs).
    pub fn operation(&self, frames: &[Frame]) -> Result<Stack> {
        let first = frames
            .iter()
            .position(|frame| self.is_user(frame))
            .context(|| "the stack has no frame of an annotated function")?;
        let last = frames.iter().rposition(|frame| self.is_user(frame) || self.is_runtime(frame)).unwrap_or(first);
        let span = &frames[first..=last];
        Ok(Stack {
            frames: span.len() as u64,
            user_frames: span.iter().filter(|frame| self.is_user(frame)).count() as u64,
            names: span.iter().map(|frame| frame.name.clone()).collect(),
        })
    }
}

/// D1-D3 of one build: stacks by scenario, then by variant.
pub type Stacks = BTreeMap<String, BTreeMap<String, Stack>>;

pub fn measure(sections: &[Section], kinds: &FrameKinds) -> Result<Stacks> {
    let mut stacks = Stacks::new();
    for section in sections.iter().filter(|section| section.kind == "stack") {
        let frames = frames(&section.body);
        if frames.is_empty() {
            return Err(Error::new(format!(
                "stack {} of {}: no frames ({})",
                section.scenario,
                section.variant,
                section.body.trim()
            )));
        }
        let stack =
            kinds.operation(&frames).context(|| format!("stack {} of {}", section.scenario, section.variant))?;
        stacks.entry(section.scenario.clone()).or_default().insert(section.variant.clone(), stack);
    }
    Ok(stacks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_read_from_the_full_backtrace_format() {
        let text = "   0:     0x55c8afaf470b - std[e28293b1aa0f68bd]::backtrace_rs::backtrace::libunwind::trace\n\
                    \x20                              at /rustc/library/std/src/backtrace.rs:117:9\n\
                    \x20  1:     0x55c8afad9998 - k::classic::f::{{closure}}::h19c97ee73aed09c2\n\
                    \x20  2:                0x0 - <unknown>\n";
        let found = frames(text);
        assert_eq!(found.len(), 3);
        assert_eq!(found[0].name, "std::backtrace_rs::backtrace::libunwind::trace");
        assert_eq!(found[0].location.as_deref(), Some("/rustc/library/std/src/backtrace.rs:117:9"));
        assert_eq!(found[1].name, "k::classic::f::{{closure}}");
    }

    #[test]
    fn operation_frames_span_from_the_innermost_user_frame_to_the_outermost_runtime_frame() {
        let record = |function: &str| Record {
            lowering: "classic".to_owned(),
            module: "k::classic".to_owned(),
            function: function.to_owned(),
            generated_type: None,
            value_task: false,
            file: "src/lib.rs".to_owned(),
            line: 1,
        };
        let kinds = FrameKinds::new(&[record("f"), record("g")], Path::new("/k"), Some(Path::new("/lowering")));
        let frame = |name: &str| Frame { name: name.to_owned(), location: None };
        let stack = [
            frame("k::probe::capture"),
            frame("k::classic::f::{{closure}}"),
            frame("std::panicking::catch_unwind"),
            frame("lowering::builder::start"),
            frame("k::classic::f"),
            Frame { name: "{closure#0}".to_owned(), location: Some("./src/lib.rs:3:4".to_owned()) },
            frame("<lowering::task::Task<T,S> as core::future::future::Future>::poll"),
            frame("futures_executor::local_pool::block_on"),
            frame("main"),
        ];
        let measured = kinds.operation(&stack).unwrap_or_else(|error| panic!("{error}"));
        assert_eq!((measured.frames, measured.user_frames), (6, 3));
    }
}
