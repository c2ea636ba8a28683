//! The page's call-graph section (`inspect --html`): build time, binary size and the longest
//! symbol against depth, one line per shape and lowering on a log scale, and the builds' table;
//! or why there are no results.

use std::fmt::Write as _;

use plotters::prelude::*;

use super::charts::{CLASSIC, Chart, RUNTIME};
use super::escape;
use crate::callgraph::report::grouped;
use crate::callgraph::results::{Build, Loaded, Outcome, Results};
use crate::error::{Error, Result};

/// The section, with its charts; `chart` writes a chart as the page writes all of them.
pub fn section(out: &mut String, loaded: &Loaded, chart: impl Fn(&mut String, &Chart)) -> Result<()> {
    out.push_str("<section id=\"callgraph\"><h2>Compile cost against the call graph (I9)</h2>");
    let class = match loaded {
        Loaded::Found { stale: None, .. } => "status",
        Loaded::Found { stale: Some(_), .. } => "status stale",
        Loaded::Missing(_) | Loaded::Unreadable(..) => "status missing",
    };
    let _ = write!(out, "<p class=\"{class}\" id=\"callgraph-status\">{}</p>", escape(&loaded.status()));
    if let Some(results) = loaded.results() {
        let settings = &results.settings;
        let _ = write!(
            out,
            "<p>Generated crates of <code>depth + 1</code> async fns: <b>chain</b> (<code>main_i</code> awaits \
             <code>main_{{i+1}}</code>), <b>dag</b> (<code>main_i</code> awaits <code>main_{{i+1}}</code> then \
             <code>main_{{i+2}}</code>: paths grow as the Fibonacci numbers), <b>freeze</b> (the dag made and dropped \
             unpolled, built with rustc's deep-futures-are-freeze flags), each built under both lowerings by \
             <code>cargo run -p inspect -- callgraph</code>. Build seconds: {}. Each build limited to {} s and {} MiB \
             of address space; {}. Hollow rings: builds that did not finish. Hover over an outcome for its reason.</p>",
            escape(crate::callgraph::report::TIMED),
            crate::callgraph::report::seconds_text(settings.timeout_s),
            settings.memory_limit_mib,
            escape(&results.machine.rustc)
        );
        for figure in charts(results)? {
            chart(out, &figure);
        }
        table(out, results);
    }
    out.push_str("</section>");
    Ok(())
}

/// One line of a chart: a shape and a lowering.
struct Series {
    shape: String,
    variant: String,
    points: Vec<(f64, f64)>,
    /// Builds that did not finish, where they were stopped.
    stopped: Vec<(f64, f64)>,
}

fn series(
    results: &Results,
    value: impl Fn(&Build) -> Option<f64>,
    stopped: impl Fn(&Build) -> Option<f64>,
) -> Vec<Series> {
    let mut lines: Vec<Series> = Vec::new();
    for build in &results.builds {
        let index = match lines.iter().position(|line| line.shape == build.shape && line.variant == build.variant) {
            Some(index) => index,
            None => {
                lines.push(Series {
                    shape: build.shape.clone(),
                    variant: build.variant.clone(),
                    points: Vec::new(),
                    stopped: Vec::new(),
                });
                lines.len() - 1
            }
        };
        let depth = f64::from(build.depth);
        let (points, value) = match build.outcome {
            Outcome::Built => (&mut lines[index].points, value(build)),
            Outcome::Skipped => continue,
            _ => (&mut lines[index].stopped, stopped(build)),
        };
        points.extend(value.filter(|value| *value > 0.0).map(|value| (depth, value)));
    }
    lines
}

fn charts(results: &Results) -> Result<Vec<Chart>> {
    // Where a build that did not finish stopped: its rustc's CPU time until it failed, or
    // cargo's wall time for one stopped at the timeout (its rustc did not report).
    let stopped_at = |build: &Build| build.cpu_seconds().or(build.cargo_wall_ms.map(|ms| ms as f64 / 1000.0));
    let never = |_: &Build| None;
    Ok(vec![
        line_chart(
            "chart-callgraph-time",
            "Build time against depth",
            "CPU seconds of the crate's own rustc (log scale); orange classic, blue runtime; dag: solid line and \
             large dots, chain: long dashes and squares, freeze: short dashes and small dots; hollow rings: builds \
             that did not finish (memory limit, error: at rustc's CPU time when it stopped; timeout: at cargo's \
             wall time).",
            "rustc CPU seconds (log)",
            &series(results, Build::cpu_seconds, stopped_at),
        )?,
        line_chart(
            "chart-callgraph-binary",
            "Binary size against depth",
            "bytes of the executable (log scale; dev profile: with debug info; freeze: none).",
            "executable bytes (log)",
            &series(results, |build| build.binary_bytes().map(|bytes| bytes as f64), never),
        )?,
        line_chart(
            "chart-callgraph-symbol",
            "Longest symbol against depth",
            "bytes of the longest (mangled) name in the executable's symbol table (log scale).",
            "longest symbol, bytes (log)",
            &series(results, |build| build.longest_symbol_bytes().map(|bytes| bytes as f64), never),
        )?,
    ])
}

