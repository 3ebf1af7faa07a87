use master::{Counters, SlaveStatistics, Timer};

use super::*;

fn slave(name: &str, times: [f64; 3], counts: [u64; 3]) -> SlaveStatistics {
    SlaveStatistics {
        name: name.to_string(),
        do_step: Timer::from_totals(counts[0], times[0]),
        get_state: Timer::from_totals(counts[1], times[1]),
        set_state: Timer::from_totals(counts[2], times[2]),
        integrator: None,
    }
}

/// A summary of `counters` and `slaves` at `wall_clock_time` (s).
fn summary(stats: &Statistics, wall_clock_time: f64) -> Summary<'_> {
    Summary {
        stats,
        wall_clock_time,
        do_step_calls: false,
        pacing: None,
        run: None,
    }
}

/// Wall clock of the Math003 GaussSeidel/Richardson reference run, s.
const RICHARDSON_WALL: f64 = 0.009918;

/// Numbers of the Math003 GaussSeidel/Richardson reference run.
fn richardson_run() -> Statistics {
    Statistics {
        counters: Counters {
            output: Timer::from_totals(1, 0.008489),
            steps: 324,
            algorithm: Timer::from_totals(1, 0.000711),
            convergence_fails: 41,
            iteration_limit_exceeded: 41,
            error_test_fails: 85,
            error_test: Timer::from_totals(1, 0.000209),
            ..Counters::default()
        },
        slaves: vec![
            slave("Part1", [0.000100, 0.000050, 0.000031], [1000, 400, 85]),
            slave("Part2", [0.000171, 0.0, 0.0], [1000, 400, 85]),
            slave("Part3", [0.0001, 0.00006, 0.000003], [1000, 400, 85]),
        ],
    }
}

#[test]
fn summary_text_matches_the_reference_format() {
    let expected = "WallClockTime=0.009918\n\
                    FrameworkTimeWriteOutputs=0.008489\n\
                    MasterAlgorithmSteps=324\n\
                    MasterAlgorithmTime=0.000711\n\
                    ConvergenceFails=41\n\
                    ConvergenceIterLimitExceeded=41\n\
                    ErrorTestFails=85\n\
                    ErrorTestTime=0.000209\n\
                    Slave[1]Time=0.000181\n\
                    Slave[2]Time=0.000171\n\
                    Slave[3]Time=0.000163\n";
    assert_eq!(
        summary(&richardson_run(), RICHARDSON_WALL).text(&[]),
        expected
    );
}

#[test]
fn summary_uses_six_digit_g_format() {
    let stats = Statistics {
        counters: Counters {
            algorithm: Timer::from_totals(1, 7e-5),
            ..Counters::default()
        },
        slaves: vec![slave("A", [3.6e-5, 0.0, 0.0], [1, 0, 0])],
    };
    let text = summary(&stats, 1234567.0).text(&[]);
    assert!(text.starts_with("WallClockTime=1.23457e+06\nFrameworkTimeWriteOutputs=0\n"));
    assert!(text.contains("\nMasterAlgorithmTime=7e-05\n"));
    assert!(text.contains("\nErrorTestTime=0\n"));
    assert!(text.ends_with("\nSlave[1]Time=3.6e-05\n"));
}

#[test]
fn outcome_lines_come_last_and_leave_the_counters_alone() {
    let stats = richardson_run();
    let s = summary(&stats, RICHARDSON_WALL);
    let ending = Ending::Interrupted {
        cause: "SIGINT received".into(),
        t: 2.5,
    };
    let text = s.text(&ending.summary_lines(&master::time::TimeFormat::default()));
    let plain = s.text(&Ending::Completed.summary_lines(&master::time::TimeFormat::default()));
    assert_eq!(
        text,
        format!("{plain}Outcome=Interrupted\nMessage=SIGINT received; stopped at t=2.5 s\n")
    );
    let failed =
        Ending::Failed("two\nlines".into()).summary_lines(&master::time::TimeFormat::default());
    assert_eq!(failed[1], ("Message", "two lines".to_string()));
}

