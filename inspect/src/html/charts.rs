//! The page's charts, drawn by `plotters` into SVG strings that the page inlines: per
//! benchmark scenario (time with min-max whiskers, instructions, bytes, allocations), frames
//! against recursion depth, and sizes per function.
//!
//! Every chart says how many marks (bars, points) it drew, so that the page's test can check
//! that the browser shows them.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::bench::{Row, Summary};
use crate::error::{Error, Result};

pub const CLASSIC: RGBColor = RGBColor(0xd9, 0x5f, 0x02);
pub const RUNTIME: RGBColor = RGBColor(0x1b, 0x6f, 0xb5);
pub const CONTROL: RGBColor = RGBColor(0x80, 0x80, 0x80);

/// One chart, ready to inline.
pub struct Chart {
    pub id: String,
    pub title: String,
    /// What the reader should know to read it (scale, what a whisker is).
    pub note: String,
    pub svg: String,
    /// Bars and points drawn (whisker medians included).
    pub marks: usize,
}

fn color_of(series: &str) -> RGBColor {
    match series {
        "classic" => CLASSIC,
        "runtime" => RUNTIME,
        _ => CONTROL,
    }
}

fn drawing<E: std::fmt::Debug>(what: &str) -> impl FnOnce(E) -> Error + '_ {
    move |error| Error::new(format!("drawing the chart {what}: {error:?}"))
}

/// A bar of a horizontal bar chart: one subject of one scenario.
struct Bar {
    series: String,
    value: f64,
    whisker: Option<(f64, f64)>,
}

struct Group {
    label: String,
    bars: Vec<Bar>,
}

/// Per scenario, one bar per subject (classic, runtime, control), on a log or linear axis.
fn bar_chart(id: &str, title: &str, note: &str, axis: &str, groups: &[Group], log: bool) -> Result<Chart> {
    let values: Vec<f64> = groups
        .iter()
        .flat_map(|group| group.bars.iter())
        .flat_map(|bar| [Some(bar.value), bar.whisker.map(|w| w.0), bar.whisker.map(|w| w.1)])
        .flatten()
        .filter(|value| value.is_finite() && (!log || *value > 0.0))
        .collect();
    let high = values.iter().copied().fold(0.0_f64, f64::max);
    // No positive value at all (every bar 0 on a log axis): any range will do.
    let low = Some(values.iter().copied().fold(f64::INFINITY, f64::min)).filter(|low| low.is_finite()).unwrap_or(1.0);
    let rows = groups.len().max(1);
    let height = 70 + 34 * rows as u32;
    let mut svg = String::new();
    let marks;
    {
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        root.fill(&WHITE).map_err(drawing(id))?;
        if log {
            let range = (low / 2.0).max(1e-3)..(high * 2.0).max(1.0);
            marks = draw_bars(&root, groups, axis, range.log_scale(), low / 2.0).map_err(drawing(id))?;
        } else {
            marks = draw_bars(&root, groups, axis, 0.0..(high * 1.1).max(1.0), 0.0).map_err(drawing(id))?;
        }
        root.present().map_err(drawing(id))?;
    }
    Ok(Chart { id: id.to_owned(), title: title.to_owned(), note: note.to_owned(), svg, marks })
}

