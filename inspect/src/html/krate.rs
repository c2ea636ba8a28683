//! The page's section for the last `inspect crate` run (`inspect --html`): the last line, the
//! refusals by code, tests per configuration, memcheck's per test binary (`--memcheck`), phase
//! times, every function's verdict and the accepted fns' figures; or why there are none.

use std::fmt::Write as _;

use super::escape;
use crate::krate::figures::{Figures, shown};
use crate::krate::memcheck::Memcheck;
use crate::krate::report::hints_said;
use crate::krate::results::Results;

pub fn section(out: &mut String, loaded: &std::result::Result<Results, String>) {
    out.push_str("<section id=\"crate\"><h2>Another crate, every async fn classic</h2>");
    let results = match loaded {
        Ok(results) => results,
        Err(status) => {
            let _ = write!(out, "<p class=\"status missing\" id=\"crate-status\">{}</p></section>", escape(status));
            return;
        }
    };
    let _ = write!(
        out,
        "<p class=\"status\" id=\"crate-status\"><code>{}</code></p><p>{} {} (edition {}), from <code>{}</code>, by \
         <code>cargo run -p inspect -- crate</code>: each function tried classic, the rest runtime; a refusal is rustc's \
         first error for it; a function rustc refuses with E0507, E0382 or E0597 on a local, or with E0728 or a \
         <code>return</code> inside a macro, is given the hint the error calls for (<code>moves(x)</code>, \
         <code>keeps(y)</code>, <code>awaits(m)</code>, <code>returns(m)</code>) and built again, and counts as lowered \
         with hints.</p>",
        escape(&results.last_line()),
        escape(&results.name),
        escape(&results.version),
        escape(&results.edition),
        escape(&results.source)
    );
    let groups = results.by_code();
    if !groups.is_empty() {
        out.push_str(
            "<table><thead><tr><th>code</th><th>refused</th><th>first at</th><th>message</th></tr></thead><tbody>",
        );
        for (code, verdicts) in &groups {
            let Some(refusal) = verdicts.first().and_then(|v| v.refused.as_ref()) else { continue };
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}:{}</td><td>{}</td></tr>",
                escape(code),
                verdicts.len(),
                escape(&refusal.error.file),
                refusal.error.line,
                escape(&refusal.error.message)
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("<table><thead><tr><th>configuration</th><th>passed</th><th>of</th></tr></thead><tbody>");
    for tests in &results.tests {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&tests.configuration),
            tests.passed(),
            tests.total()
        );
    }
    out.push_str("</tbody></table>");
    if let Some(run) = &results.memcheck {
        memcheck(out, run);
    }
    out.push_str("<table><thead><tr><th>phase</th><th>seconds</th><th>builds</th></tr></thead><tbody>");
    for phase in &results.phases {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{:.1}</td><td>{}</td></tr>",
            escape(&phase.name),
            phase.seconds,
            phase.builds
        );
    }
    out.push_str("</tbody></table><table><thead><tr><th>function</th><th>at</th><th>verdict</th></tr></thead><tbody>");
    for verdict in &results.functions {
        let f = &verdict.function;
        let said = match &verdict.refused {
            None => "accepted".to_owned(),
            Some(refusal) => format!(
                "refused: {} at {}:{}: {}{}",
                refusal.error.code,
                refusal.error.file,
                refusal.error.line,
                refusal.error.message,
                if refusal.in_company { " (only with the other accepted fns)" } else { "" }
            ),
        } + &hints_said(verdict);
        let _ = write!(
            out,
            "<tr><td><code>{}</code></td><td>{}:{}</td><td>{}</td></tr>",
            escape(&f.path),
            escape(&f.file),
            f.line,
            escape(&said)
        );
    }
    out.push_str("</tbody></table>");
    figures(out, &results.figures);
    out.push_str("</section>");
}

