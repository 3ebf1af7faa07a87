//! Writes small sample result files, for checking them with other tools.
//!
//! Run with `cargo run -p mastersim-output --example sample_files -- <directory>`. Writes
//! `rows.mat` (streamed with `MatWriter`: a parameter, three signals, a plain, a negated and
//! a parameter alias), `series.mat` (`write_series`, two time axes) and `table.json` (a
//! Signal Table), for instance to load them with `scipy.io.loadmat` or `DyMat.DyMatFile`.

use std::error::Error;
use std::path::PathBuf;

use output::mat::{self, MatAlias, MatParameter, MatSeries, MatSignal, MatWriter};
use output::signal_table::{
    AttributeMap, SignalLayout, SignalTableWriter, SignalType, TableAlias, TableSignal,
};

fn main() -> Result<(), Box<dyn Error>> {
    let dir = PathBuf::from(
        std::env::args()
            .nth(1)
            .ok_or("usage: sample_files <directory>")?,
    );
    std::fs::create_dir_all(&dir)?;

    let parameters = [MatParameter {
        signal: MatSignal::new("LV.alpha", "1/s", "Prey growth rate"),
        start: 1.1,
        stop: 1.1,
    }];
    let signals = [
        MatSignal::new("LV.x", "-", "Prey population"),
        MatSignal::new("LV.y", "-", "Predator population"),
        MatSignal::new("LV.v", "m/s", ""),
    ];
    let alias = |name: &str, of, negated, parameter| MatAlias {
        name: name.to_string(),
        unit: "-".to_string(),
        description: format!("Alias {name}"),
        of,
        negated,
        parameter,
    };
    let aliases = [
        alias("LV.preyAlias", 0, false, false),
        alias("LV.minusV", 2, true, false),
        alias("LV.alphaAlias", 0, false, true),
    ];
    let mut w = MatWriter::create(
        dir.join("rows.mat"),
        &parameters,
        &signals,
        &aliases,
        0.0,
        1.0,
    )?;
    for k in 0..=10 {
        let t = k as f64 * 0.1;
        w.write_row(t, &[10.0 + t, 5.0 - t, (3.0 * t).sin()])?;
    }
    w.finish()?;

    let series = [
        MatSeries {
            signal: MatSignal::new("A.fast", "V", "Sampled every 0.25 s"),
            time: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            values: vec![0.0, 1.0, 0.0, -1.0, 0.0],
        },
        MatSeries {
            signal: MatSignal::new("A.slow", "V", ""),
            time: vec![0.0, 1.0],
            values: vec![2.0, 3.0],
        },
        MatSeries {
            signal: MatSignal::new("A.fast2", "A", ""),
            time: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            values: vec![5.0, 6.0, 7.0, 8.0, 9.0],
        },
    ];
    let series_aliases = [alias("A.minusSlow", 1, true, false)];
    mat::write_series(
        dir.join("series.mat"),
        &parameters,
        &series,
        &series_aliases,
        0.0,
        1.0,
    )?;

    let layout = SignalLayout {
        signals: vec![
            TableSignal::new("LV.x", SignalType::Real, "-"),
            TableSignal::new("LV.n", SignalType::Integer, ""),
        ],
        aliases: vec![TableAlias {
            name: "LV.minusX".to_string(),
            of: 0,
            negated: true,
            ..TableAlias::default()
        }],
        ..SignalLayout::default()
    };
    let mut table = SignalTableWriter::create(dir.join("table.json"), &layout)?;
    for k in 0..=4 {
        let t = k as f64 * 0.25;
        table.push_row(t, &[], &[k], &[10.0 + t], &[] as &[&str])?;
    }
    table.finish(
        &AttributeMap::new().with(
            "tool",
            AttributeMap::new()
                .with("name", "mastersim")
                .with("version", env!("CARGO_PKG_VERSION")),
        ),
    )?;
    println!(
        "wrote rows.mat, series.mat and table.json to {}",
        dir.display()
    );
    Ok(())
}