fn draw_bars<X>(
    root: &DrawingArea<SVGBackend<'_>, Shift>,
    groups: &[Group],
    axis: &str,
    x_range: X,
    base: f64,
) -> std::result::Result<usize, DrawingAreaErrorKind<std::io::Error>>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let rows = groups.len() as f64;
    // Group `index` occupies [rows - index - 1, rows - index], first group on top.
    let mut chart = ChartBuilder::on(root)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(330)
        .build_cartesian_2d(x_range, 0.0..rows)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_label_formatter(&|_| String::new())
        .x_desc(axis)
        .label_style(("sans-serif", 13))
        .draw()?;
    // The scenario names, drawn beside the axis where each group's bars are (the axis's
    // own ticks fall on round numbers, not on the groups).
    let label_style = TextStyle::from(("sans-serif", 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    for (index, group) in groups.iter().enumerate() {
        let (x, y) = chart.backend_coord(&(base, rows - index as f64 - 0.5));
        root.draw(&Text::new(group.label.clone(), (x - 8, y), label_style.clone()))?;
    }
    let mut marks = 0;
    for series in ["classic", "runtime", "control"] {
        let color = color_of(series);
        let mut rects = Vec::new();
        let mut whiskers = Vec::new();
        for (index, group) in groups.iter().enumerate() {
            let count = group.bars.len() as f64;
            let top = rows - index as f64 - 0.1;
            let thickness = 0.8 / count;
            for (slot, bar) in group.bars.iter().enumerate() {
                if bar.series != series {
                    continue;
                }
                let y1 = top - thickness * slot as f64;
                let y0 = y1 - thickness * 0.9;
                rects.push(Rectangle::new([(base, y0), (bar.value.max(base), y1)], color.mix(0.85).filled()));
                if let Some((min, max)) = bar.whisker {
                    whiskers.push(ErrorBar::new_horizontal(
                        (y0 + y1) / 2.0,
                        min,
                        bar.value,
                        max,
                        BLACK.stroke_width(1),
                        6,
                    ));
                }
            }
        }
        if rects.is_empty() {
            continue;
        }
        marks += rects.len() + whiskers.len();
        // No legend box: it would cover the longest bars; the caption names the colours.
        chart.draw_series(rects)?;
        chart.draw_series(whiskers)?;
    }
    Ok(marks)
}

fn groups(summary: &Summary, value: impl Fn(&Row) -> Option<(f64, Option<(f64, f64)>)>) -> Vec<Group> {
    summary
        .scenarios()
        .into_iter()
        .map(|(label, rows)| Group {
            label: format!("{label} ({})", rows[0].unit),
            bars: rows
                .iter()
                .filter_map(|row| {
                    let (value, whisker) = value(row)?;
                    Some(Bar { series: row.variant.clone(), value, whisker })
                })
                .collect(),
        })
        .filter(|group| !group.bars.is_empty())
        .collect()
}

/// The benchmark's charts: time, instructions, bytes and allocations per operation.
pub fn bench_charts(summary: &Summary) -> Result<Vec<Chart>> {
    let mut charts = Vec::new();
    let time = groups(summary, |row| Some((row.ns.median, Some((row.ns.min, row.ns.max)))));
    charts.push(bar_chart(
        "chart-ns",
        "Time per operation",
        "ns/op, log scale; orange classic, blue runtime, grey control rows; bar = median, whisker = min to max of every sample of both rounds.",
        "ns per operation (log)",
        &time,
        true,
    )?);
    let instructions = groups(summary, |row| row.instructions_per_op.filter(|value| *value > 0.0).map(|v| (v, None)));
    if !instructions.is_empty() {
        charts.push(bar_chart(
            "chart-instructions",
            "Instructions per operation",
            "callgrind, counted in the measured region only; exact and repeatable. Log scale; orange classic, blue runtime, grey control.",
            "instructions per operation (log)",
            &instructions,
            true,
        )?);
    }
    let bytes = groups(summary, |row| row.bytes_per_op.map(|v| (v, None)));
    charts.push(bar_chart(
        "chart-bytes",
        "Bytes allocated per operation",
        "counted by the allocator in a separate pass. Log scale, so that the proxy rows do not flatten the others; orange classic, blue runtime, grey control; a missing bar is 0.",
        "bytes per operation (log)",
        &bytes,
        true,
    )?);
    let allocations = groups(summary, |row| row.allocs_per_op.map(|v| (v, None)));
    charts.push(bar_chart(
        "chart-allocations",
        "Allocations per operation",
        "counted by the allocator in a separate pass. Log scale, so that the proxy rows do not flatten the others; orange classic, blue runtime, grey control; a missing bar is 0.",
        "allocations per operation (log)",
        &allocations,
        true,
    )?);
    Ok(charts)
}

/// One line of points: a series name and its (x, y) points.
pub struct Line {
    pub series: String,
    pub variant: String,
    pub points: Vec<(f64, f64)>,
}

/// Frames against recursion depth (D2): one line per build and variant.
pub fn depth_chart(lines: &[Line]) -> Result<Chart> {
    let id = "chart-depth";
    let max_x = lines.iter().flat_map(|line| line.points.iter().map(|p| p.0)).fold(1.0_f64, f64::max);
    let max_y = lines.iter().flat_map(|line| line.points.iter().map(|p| p.1)).fold(1.0_f64, f64::max);
    let mut svg = String::new();
    let mut marks = 0;
    {
        let root = SVGBackend::with_string(&mut svg, (900, 420)).into_drawing_area();
        let mut draw = || -> std::result::Result<(), DrawingAreaErrorKind<std::io::Error>> {
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(60)
                .build_cartesian_2d(-0.3..max_x + 0.3, 0.0..max_y * 1.1)?;
            chart
                .configure_mesh()
                .x_desc("recursion depth")
                .y_desc("operation frames")
                .label_style(("sans-serif", 13))
                .draw()?;
            for line in lines {
                let base = color_of(&line.variant);
                let color = if line.series.starts_with("release") { base.mix(0.5) } else { base.mix(1.0) };
                chart
                    .draw_series(LineSeries::new(line.points.iter().copied(), color.stroke_width(2)))?
                    .label(line.series.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
                chart.draw_series(line.points.iter().map(|&point| Circle::new(point, 4, color.filled())))?;
                marks += line.points.len();
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
        draw().map_err(drawing(id))?;
    }
    Ok(Chart {
        id: id.to_owned(),
        title: "Frames against recursion depth (D2)".to_owned(),
        note: "operation frames on the stack at the bottom of a recursion of depth 0, 3 and 10; pale lines: release build."
            .to_owned(),
        svg,
        marks,
    })
}

/// A per-function size: its classic and runtime values.
pub struct Sized {
    pub classic: Option<f64>,
    pub runtime: Option<f64>,
}

/// Sizes per function, one point per function and variant, functions sorted by their
/// classic size (log scale: the variants differ by orders of magnitude).
pub fn size_chart(id: &str, title: &str, axis: &str, functions: &[Sized]) -> Result<Chart> {
    let mut sorted: Vec<&Sized> = functions.iter().collect();
    sorted.sort_by(|a, b| a.classic.unwrap_or(0.0).total_cmp(&b.classic.unwrap_or(0.0)));
    let values: Vec<f64> =
        sorted.iter().flat_map(|f| [f.classic, f.runtime]).flatten().filter(|value| *value > 0.0).collect();
    let low = values.iter().copied().fold(f64::INFINITY, f64::min).min(1.0);
    let high = values.iter().copied().fold(1.0_f64, f64::max);
    let mut svg = String::new();
    let mut marks = 0;
    {
        let root = SVGBackend::with_string(&mut svg, (900, 380)).into_drawing_area();
        let mut draw = || -> std::result::Result<(), DrawingAreaErrorKind<std::io::Error>> {
            root.fill(&WHITE)?;
            let mut chart = ChartBuilder::on(&root)
                .margin(12)
                .x_label_area_size(40)
                .y_label_area_size(70)
                .build_cartesian_2d(-1.0..sorted.len() as f64, (low / 2.0..high * 2.0).log_scale())?;
            chart
                .configure_mesh()
                .x_desc("functions, sorted by their classic size")
                .y_desc(axis)
                .label_style(("sans-serif", 13))
                .draw()?;
            for variant in ["classic", "runtime"] {
                let color = color_of(variant);
                let points: Vec<(f64, f64)> = sorted
                    .iter()
                    .enumerate()
                    .filter_map(|(index, function)| {
                        let value = if variant == "classic" { function.classic } else { function.runtime }?;
                        (value > 0.0).then_some((index as f64, value))
                    })
                    .collect();
                marks += points.len();
                chart
                    .draw_series(points.into_iter().map(|point| Circle::new(point, 3, color.filled())))?
                    .label(variant)
                    .legend(move |(x, y)| Circle::new((x + 6, y), 4, color.filled()));
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
        draw().map_err(drawing(id))?;
    }
    Ok(Chart {
        id: id.to_owned(),
        title: title.to_owned(),
        note: "one point per function and variant, log scale; a function with no such figure has no point.".to_owned(),
        svg,
        marks,
    })
}