fn line_chart(id: &str, title: &str, note: &str, axis: &str, lines: &[Series]) -> Result<Chart> {
    let all = || lines.iter().flat_map(|line| line.points.iter().chain(&line.stopped));
    let max_x = all().map(|point| point.0).fold(1.0_f64, f64::max);
    let low = all().map(|point| point.1).fold(f64::INFINITY, f64::min);
    let high = all().map(|point| point.1).fold(0.0_f64, f64::max);
    let (low, high) = if low.is_finite() { (low / 2.0, high * 2.0) } else { (0.1, 10.0) };
    let mut svg = String::new();
    let mut marks = 0;
    {
        let root = SVGBackend::with_string(&mut svg, (900, 440)).into_drawing_area();
        let mut draw = || -> std::result::Result<(), DrawingAreaErrorKind<std::io::Error>> {
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(80)
                .build_cartesian_2d(0.0..max_x + 2.0, (low..high).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("depth (async fns - 1)")
                .x_label_formatter(&|depth| format!("{depth:.0}"))
                .y_desc(axis)
                .y_label_formatter(&|value| short_number(*value))
                .label_style(("sans-serif", 13))
                .draw()?;
            for line in lines {
                let color = if line.variant == "classic" { CLASSIC } else { RUNTIME };
                let style = color.stroke_width(2);
                let points = line.points.iter().copied();
                let label = format!("{} {}", line.shape, line.variant);
                // dag: solid line, large dots; chain: long dashes, squares; freeze: short dashes,
                // small dots. The legend shows each marker.
                match line.shape.as_str() {
                    "chain" => {
                        chart.draw_series(DashedLineSeries::new(points, 10, 5, style))?;
                        chart
                            .draw_series(line.points.iter().map(|&point| {
                                EmptyElement::at(point) + Rectangle::new([(-4, -4), (4, 4)], color.filled())
                            }))?
                            .label(label)
                            .legend(move |(x, y)| {
                                EmptyElement::at((x, y))
                                    + PathElement::new(vec![(0, 0), (22, 0)], style)
                                    + Rectangle::new([(7, -4), (15, 4)], color.filled())
                            });
                    }
                    shape => {
                        let radius = if shape == "freeze" { 3 } else { 5 };
                        if shape == "freeze" {
                            chart.draw_series(DashedLineSeries::new(points, 3, 4, style))?;
                        } else {
                            chart.draw_series(LineSeries::new(points, style))?;
                        }
                        chart
                            .draw_series(line.points.iter().map(|&point| Circle::new(point, radius, color.filled())))?
                            .label(label)
                            .legend(move |(x, y)| {
                                EmptyElement::at((x, y))
                                    + PathElement::new(vec![(0, 0), (22, 0)], style)
                                    + Circle::new((11, 0), radius, color.filled())
                            });
                    }
                }
                chart.draw_series(line.stopped.iter().map(|&point| Circle::new(point, 7, color.stroke_width(2))))?;
                marks += line.points.len() + line.stopped.len();
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .label_font(("sans-serif", 13))
                .draw()?;
            root.present()
        };
        draw().map_err(|error| Error::new(format!("drawing the chart {id}: {error:?}")))?;
    }
    Ok(Chart { id: id.to_owned(), title: title.to_owned(), note: note.to_owned(), svg, marks })
}

/// Axis labels: `0.5`, `20`, `3k`, `1.2M`, `1G`.
fn short_number(value: f64) -> String {
    let (scaled, suffix) = match value {
        v if v >= 1e9 => (v / 1e9, "G"),
        v if v >= 1e6 => (v / 1e6, "M"),
        v if v >= 1e3 => (v / 1e3, "k"),
        v => (v, ""),
    };
    let text =
        if scaled >= 10.0 || scaled.fract().abs() < 1e-9 { format!("{scaled:.0}") } else { format!("{scaled:.1}") };
    format!("{text}{suffix}")
}

/// The builds, classic beside runtime per shape and depth.
fn table(out: &mut String, results: &Results) {
    out.push_str(
        "<table id=\"callgraph-table\"><thead><tr><th>shape</th><th>depth</th><th>fns</th><th>paths</th>\
         <th class=\"classic\">classic</th><th class=\"classic\">CPU s</th><th class=\"classic\">binary B</th>\
         <th class=\"classic\">longest symbol B</th><th class=\"classic\">peak MiB</th><th class=\"runtime\">runtime</th>\
         <th class=\"runtime\">CPU s</th><th class=\"runtime\">binary B</th><th class=\"runtime\">longest symbol B</th>\
         <th class=\"runtime\">peak MiB</th></tr></thead><tbody>",
    );
    let mut seen = Vec::new();
    for build in &results.builds {
        let key = (build.shape.clone(), build.depth);
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let _ = write!(
            out,
            "<tr data-build=\"{} {}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
            escape(&build.shape),
            build.depth,
            escape(&build.shape),
            build.depth,
            build.functions,
            grouped(build.paths)
        );
        for variant in ["classic", "runtime"] {
            match results.build(&build.shape, build.depth, variant) {
                Some(build) => {
                    let title = build.detail.as_deref().map(|detail| format!(" title=\"{}\"", escape(detail)));
                    let _ = write!(
                        out,
                        "<td{}>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                         <td class=\"num\">{}</td>",
                        title.unwrap_or_default(),
                        build.outcome.name(),
                        build.cpu_seconds().map_or_else(|| "-".to_owned(), |s| format!("{s:.2}")),
                        build.binary_bytes().map_or_else(|| "-".to_owned(), grouped),
                        build.longest_symbol_bytes().map_or_else(|| "-".to_owned(), grouped),
                        build
                            .rustc
                            .and_then(|rustc| rustc.max_rss_kib)
                            .map_or_else(|| "-".to_owned(), |kib| grouped(kib / 1024)),
                    );
                }
                None => out.push_str("<td></td><td></td><td></td><td></td><td></td>"),
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody></table>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_says_when_there_are_no_results() {
        let mut out = String::new();
        section(&mut out, &Loaded::Missing("/t/lowering-callgraph/results.json".into()), |_, _| {}).expect("renders");
        assert!(out.contains("class=\"status missing\" id=\"callgraph-status\">no call-graph results at /t/lowering-callgraph/results.json: run `cargo run -p inspect -- callgraph`"), "{out}");
        assert!(!out.contains("<table"));
    }

    #[test]
    fn the_charts_draw_a_point_per_built_build_and_a_hollow_one_per_stopped_build() {
        let results = crate::callgraph::report::tests::sample();
        let charts = charts(&results).expect("draws");
        let marks: Vec<usize> = charts.iter().map(|chart| chart.marks).collect();
        // Three builds built; the classic one at depth 16 stopped at the timeout.
        assert_eq!(marks, [4, 3, 3]);
        for chart in &charts {
            assert!(
                chart.svg.starts_with("<svg") && chart.svg.matches("<circle").count() >= chart.marks,
                "{}",
                chart.id
            );
        }
        let mut out = String::new();
        let loaded = Loaded::Found { path: "/r.json".into(), results, stale: None };
        section(&mut out, &loaded, |out, chart| out.push_str(&format!("<figure id=\"{}\"></figure>", chart.id)))
            .expect("renders");
        for id in ["chart-callgraph-time", "chart-callgraph-binary", "chart-callgraph-symbol"] {
            assert!(out.contains(&format!("<figure id=\"{id}\">")), "{id}");
        }
        assert!(out.contains("<tr data-build=\"dag 16\"><td>dag</td><td class=\"num\">16</td><td class=\"num\">17</td><td class=\"num\">1,000,000</td><td title=\"stopped after 60 s\">timeout</td><td class=\"num\">-</td>"), "{out}");
        assert_eq!(short_number(1_044_000_000.0), "1.0G");
        assert_eq!(short_number(2_400_000.0), "2.4M");
        assert_eq!(short_number(583.0), "583");
        assert_eq!(short_number(0.5), "0.5");
    }
}