/// The accepted library fns' figures, classic beside runtime, or why there are none.
fn figures(out: &mut String, figures: &Figures) {
    if let Some(why) = &figures.missing {
        let _ = write!(out, "<p class=\"status missing\" id=\"crate-figures-status\">figures {}</p>", escape(why));
        return;
    }
    out.push_str(
        "<p>The library's release build inspected twice: the accepted fns classic (the rest runtime), then every fn \
         runtime.</p><table id=\"crate-builds\"><thead><tr><th>configuration</th><th>rustc ms</th><th>object text \
         bytes</th><th>rlib bytes</th><th>generated types</th></tr></thead><tbody>",
    );
    for build in &figures.builds {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&build.configuration),
            build.build_ms,
            build.object_text_bytes,
            build.rlib_file_bytes,
            build.generated_types
        );
    }
    out.push_str(
        "</tbody></table><table id=\"crate-figures\"><thead><tr><th>function</th><th>lowering</th><th>generated \
         type</th><th>state bytes</th><th>task bytes</th><th>MIR statements</th><th>IR instructions</th><th>native \
         bytes</th></tr></thead><tbody>",
    );
    for function in &figures.functions {
        for lowered in [&function.classic, &function.runtime] {
            let Some(lowered) = lowered else { continue };
            let _ = write!(
                out,
                "<tr><td><code>{}</code> {}:{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&function.path),
                escape(&function.file),
                function.line,
                escape(&lowered.lowering),
                escape(lowered.generated_type.as_deref().unwrap_or("-")),
                shown(lowered.state_bytes),
                shown(lowered.task_bytes),
                lowered.mir_statements,
                lowered.llvm_ir_instructions,
                lowered.native_bytes
            );
        }
    }
    out.push_str("</tbody></table>");
}

/// Each test binary of the classic build under memcheck, and the total; or why it was not run.
fn memcheck(out: &mut String, memcheck: &Memcheck) {
    let _ =
        write!(out, "<p class=\"status\" id=\"crate-memcheck-status\"><code>{}</code></p>", escape(&memcheck.line()));
    if !memcheck.ran() {
        if let Some(why) = &memcheck.detail {
            let _ = write!(out, "<p class=\"status missing\">{}</p>", escape(why));
        }
        return;
    }
    let _ = write!(
        out,
        "<p>The {} build's test binaries under valgrind's memcheck (<code>{} {}</code>, each with \
         <code>--test-threads=1</code>, at most {} s); the doc tests are {}.</p><table id=\"crate-memcheck\"><thead>\
         <tr><th>binary</th><th>tests run</th><th>failed</th><th>errors</th><th>verdict</th><th>detail</th></tr>\
         </thead><tbody>",
        escape(&memcheck.configuration),
        escape(memcheck.valgrind.as_deref().unwrap_or("valgrind")),
        escape(&memcheck.flags.join(" ")),
        memcheck.timeout_s,
        escape(&memcheck.doc_tests)
    );
    for binary in &memcheck.binaries {
        let detail: Vec<&str> = binary.detail.iter().chain(&binary.first_error).map(String::as_str).collect();
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&binary.name),
            binary.tests_run,
            binary.tests_failed,
            binary.errors,
            binary.verdict.as_str(),
            escape(&detail.join("; "))
        );
    }
    out.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use crate::krate::libtest::Outcome;
    use crate::krate::memcheck::{Binary, Verdict};

    fn results(memcheck: Option<Memcheck>) -> Results {
        let mut results: Results = serde_json::from_value(serde_json::json!({
            "schema": 1, "name": "c", "version": "0.1.0", "edition": "2021", "source": "c@0.1.0",
            "feature_args": [], "functions": [], "tests": [], "phases": []
        }))
        .unwrap();
        results.memcheck = memcheck;
        results
    }

    #[test]
    fn memcheck_shows_each_binary_or_why_it_did_not_run() {
        let mut page = String::new();
        section(&mut page, &Ok(results(None)));
        assert!(!page.contains("crate-memcheck"), "{page}");

        let missing = Memcheck::not_run("valgrind is not installed".to_owned(), Duration::from_secs(1800));
        let mut page = String::new();
        section(&mut page, &Ok(results(Some(missing.clone()))));
        assert!(page.contains("<code>memcheck: not run: valgrind missing</code>"), "{page}");
        assert!(page.contains("valgrind is not installed") && !page.contains("id=\"crate-memcheck\""), "{page}");

        let mut run = Memcheck { status: "run".to_owned(), detail: None, errors: Some(2), ..missing };
        run.binaries.push(Binary {
            name: "test <io>".to_owned(),
            tests_run: 3,
            tests_failed: 1,
            errors: 2,
            verdict: Verdict::Errors,
            detail: None,
            first_error: Some("InvalidRead: Invalid read of size 8 in f (src/lib.rs:3)".to_owned()),
            seconds: 1.0,
            xml: PathBuf::new(),
            tests: Outcome::default(),
        });
        let mut page = String::new();
        section(&mut page, &Ok(results(Some(run))));
        assert!(page.contains("<code>memcheck: 1 test binary, 2 errors; 1 test(s) did not pass under memcheck</code>"));
        assert!(page.contains(
            "<tr><td>test &lt;io&gt;</td><td>3</td><td>1</td><td>2</td><td>errors</td><td>InvalidRead: Invalid read \
             of size 8 in f (src/lib.rs:3)</td></tr>"
        ));
        assert!(page.contains("the doc tests are not run under memcheck"), "{page}");
    }
}