#[test]
fn a_paced_run_adds_its_figures_with_time_in_every_key() {
    let stats = richardson_run();
    let plain = summary(&stats, RICHARDSON_WALL).text(&[]);
    let figures = crate::pacing::PacingFigures {
        total_factor: 0.999_87,
        rolling_factor: 1.002,
        overruns: 3,
        max_overrun: 0.0402,
        deviation_median: 0.000_1,
        deviation_p99: 0.000_14,
    };
    let paced = summary(&stats, RICHARDSON_WALL).with_pacing(Some(figures));
    assert_eq!(
        paced.text(&[]),
        format!(
            "{plain}RealTimeFactor=0.99987\nRealTimeRollingFactor=1.002\nRealTimeOverruns=3\n\
             RealTimeMaxOverrun=0.0402\nRealTimeDeviationMedian=0.0001\n\
             RealTimeDeviationP99=0.00014\n"
        )
    );
    // MasterSim's regression runner compares the key set of keys without "Time" only.
    assert!(
        paced
            .text(&[])
            .lines()
            .skip(plain.lines().count())
            .all(|l| l.contains("Time"))
    );
    assert!(
        paced
            .console_block()
            .ends_with("Real time: ×1.000 (last 0.5 s ×1.002), 3 overruns, largest 40.2 ms\n")
    );
}

#[test]
fn write_creates_the_file() -> Result<()> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("summary.txt");
    let stats = richardson_run();
    let s = summary(&stats, RICHARDSON_WALL);
    s.write(&path, &Ending::Completed)?;
    assert_eq!(std::fs::read_to_string(&path).expect("read"), s.text(&[]));
    let missing = dir.path().join("no_such_dir").join("summary.txt");
    let err = s
        .write(&missing, &Ending::Completed)
        .expect_err("no directory");
    assert!(err.to_string().contains("no_such_dir"), "{err}");
    Ok(())
}

#[test]
fn console_block_in_milliseconds() {
    let expected = concat!(
        "\n",
        "Solver statistics\n",
        "------------------------------------------------------------------------------\n",
        "Wall clock time                            =       10 ms  \n",
        "------------------------------------------------------------------------------\n",
        "Output writing                             =        8 ms  \n",
        "Master-Algorithm                           =        1 ms         324\n",
        "Convergence failures                       =                      41\n",
        "Convergence iteration limit exceeded       =                      41\n",
        "Error test time and failure count          =        0 ms          85\n",
        "------------------------------------------------------------------------------\n",
        "Part1                               doStep =        0 ms        1000\n",
        "                                  getState =        0 ms         400\n",
        "                                  setState =        0 ms          85\n",
        "Part2                               doStep =        0 ms        1000\n",
        "                                  getState =        0 ms         400\n",
        "                                  setState =        0 ms          85\n",
        "Part3                               doStep =        0 ms        1000\n",
        "                                  getState =        0 ms         400\n",
        "                                  setState =        0 ms          85\n",
        "------------------------------------------------------------------------------\n",
    );
    assert_eq!(
        summary(&richardson_run(), RICHARDSON_WALL).console_block(),
        expected
    );
}

#[test]
fn console_block_in_seconds_and_minutes() {
    let stats = Statistics {
        counters: Counters {
            output: Timer::from_totals(1, 0.25),
            steps: 1_234_567,
            ..Counters::default()
        },
        slaves: vec![slave(
            "AVeryLongSlaveNameThatIsLongerThan30",
            [1.0, 0.0, 0.0],
            [7, 0, 0],
        )],
    };
    let block = summary(&stats, 12.5).console_block();
    let lines: Vec<&str> = block.lines().collect();
    assert_eq!(
        lines[3],
        "Wall clock time                            =   12.500 s   "
    );
    assert_eq!(
        lines[5],
        "Output writing                             =    0.250 s   "
    );
    assert_eq!(
        lines[6],
        "Master-Algorithm                           =    0.000 s       1234567"
    );
    assert_eq!(
        lines[11],
        "AVeryLongSlaveNameThatIsLongerThan30      doStep =    1.000 s            7"
    );

    let stats = Statistics::default();
    let block = summary(&stats, 200.0).console_block();
    assert_eq!(
        block.lines().nth(3),
        Some("Wall clock time                            =     3.333 min")
    );
}

#[test]
fn time_unit_choice() {
    let day = 86400.0;
    let cases = [
        (0.0, "ms"),
        (1.0, "ms"),
        (1.5, "s"),
        (180.0, "s"),
        (181.0, "min"),
        (1801.0, "h"),
        (0.6 * day, "d"),
        (181.0 * day, "a"),
    ];
    for (seconds, symbol) in cases {
        assert_eq!(
            DisplayUnit::suitable(seconds).symbol(),
            symbol,
            "{seconds} s"
        );
    }
    let mut s = String::new();
    DisplayUnit::Years.write_duration(&mut s, 365.0 * day * 2.5);
    assert_eq!(s, "  2.500 a   ");
    let mut s = String::new();
    DisplayUnit::Hours.write_duration(&mut s, 5400.0);
    assert_eq!(s, "  1.500 h   ");
}
