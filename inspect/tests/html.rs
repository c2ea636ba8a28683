//! `inspect --html` on the fixture crate: the page's content (every function, every
//! benchmark row, the staleness of a summary from another commit, a missing summary said, the
//! call-graph results and their charts, or that they are missing),
//! and the page in headless Chromium (no console errors, every chart drawn, the table sorts,
//! the side-by-side view opens with both variants), with a screenshot for people to look at.
//!
//! The benchmark summary and the call-graph results here are written by the test in their
//! formats (schema 1) with made-up figures: it tests the page, not the measurements. Chromium is Debian's
//! `chromium`; when it is missing the test installs it (as root, with apt), or says why it
//! cannot and skips the browser part.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

use serde_json::{Value, json};

/// `inspect` runs of this file share the fixture's build; one at a time.
static BUILD: Mutex<()> = Mutex::new(());

fn tmp() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).to_owned()
}

fn inspect(args: &[&str]) -> Output {
    let _one_at_a_time = BUILD.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture/Cargo.toml");
    let output = Command::new(env!("CARGO_BIN_EXE_inspect"))
        .arg("--manifest-path")
        .arg(manifest)
        .args(args)
        // The same target directory as `fixture.rs`: the fixture builds once.
        .env("CARGO_TARGET_DIR", tmp().join("inspect-fixture"))
        .output()
        .expect("inspect runs");
    assert!(output.status.success(), "inspect {args:?} failed:\n{}", String::from_utf8_lossy(&output.stderr));
    output
}

/// The benchmark's scenarios, as `cargo bench -p lowering` names them.
const SCENARIOS: [(&str, &str, &str, bool); 8] = [
    ("B1", "DirectSyncControl", "call", true),
    ("B2", "CompletedChain10", "call", false),
    ("B3", "ValueChain10", "call", false),
    ("B5", "CacheHitLoop", "call (100 awaits)", false),
    ("B8", "PanicThroughChain10", "call", false),
    ("B8", "ErrThroughChain10", "call", false),
    ("B10", "SuspendPingPong (56 pairs, no chain)", "message", false),
    ("B15", "SyncLoop", "await", false),
];

/// A summary in the benchmark's format, from a commit that is not this one.
fn write_summary(dir: &Path) -> PathBuf {
    let mut rows = Vec::new();
    for (index, (id, name, unit, control)) in SCENARIOS.iter().enumerate() {
        let subjects: &[&str] = if *control { &["control"] } else { &["classic", "runtime"] };
        for (rank, variant) in subjects.iter().enumerate() {
            let median = (index as f64 + 1.0) * if rank == 0 { 100.0 } else { 3.0 };
            rows.push(json!({
                "id": id, "name": name, "unit": unit, "variant": variant, "lowering_measured": variant,
                "ns_per_op": {"median": median, "min": median * 0.8, "max": median * 1.5},
                "bytes_per_op": if rank == 0 { 64.0 * (index as f64 + 1.0) } else { 0.0 },
                "allocs_per_op": if rank == 0 { index as f64 + 1.0 } else { 0.0 },
                "instructions_per_op": median * 4.0,
                "first_invocation_ns": [median * 10.0], "samples": 18,
            }));
        }
    }
    let summary = json!({
        "schema": 1,
        "machine": {"os": "linux", "rustc": "rustc 1.95.0"},
        "source": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": false, "written_unix": 1_796_135_580_u64},
        "quick": false,
        "rows": rows,
    });
    std::fs::create_dir_all(dir).expect("creating the summary's directory");
    let path = dir.join("summary.json");
    std::fs::write(&path, serde_json::to_string_pretty(&summary).expect("JSON")).expect("writing the summary");
    path
}

