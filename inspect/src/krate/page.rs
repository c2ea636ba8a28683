//! The page's section for the last `inspect crate` run (`inspect --html`): the last line, the
//! refusals by code, tests per configuration, phase times, every function's verdict and the
//! accepted fns' figures; or why there are none.

use std::fmt::Write as _;

use super::figures::{Figures, shown};
use super::results::Results;
use crate::html::escape;

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
         first error for it.</p>",
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
    out.push_str("</tbody></table><table><thead><tr><th>phase</th><th>seconds</th><th>builds</th></tr></thead><tbody>");
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
        };
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
