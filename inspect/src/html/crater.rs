//! The page's section for the last `inspect crater` run (`inspect --html`): the totals, the
//! refusals by code, a row per crate, the tests that pass runtime and not classic; or why
//! there is no table.

use std::fmt::Write as _;

use super::escape;
use crate::crater::results::{Count, Crater, Status};

pub fn section(out: &mut String, loaded: &std::result::Result<Crater, String>) {
    out.push_str("<section id=\"crater\"><h2>Crater: published crates, every async fn classic</h2>");
    let crater = match loaded {
        Ok(crater) => crater,
        Err(status) => {
            let _ = write!(out, "<p class=\"status missing\" id=\"crater-status\">{}</p></section>", escape(status));
            return;
        }
    };
    let _ = write!(
        out,
        "<p class=\"status\" id=\"crater-status\"><code>{}</code></p><p>{} crates of <code>{}</code> by \
         <code>cargo run -p inspect -- crater</code>, each built against the lowering of <code>{}</code> with \
         <code>inspect crate {}</code>{}. A fn counts as lowered with hints when rustc's error (E0507, E0382, E0597; E0728 or \
         a <code>return</code> inside a macro) named the hint it needed; a refusal is rustc's first error for the fn.</p>",
        escape(&crater.totals.line()),
        crater.rows.len(),
        escape(&crater.list),
        escape(&crater.lab.commit),
        escape(&crater.crate_options.join(" ")),
        if crater.pending.is_empty() {
            String::new()
        } else {
            format!("; not done yet: {}", escape(&crater.pending.join(", ")))
        }
    );
    let by_code = crater.totals.refusals_by_count();
    if !by_code.is_empty() {
        out.push_str(
            "<table id=\"crater-refusals\"><thead><tr><th>code</th><th>refused fns</th><th>first \
                       example</th></tr></thead><tbody>",
        );
        for (code, count) in by_code {
            let example = crater.rows.iter().find_map(|row| {
                let refused = row.refusals.get(code)?.first()?;
                Some(format!("{} {} ({}): {}", row.label(), refused.path, refused.error_at, refused.message))
            });
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{count}</td><td>{}</td></tr>",
                escape(code),
                escape(&example.unwrap_or_default())
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str(
        "<table id=\"crater-rows\"><thead><tr><th>crate</th><th>edition</th><th>lowered classic</th><th>with \
         hints</th><th>tests classic</th><th>runtime baseline</th><th>refusals / why not measured</th>\
         <th>seconds</th></tr></thead><tbody>",
    );
    let count = |count: Option<Count>| count.map_or_else(|| "-".to_owned(), |c| format!("{}/{}", c.passed, c.total));
    for row in &crater.rows {
        let (lowered, hinted, said) = match row.status {
            Status::Done => {
                let codes: Vec<String> =
                    row.refusals.iter().map(|(code, refused)| format!("{code} {}", refused.len())).collect();
                let mut said = codes.join(", ");
                if let Some(why) = &row.tests_not_run {
                    said.push_str(&format!("{}tests not run: {why}", if said.is_empty() { "" } else { "; " }));
                }
                (format!("{}/{}", row.accepted, row.functions), row.hinted.to_string(), said)
            }
            status => (
                "-".to_owned(),
                "-".to_owned(),
                format!("{}: {}", status.as_str(), row.detail.as_deref().unwrap_or_default()),
            ),
        };
        let _ = write!(
            out,
            "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{lowered}</td><td>{hinted}</td><td>{}</td><td>{}</td><td>{}</td>\
             <td>{:.0}</td></tr>",
            row.status.as_str(),
            escape(&row.label()),
            escape(row.edition.as_deref().unwrap_or("-")),
            count(row.classic),
            count(row.baseline),
            escape(&said),
            row.seconds
        );
    }
    out.push_str("</tbody></table>");
    let failing: Vec<String> = crater
        .rows
        .iter()
        .flat_map(|row| row.classic_only_failures.iter().map(move |test| format!("{}: {test}", row.label())))
        .collect();
    if !failing.is_empty() {
        out.push_str("<p>Tests that pass with every fn runtime and not with the accepted fns classic:</p><ul id=\"crater-failures\">");
        for test in failing {
            let _ = write!(out, "<li>{}</li>", escape(&test));
        }
        out.push_str("</ul>");
    }
    out.push_str("</section>");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crater::lab::Lab;
    use crate::crater::results::{Refused, Row, Totals};

    fn crater() -> Crater {
        let mut done = Row::failed("a@1.0.0", "a-1.0.0", Status::Done, String::new(), 12.0, "a.log".into());
        done.detail = None;
        done.name = Some("a".to_owned());
        done.version = Some("1.0.0".to_owned());
        done.edition = Some("2021".to_owned());
        (done.functions, done.accepted, done.hinted) = (4, 3, 1);
        done.classic = Some(Count { passed: 9, total: 10 });
        done.baseline = Some(Count { passed: 10, total: 10 });
        done.refusals.insert(
            "E0308".to_owned(),
            vec![Refused {
                path: "Conn::<T>::send".to_owned(),
                at: "src/lib.rs:3".to_owned(),
                error_at: "src/lib.rs:5".to_owned(),
                message: "mismatched types".to_owned(),
            }],
        );
        done.classic_only_failures.push("lib: tests::eager (left: 0, right: 1)".to_owned());
        let broken =
            Row::failed("b@0.1.0", "b-0.1.0", Status::Timeout, "stopped after 60 s".to_owned(), 60.0, "b.log".into());
        let rows = vec![done, broken];
        Crater {
            schema: 1,
            list: "list.txt".to_owned(),
            lab: Lab { commit: "abc123".to_owned(), runtime: "/lab/runtime".into() },
            crate_options: vec!["--no-figures".to_owned()],
            totals: Totals::over(&rows),
            rows,
            pending: vec!["c@2.0.0".to_owned()],
        }
    }

    #[test]
    fn the_table_its_totals_refusals_and_failures() {
        let mut page = String::new();
        section(&mut page, &Ok(crater()));
        assert!(page.contains(
            "<code>3/4 async fns lowered classic (75.0 %), 1 with hints; tests 9/10 pass classic (90.0 %) in 1 crates \
             (runtime baseline 10/10); 1 of 2 crates measured</code>"
        ), "{page}");
        assert!(page.contains("<tr><td>E0308</td><td>1</td><td>a@1.0.0 Conn::&lt;T&gt;::send (src/lib.rs:5): mismatched types</td></tr>"), "{page}");
        assert!(page.contains(
            "<tr class=\"done\"><td>a@1.0.0</td><td>2021</td><td>3/4</td><td>1</td><td>9/10</td><td>10/10</td><td>E0308 1</td><td>12</td></tr>"
        ), "{page}");
        assert!(page.contains("<tr class=\"timeout\"><td>b@0.1.0</td><td>-</td><td>-</td><td>-</td><td>-</td><td>-</td><td>timeout: stopped after 60 s</td>"), "{page}");
        assert!(page.contains("<li>a@1.0.0: lib: tests::eager (left: 0, right: 1)</li>"), "{page}");
        assert!(page.contains("not done yet: c@2.0.0"), "{page}");
    }

    #[test]
    fn no_table_is_said() {
        let mut page = String::new();
        section(&mut page, &Err("no crater results at x".to_owned()));
        assert_eq!(
            page,
            "<section id=\"crater\"><h2>Crater: published crates, every async fn classic</h2><p class=\"status missing\" \
             id=\"crater-status\">no crater results at x</p></section>"
        );
    }
}