/// Call-graph results in `inspect callgraph`'s format (schema 1), with made-up figures: two
/// depths of the dag, the classic one at depth 16 stopped at the timeout.
fn write_callgraph_results(dir: &Path) -> PathBuf {
    let build = |depth: u64, variant: &str, built: bool| {
        let scale = if variant == "classic" { 4.0 } else { 1.0 } * depth as f64;
        json!({
            "shape": "dag", "depth": depth, "variant": variant, "package": format!("cg-dag-{depth}-{variant}"),
            "functions": depth + 1, "paths": 1000, "outcome": if built { "built" } else { "timeout" },
            "detail": if built { Value::Null } else { json!("stopped after 60 s (the timeout)") },
            "cargo_wall_ms": (scale * 100.0) as u64,
            "rustc": if built { json!({"wall_ms": (scale * 90.0) as u64, "cpu_ms": (scale * 80.0) as u64, "max_rss_kib": 200_000}) } else { Value::Null },
            "binary": if built { json!({
                "path": "/nowhere", "bytes": (scale * 1e6) as u64, "kept": false, "symbols_error": null, "records_error": null,
                "symbols": {"count": 1000, "name_bytes": 100_000, "longest_bytes": (scale * 100.0) as u64,
                            "longest_start": "core::ptr::drop_in_place::<Weak<Core<(), Main0StateMachine<...>>>>",
                            "state_machine_types": if variant == "classic" { depth + 1 } else { 0 }, "record_symbols": depth + 1},
                "records": {"lowerings": {variant: depth + 1}, "generated_types": if variant == "classic" { depth + 1 } else { 0 }},
            }) } else { Value::Null },
        })
    };
    let results = json!({
        "schema": 1, "complete": true,
        "source": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": false, "written_unix": 1_796_135_580_u64},
        "machine": {"rustc": "rustc 1.95.0", "cores": 2},
        "settings": {"depths": [8, 16], "shapes": ["dag"], "variants": ["classic", "runtime"], "timeout_s": 60.0,
                     "memory_limit_mib": 8192, "jobs": null, "recursion_limit": 256, "profiles": {"dag": "dev profile"}, "incremental": false,
                     "timed": "rustc's CPU time"},
        "dependencies": {"wall_ms": {"dev": 12000}},
        "builds": [build(8, "classic", true), build(8, "runtime", true), build(16, "classic", false), build(16, "runtime", true)],
    });
    std::fs::create_dir_all(dir).expect("creating the results' directory");
    let path = dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&results).expect("JSON")).expect("writing the results");
    path
}

fn report_dir() -> PathBuf {
    tmp().join("lowering-report")
}

/// The page of the fixture with the test's summary, written once per test run.
fn page_with_summary() -> (PathBuf, String) {
    let summary = write_summary(&tmp().join("html-summary"));
    let callgraph = write_callgraph_results(&tmp().join("html-callgraph"));
    let page = report_dir().join("index.html");
    let output = inspect(&[
        "--html",
        page.to_str().expect("UTF-8 path"),
        "--bench-summary",
        summary.to_str().expect("UTF-8"),
        "--callgraph-results",
        callgraph.to_str().expect("UTF-8"),
    ]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("wrote ") && stdout.contains(" bytes in "), "{stdout}");
    let html = std::fs::read_to_string(&page).expect("the page was written");
    (page, html)
}

#[test]
fn the_page_holds_every_function_and_every_benchmark_row() {
    let (page, html) = page_with_summary();
    assert!(html.starts_with("<!doctype html>") && html.trim_end().ends_with("</html>"));
    // Self-contained: nothing is fetched.
    for reference in ["src=\"http", "href=\"http", "<link ", "@import", "url("] {
        assert!(!html.contains(reference), "the page refers to something outside it: {reference}");
    }

    let report: Value = serde_json::from_slice(&inspect(&["--json"]).stdout).expect("the report is JSON");
    let functions = report["functions"].as_array().expect("functions");
    assert_eq!(functions.len(), 22);
    // Each function's code is a script beside the page, loaded when it is opened.
    let code_dir = page.with_file_name("index.code");
    let code: String = std::fs::read_dir(&code_dir)
        .expect("the code directory is beside the page")
        .map(|entry| std::fs::read_to_string(entry.expect("an entry").path()).expect("a script"))
        .collect();
    for function in functions {
        let name = function["name"].as_str().expect("a name");
        assert!(html.contains(&format!("<tr data-name=\"{name}\">")), "{name} has a row in the table");
        let path = format!("{}::{name}", function["module"].as_str().expect("a module"));
        assert!(code.contains(&format!("<code>{path}</code>")), "{path} has its side-by-side code");
    }
    // The page stays light: its dumps are beside it.
    assert!(html.len() < 3 << 20, "the page is {} bytes", html.len());
    assert!(html.contains("data-code-dir=\"index.code\""));
    assert!(!html.contains("<table class=\"sbs\""), "no dump is in the page itself");
    for (id, name, _, _) in SCENARIOS {
        let row = format!("<tr data-row=\"{id} {name}\">");
        assert!(html.contains(&escape(&row)) || html.contains(&row), "{id} {name} is in the benchmark table");
    }
    // Another commit's summary is marked stale, with its date and commit.
    assert!(html.contains("class=\"status stale\""), "the summary is marked stale");
    assert!(html.contains("2026-12-01 14:33 UTC, commit 0123456789"), "the summary's date and commit are shown");
    for chart in [
        "chart-ns",
        "chart-instructions",
        "chart-bytes",
        "chart-allocations",
        "chart-depth",
        "chart-text",
        "chart-state",
        "chart-callgraph-time",
        "chart-callgraph-binary",
        "chart-callgraph-symbol",
    ] {
        assert!(html.contains(&format!("id=\"{chart}\"")), "{chart} is on the page");
    }
    // The call-graph results: from another commit too, so stale; a row per shape and depth.
    assert!(html.contains("<p class=\"status stale\" id=\"callgraph-status\">STALE call-graph results "), "stale");
    for row in ["dag 8", "dag 16"] {
        assert!(html.contains(&format!("<tr data-build=\"{row}\">")), "{row} is in the call-graph table");
    }
    assert!(html.contains("<td title=\"stopped after 60 s (the timeout)\">timeout</td>"), "the timeout is said");
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

#[test]
fn a_missing_summary_is_said_and_the_rest_still_shows() {
    let page = report_dir().join("without-summary.html");
    let missing = tmp().join("no-such-dir/summary.json");
    let no_callgraph = tmp().join("no-such-dir/results.json");
    inspect(&[
        "--html",
        page.to_str().expect("UTF-8"),
        "--bench-summary",
        missing.to_str().expect("UTF-8"),
        "--callgraph-results",
        no_callgraph.to_str().expect("UTF-8"),
    ]);
    let html = std::fs::read_to_string(&page).expect("the page was written");
    assert!(html.contains("no benchmark summary at"), "the page says the summary is missing");
    assert!(html.contains("no call-graph results at"), "the page says the call-graph results are missing");
    assert!(!html.contains("id=\"chart-callgraph-time\""), "no call-graph chart without results");
    assert!(html.contains("<tr data-name=\"level1\">"), "the per-function table is there");
    assert!(!html.contains("id=\"chart-ns\""), "no benchmark chart without a summary");
}

/// Debian's Chromium, installed when missing and possible.
fn chromium() -> Option<PathBuf> {
    let found =
        || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].into_iter().map(PathBuf::from).find(|path| path.exists());
    if let Some(path) = found() {
        return Some(path);
    }
    let root = Command::new("id").arg("-u").output().is_ok_and(|output| output.stdout.trim_ascii() == b"0");
    let apt = Path::new("/usr/bin/apt-get").exists();
    if !(root && apt) {
        println!(
            "SKIPPED the browser check: chromium is not installed and cannot be installed here \
             (needs root and apt-get); install Debian's `chromium` package to run it"
        );
        return None;
    }
    println!("installing chromium (apt-get update && apt-get install -y chromium)");
    let installed = Command::new("sh")
        .args(["-c", "apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium"])
        .status()
        .is_ok_and(|status| status.success());
    assert!(installed, "apt-get could not install chromium");
    found()
}

