//! `inspect --html [PATH]`: one self-contained page (inline SVG, CSS and script, nothing
//! fetched) with the headline figures and their ratios, the benchmark's rows and charts, the
//! call-graph measure (`html::callgraph`), the per-function table, sizes per function,
//! the stacks, and each function's code side by side.
//!
//! `charts` draws the SVGs, `sections` writes the tables, `code` the side-by-side views;
//! this module puts the page together and writes it.

mod callgraph;
pub mod charts;
mod code;
mod crater;
mod krate;
mod sections;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::bench::Bench;
use crate::callgraph::results::Loaded;
use crate::error::{Context, Result};
use crate::facts::{Facts, RECURSION_DEPTHS};
use crate::headline;
use crate::report::{self, INSPECTED_BUILD};

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");
/// Where the page goes by default, under the target directory.
pub const DEFAULT_DIR: &str = "lowering-report";

pub fn default_path(target_dir: &Path) -> PathBuf {
    target_dir.join(DEFAULT_DIR).join("index.html")
}

/// Text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// What writing the page took.
pub struct Written {
    pub path: PathBuf,
    pub bytes: u64,
    /// The scripts of the functions' code, and their bytes.
    pub code_dir: PathBuf,
    pub code_bytes: u64,
    pub elapsed: Duration,
}

/// Render the page and write it to `path` (its directory is created).
pub fn write(
    facts: &Facts,
    bench: &Bench,
    callgraph: &Loaded,
    crate_results: &KrateResults,
    crater_results: &CraterResults,
    source_root: &Path,
    path: &Path,
) -> Result<Written> {
    let started = Instant::now();
    let code_dir_name = code_dir_name(path);
    let page = render(facts, bench, callgraph, crate_results, crater_results, source_root, &code_dir_name)?;
    if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(path, &page.html).context(|| format!("writing {}", path.display()))?;
    // Each function's code in a script of its own beside the page, loaded when it is opened:
    // the page stays light, and works opened straight from disk (a `<script src>` of a file
    // beside it needs no server).
    let code_dir = path.with_file_name(&code_dir_name);
    let _ = std::fs::remove_dir_all(&code_dir);
    std::fs::create_dir_all(&code_dir).context(|| format!("creating {}", code_dir.display()))?;
    let mut code_bytes = 0;
    for (id, view) in &page.code {
        let script = format!(
            "window.loweringCode = window.loweringCode || {{}};\nwindow.loweringCode[{}] = {};\n",
            serde_json::to_string(id).expect("a string"),
            serde_json::to_string(view).expect("a string")
        );
        code_bytes += script.len() as u64;
        let file = code_dir.join(format!("{id}.js"));
        std::fs::write(&file, script).context(|| format!("writing {}", file.display()))?;
    }
    Ok(Written {
        path: path.to_owned(),
        bytes: page.html.len() as u64,
        code_dir,
        code_bytes,
        elapsed: started.elapsed(),
    })
}

/// The directory beside the page that holds its functions' code: `index.html` has
/// `index.code`.
fn code_dir_name(page: &Path) -> String {
    let stem = page.file_stem().map_or_else(|| "page".into(), |stem| stem.to_string_lossy().into_owned());
    format!("{stem}.code")
}

/// A rendered page, and the code views it loads when a function is opened (id, HTML).
pub struct Page {
    pub html: String,
    pub code: Vec<(String, String)>,
}

pub fn chart_html(out: &mut String, chart: &charts::Chart) {
    let _ = write!(
        out,
        "<figure class=\"chart\" id=\"{}\" data-marks=\"{}\"><figcaption><b>{}</b> <small>{}</small></figcaption>{}</figure>",
        chart.id,
        chart.marks,
        escape(&chart.title),
        escape(&chart.note),
        chart.svg
    );
}

/// The last `inspect crate` run, or why there is none.
pub type KrateResults = std::result::Result<crate::krate::results::Results, String>;
/// The last `inspect crater` table, or why there is none.
pub type CraterResults = std::result::Result<crate::crater::results::Crater, String>;

