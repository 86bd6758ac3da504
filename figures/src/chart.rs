//! A log-log line chart written as SVG: sizes (powers of two) across, a positive quantity up.

use std::path::Path;

use plotters::prelude::*;

use crate::Error;

/// One line of a chart.
pub struct Line {
    /// The legend's words.
    pub label: String,
    /// `(size, value)` by increasing size; every value positive.
    pub points: Vec<(f64, f64)>,
    /// Its colour.
    pub color: RGBColor,
    /// Dashed (for the computations in the clear) or solid.
    pub dashed: bool,
}

/// What a chart shows around its lines.
pub struct Frame<'a> {
    /// Above the plot.
    pub title: &'a str,
    /// The vertical axis.
    pub y_label: &'a str,
    /// Below the plot, small: where the numbers come from.
    pub footnote: &'a str,
    /// The corner of the legend, where it hides no line.
    pub legend: SeriesLabelPosition,
}

/// Colours that stay apart in print and for the common colour blindnesses (Okabe and Ito's).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

const WIDTH: u32 = 880;
const HEIGHT: u32 = 560;

/// The powers of ten (or of two, on the size axis) that bracket `lo..=hi`.
fn bracket(lo: f64, hi: f64, base: f64) -> (f64, f64) {
    (
        base.powf(lo.log(base).floor()),
        base.powf(hi.log(base).ceil()),
    )
}

/// `2^k` for a size on the axis.
fn size_label(x: &f64) -> String {
    format!("2^{}", x.log2().round())
}

/// A time or ratio on a log axis, as short as it reads clearly.
fn value_label(y: &f64) -> String {
    if *y >= 1.0 {
        format!("{y:.0}")
    } else {
        let text = format!("{y:.6}");
        text.trim_end_matches('0').to_string()
    }
}

/// Draws `lines` to an SVG file at `path`.
pub fn draw(path: &Path, frame: &Frame, lines: &[Line]) -> Result<(), Error> {
    let draw_error = |e: String| Error::Draw {
        path: path.to_path_buf(),
        reason: e,
    };
    let all = lines.iter().flat_map(|l| l.points.iter());
    let (mut x_lo, mut x_hi, mut y_lo, mut y_hi) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for &(x, y) in all {
        x_lo = x_lo.min(x);
        x_hi = x_hi.max(x);
        y_lo = y_lo.min(y);
        y_hi = y_hi.max(y);
    }
    if x_lo > x_hi {
        return Err(draw_error("no points to draw".into()));
    }
    let (x_lo, x_hi) = (x_lo / 1.25, x_hi * 1.25);
    let (y_lo, y_hi) = bracket(y_lo, y_hi, 10.0);
    let size_ticks: Vec<f64> = (0..64)
        .map(|k| (1u64 << k) as f64)
        .filter(|x| (x_lo..=x_hi).contains(x) && x.log2().round() as i64 % 2 == 0)
        .collect();
    // Over a few decades, 2 and 5 times each decade too, so that a ratio can be read off.
    let steps: &[f64] = if y_hi / y_lo <= 1e3 {
        &[1.0, 2.0, 5.0]
    } else {
        &[1.0]
    };
    let y_ticks: Vec<f64> = (-9..=9)
        .flat_map(|k| steps.iter().map(move |m| m * 10f64.powi(k)))
        .filter(|y| (y_lo..=y_hi).contains(y))
        .collect();

    let root = SVGBackend::new(path, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| draw_error(e.to_string()))?;
    let (plot, foot) = root.split_vertically(HEIGHT - 28);
    foot.draw(&Text::new(
        frame.footnote.to_string(),
        (12, 6),
        ("sans-serif", 13).into_font().color(&RGBColor(90, 90, 90)),
    ))
    .map_err(|e| draw_error(e.to_string()))?;

    let mut chart = ChartBuilder::on(&plot)
        .caption(frame.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(44)
        .y_label_area_size(72)
        .build_cartesian_2d(
            (x_lo..x_hi).log_scale().with_key_points(size_ticks),
            (y_lo..y_hi).log_scale().with_key_points(y_ticks),
        )
        .map_err(|e| draw_error(e.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("size n")
        .y_desc(frame.y_label)
        .x_label_formatter(&size_label)
        .y_label_formatter(&value_label)
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(225, 225, 225))
        .label_style(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_error(e.to_string()))?;

    for line in lines {
        let style = ShapeStyle::from(line.color).stroke_width(2);
        let points = line.points.clone();
        let dashed = line.dashed;
        let drawn = if line.dashed {
            chart.draw_series(DashedLineSeries::new(points.clone(), 8, 5, style))
        } else {
            chart.draw_series(LineSeries::new(points.clone(), style))
        }
        .map_err(|e| draw_error(e.to_string()))?;
        drawn.label(line.label.clone()).legend(move |(x, y)| {
            let (first, second) = if dashed {
                ((0, 9), (15, 24))
            } else {
                ((0, 12), (12, 24))
            };
            EmptyElement::at((x, y))
                + PathElement::new(vec![(first.0, 0), (first.1, 0)], style)
                + PathElement::new(vec![(second.0, 0), (second.1, 0)], style)
        });
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| Circle::new(p, 3, line.color.filled())),
            )
            .map_err(|e| draw_error(e.to_string()))?;
    }
    chart
        .configure_series_labels()
        .position(frame.legend.clone())
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(200, 200, 200))
        .label_font(("sans-serif", 14))
        .draw()
        .map_err(|e| draw_error(e.to_string()))?;
    root.present().map_err(|e| draw_error(e.to_string()))?;
    Ok(())
}