/// Headless Chromium with the flags that keep it off the network and out of the user's
/// profile.
fn headless(chromium: &Path, profile: &Path) -> Command {
    let mut command = Command::new(chromium);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// Runs before the page's own script: keeps every error and `console.error`.
const ERROR_TRAP: &str = r##"<script>
window.__errors = [];
window.addEventListener("error", function (event) { window.__errors.push(String(event.message)); });
(function () {
  const original = console.error;
  console.error = function () { window.__errors.push(Array.from(arguments).join(" ")); original.apply(console, arguments); };
})();
</script>"##;

/// Runs after the page's script: checks the charts, sorts the table, opens a function's
/// code, and leaves what it saw in `#browser-check` for `--dump-dom`.
const DRIVER: &str = r##"<script>
(function () {
  const seen = { charts: [], errors: window.__errors };
  for (const figure of document.querySelectorAll("figure.chart")) {
    seen.charts.push({ id: figure.id, expected: Number(figure.dataset.marks),
                       drawn: figure.querySelectorAll("svg rect, svg circle").length });
  }
  const heading = document.querySelector('#functions-table th[data-column="6"]');
  const column = function () {
    return Array.from(document.querySelectorAll("#functions-table tbody tr"))
      .map(function (row) { return row.cells[6].dataset.value; })
      .filter(function (value) { return value !== ""; }).map(Number);
  };
  const before = column();
  heading.click();
  const ascending = column();
  heading.click();
  const descending = column();
  const ordered = function (values, up) {
    return values.every(function (value, i) { return i === 0 || (up ? values[i - 1] <= value : values[i - 1] >= value); });
  };
  seen.sort = { rows: before.length, ascending: ordered(ascending, true), descending: ordered(descending, false),
                changed: JSON.stringify(ascending) !== JSON.stringify(descending) };
  const filter = document.getElementById("filter");
  filter.value = "level1";
  filter.dispatchEvent(new Event("input"));
  seen.filter = Array.from(document.querySelectorAll("#functions-table tbody tr")).filter(function (row) { return !row.hidden; })
    .map(function (row) { return row.dataset.name; });
  filter.value = "";
  filter.dispatchEvent(new Event("input"));
  const view = document.getElementById("code-view");
  seen.view_hidden_before = view.hidden;
  const visible = function () {
    const table = view.querySelector("table.sbs:not([hidden])");
    return { kind: table ? table.dataset.kind : null,
             variants: table ? Array.from(table.tHead.rows[0].cells).map(function (cell) { return cell.className; }) : [],
             filled_panes: table ? Array.from(table.querySelectorAll("td pre")).filter(function (pre) { return pre.textContent.trim() !== "" && !pre.classList.contains("empty"); }).length : 0 };
  };
  // The code is a script loaded when the function is opened: the checks run once it is in.
  view.addEventListener("code-opened", function () {
    seen.view = { hidden: view.hidden, source: (view.querySelector("pre.source") || {}).textContent || "", mir: visible() };
    view.querySelector('.tabs button[data-kind="asm"]').click();
    seen.view.asm = visible();
    const out = document.createElement("pre");
    out.id = "browser-check";
    out.textContent = JSON.stringify(seen);
    document.body.appendChild(out);
  });
  document.querySelector('#functions-table tbody tr[data-name="level1"] button.open').click();
})();
</script>"##;

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&amp;", "&")
}

