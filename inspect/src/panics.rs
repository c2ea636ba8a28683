//! Panic and error reports (D4): what a person reads when something fails 3 levels down.
//!
//! The stacks example runs `diag_panic3` (with and without a suspension before the panic)
//! under a panic hook that records the message, the location and the stack at the panic,
//! and prints the `Display` of an error propagated with `?`. Here each report is reduced to
//! what should not depend on the lowering: the message, the location, the payload that
//! reached the top, and the user frames (the annotated functions on the stack at the panic,
//! by function name, consecutive repeats merged: a classic stub and its `move_next` are one
//! level).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::records::Record;
use crate::stacks::{FrameKinds, Section, frames};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PanicReport {
    pub message: String,
    pub location: String,
    /// The payload the top-level `catch_unwind` got.
    pub caught: String,
    /// How many times the panic hook ran (once per raised panic; a re-raise by
    /// `resume_unwind` does not call it).
    pub hook_calls: u64,
    /// Frames on the stack at the panic that are in the annotated functions' sources,
    /// innermost first: `file:line (function)`.
    pub user_frames: Vec<String>,
}

/// One scenario, both variants, and whether they agree.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Comparison<T> {
    pub variants: BTreeMap<String, T>,
    pub identical: BTreeMap<String, bool>,
}

pub type Reports = BTreeMap<String, Comparison<PanicReport>>;
pub type Errors = BTreeMap<String, Comparison<String>>;

pub fn panics(sections: &[Section], records: &[Record], kinds: &FrameKinds) -> Reports {
    let mut reports: Reports = BTreeMap::new();
    for section in sections.iter().filter(|section| section.kind == "panic") {
        let report = parse(&section.body, records, kinds);
        reports
            .entry(section.scenario.clone())
            .or_insert_with(|| Comparison { variants: BTreeMap::new(), identical: BTreeMap::new() })
            .variants
            .insert(section.variant.clone(), report);
    }
    for comparison in reports.values_mut() {
        let reports: Vec<&PanicReport> = comparison.variants.values().collect();
        let agree = |field: fn(&PanicReport) -> String| reports.windows(2).all(|pair| field(pair[0]) == field(pair[1]));
        comparison.identical.insert("message".to_owned(), agree(|r| r.message.clone()));
        comparison.identical.insert("location".to_owned(), agree(|r| r.location.clone()));
        comparison.identical.insert("caught".to_owned(), agree(|r| r.caught.clone()));
        // Compared by location: function names differ by variant module and frame kind.
        comparison.identical.insert(
            "user_frames".to_owned(),
            agree(|r| {
                r.user_frames.iter().map(|frame| frame.split(' ').next().unwrap_or("")).collect::<Vec<_>>().join("\n")
            }),
        );
    }
    reports
}

pub fn errors(sections: &[Section]) -> Errors {
    let mut errors: Errors = BTreeMap::new();
    for section in sections.iter().filter(|section| section.kind == "error") {
        errors
            .entry(section.scenario.clone())
            .or_insert_with(|| Comparison { variants: BTreeMap::new(), identical: BTreeMap::new() })
            .variants
            .insert(section.variant.clone(), section.body.trim_end().to_owned());
    }
    for comparison in errors.values_mut() {
        let texts: Vec<&String> = comparison.variants.values().collect();
        comparison.identical.insert("display".to_owned(), texts.windows(2).all(|pair| pair[0] == pair[1]));
    }
    errors
}

fn parse(body: &str, records: &[Record], kinds: &FrameKinds) -> PanicReport {
    let field = |name: &str| {
        body.lines()
            .find_map(|line| line.strip_prefix(name).and_then(|rest| rest.strip_prefix(": ")))
            .unwrap_or("")
            .to_owned()
    };
    // Frames in the annotated functions' sources, by location (release builds name inlined
    // frames by bare names only), consecutive repeats of a line merged.
    let mut user_frames: Vec<String> = Vec::new();
    for frame in frames(body) {
        if !kinds.in_user_file(&frame) {
            continue;
        }
        let location = kinds.relative_line(&frame).unwrap_or_default();
        let function = kinds
            .record_path_of(&frame)
            .and_then(|path| records.iter().find(|record| record.path() == path))
            .map_or_else(|| frame.name.clone(), |record| record.function.clone());
        let entry = format!("{location} ({function})");
        if user_frames.last().is_some_and(|last| last.split(' ').next() == entry.split(' ').next()) {
            continue;
        }
        user_frames.push(entry);
    }
    PanicReport {
        message: field("message"),
        location: field("location"),
        caught: field("caught"),
        hook_calls: field("hook calls").parse().unwrap_or(0),
        user_frames,
    }
}