pub fn render(
    facts: &Facts,
    bench: &Bench,
    callgraph: &Loaded,
    crate_results: &KrateResults,
    crater_results: &CraterResults,
    source_root: &Path,
    code_dir_name: &str,
) -> Result<Page> {
    let groups = report::by_source_function(facts);
    let figures = headline::figures(facts, bench.summary());
    let krate = &facts.krate;
    let mut out = String::with_capacity(1 << 20);
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>lowering: {0}, classic against runtime</title><style>{STYLE}</style></head><body>\
         <header><h1>{0}: what each lowering produced, and what it costs</h1>\
         <p>Every <code>#[lowering]</code> function, compiled as the classic state machine and as a plain \
         <code>async fn</code>; read from the artifact ({INSPECTED_BUILD}). \
         Classic is <span class=\"classic\">orange</span>, runtime <span class=\"runtime\">blue</span>.</p>\
         <nav><a href=\"#headline\">headline</a> <a href=\"#bench\">benchmark</a> <a href=\"#callgraph\">call graph</a> <a href=\"#crate\">crate</a> <a href=\"#crater\">crater</a> \
         <a href=\"#functions\">functions</a> \
         <a href=\"#sizes\">sizes</a> <a href=\"#stacks\">stacks</a></nav></header><main>",
        escape(&krate.package)
    );
    sections::headline(&mut out, &figures, bench);

    out.push_str("<section id=\"bench\"><h2>Benchmark: cost per operation</h2>");
    sections::bench_status(&mut out, bench);
    if let Some(summary) = bench.summary() {
        for chart in charts::bench_charts(summary)? {
            chart_html(&mut out, &chart);
        }
        sections::bench_table(&mut out, bench);
    }
    out.push_str("</section>");

    callgraph::section(&mut out, callgraph, chart_html)?;
    krate::section(&mut out, crate_results);
    crater::section(&mut out, crater_results);

    let _ = write!(
        out,
        "<section id=\"functions\"><h2>Per function ({} source functions)</h2>\
         <p>MIR basic blocks, LLVM IR instructions, native code bytes, state and task sizes, and expanded \
         lines; the column meanings are in the README (<code>cargo run -p inspect</code>). \
         <code>!</code> marks a MIR shape that disagrees with the record.</p>",
        groups.len()
    );
    sections::function_table(&mut out, &groups);
    let _ = write!(
        out,
        "<section id=\"code-view\" hidden data-code-dir=\"{}\"></section></section>",
        escape(code_dir_name)
    );

    out.push_str("<section id=\"sizes\"><h2>Sizes per function</h2>");
    let value = |functions: &[&crate::facts::FunctionFacts],
                 variant: &str,
                 get: fn(&crate::facts::FunctionFacts) -> Option<u64>| {
        functions.iter().find(|f| f.variant == variant).and_then(|f| get(f)).map(|v| v as f64)
    };
    let sized = |get: fn(&crate::facts::FunctionFacts) -> Option<u64>| -> Vec<charts::Sized> {
        groups
            .iter()
            .map(|(_, functions)| charts::Sized {
                classic: value(functions, "classic", get),
                runtime: value(functions, "runtime", get),
            })
            .collect()
    };
    chart_html(
        &mut out,
        &charts::size_chart(
            "chart-text",
            "Native code per function",
            "code bytes (log)",
            &sized(|f| Some(f.native_bytes())),
        )?,
    );
    chart_html(
        &mut out,
        &charts::size_chart("chart-state", "State per function", "state bytes (log)", &sized(|f| f.state_bytes))?,
    );
    out.push_str("</section>");

    out.push_str("<section id=\"stacks\"><h2>Stacks</h2>");
    match &facts.diagnostics {
        Some(diagnostics) => {
            let mut lines = Vec::new();
            for (build, diagnostics) in diagnostics {
                for variant in ["classic", "runtime"] {
                    let points: Vec<(f64, f64)> = RECURSION_DEPTHS
                        .iter()
                        .filter_map(|depth| {
                            let stack = diagnostics.stacks.get(&format!("recursive/{depth}"))?.get(variant)?;
                            Some((*depth as f64, stack.frames as f64))
                        })
                        .collect();
                    if !points.is_empty() {
                        lines.push(charts::Line { series: format!("{build} {variant}"), variant: variant.to_owned(), points });
                    }
                }
            }
            if !lines.is_empty() {
                chart_html(&mut out, &charts::depth_chart(&lines)?);
            }
            sections::stacks(&mut out, diagnostics);
        }
        None => out.push_str("<p class=\"status missing\">The package has no <code>lowering_stacks</code> example: no stacks (D1-D4).</p>"),
    }
    out.push_str("</section>");

    let dumps = code::Dumps::load(facts)?;
    let mut code = Vec::new();
    for (index, (name, functions)) in groups.iter().enumerate() {
        let mut view = String::new();
        code::view(&mut view, &dumps, source_root, name, functions);
        code.push((format!("code-{index}"), view));
    }
    let _ = writeln!(out, "</main><script>{SCRIPT}</script></body></html>");
    Ok(Page { html: out, code })
}