#[test]
fn the_page_works_in_headless_chromium() {
    let (page, html) = page_with_summary();
    let Some(chromium) = chromium() else { return };
    let dir = report_dir();

    // The page with the test's trap and driver around the page's own script.
    let driven = html.replacen("</head>", &format!("{ERROR_TRAP}</head>"), 1).replacen(
        "</body>",
        &format!("{DRIVER}</body>"),
        1,
    );
    let driven_path = dir.join("browser-check.html");
    std::fs::write(&driven_path, driven).expect("writing the driven page");
    let profile = tmp().join("chromium-profile");
    let _ = std::fs::remove_dir_all(&profile);
    let output = headless(&chromium, &profile)
        // Time for the script a click loads before the DOM is dumped.
        .arg("--virtual-time-budget=10000")
        .arg("--dump-dom")
        .arg(format!("file://{}", driven_path.display()))
        .output()
        .expect("chromium runs");
    let dom = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let console_errors: Vec<&str> = stderr
        .lines()
        .filter(|line| line.contains("CONSOLE") && (line.contains("ERROR") || line.contains("Uncaught")))
        .collect();
    assert!(console_errors.is_empty(), "console errors:\n{}", console_errors.join("\n"));
    let start =
        dom.find("<pre id=\"browser-check\">").unwrap_or_else(|| panic!("the driver did not finish:\n{stderr}"));
    let rest = &dom[start + "<pre id=\"browser-check\">".len()..];
    let seen: Value = serde_json::from_str(&unescape(&rest[..rest.find("</pre>").expect("end of the result")]))
        .expect("the driver's result is JSON");
    println!("browser check: {seen}");

    assert_eq!(seen["errors"], json!([]), "no errors in the page");
    let charts = seen["charts"].as_array().expect("charts");
    assert_eq!(charts.len(), 10, "every chart is on the page: {charts:?}");
    for chart in charts {
        let (expected, drawn) = (chart["expected"].as_u64().unwrap_or(0), chart["drawn"].as_u64().unwrap_or(0));
        assert!(expected > 0 && drawn >= expected, "chart {} shows its {expected} marks (drawn: {drawn})", chart["id"]);
    }
    assert_eq!(seen["sort"]["rows"], 11, "one row per source function");
    assert_eq!(seen["sort"]["ascending"], true, "sorted ascending: {}", seen["sort"]);
    assert_eq!(seen["sort"]["descending"], true, "sorted descending: {}", seen["sort"]);
    assert_eq!(seen["sort"]["changed"], true);
    assert_eq!(seen["filter"], json!(["level1"]), "the filter keeps the matching function");
    assert_eq!(seen["view_hidden_before"], true);
    let view = &seen["view"];
    assert_eq!(view["hidden"], false, "the side-by-side view opened");
    assert!(view["source"].as_str().is_some_and(|source| source.contains("level1")), "the source is above: {view}");
    for kind in ["mir", "asm"] {
        assert_eq!(view[kind]["kind"], if kind == "mir" { "mir" } else { "asm" });
        assert_eq!(view[kind]["variants"], json!(["classic", "runtime"]), "both variants side by side");
        assert!(view[kind]["filled_panes"].as_u64() >= Some(2), "both variants show {kind} code: {view}");
    }

    // A screenshot of the page itself, for people to look at.
    let screenshot = dir.join("screenshot.png");
    let _ = std::fs::remove_file(&screenshot);
    let output = headless(&chromium, &profile)
        .arg(format!("--screenshot={}", screenshot.display()))
        .arg("--window-size=1400,2600")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    assert!(
        screenshot.metadata().is_ok_and(|metadata| metadata.len() > 10_000),
        "chromium saved a screenshot:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    println!("screenshot: {}", screenshot.display());
}
