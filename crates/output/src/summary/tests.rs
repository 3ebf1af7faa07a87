use super::*;

fn slave(name: &str, times: [f64; 3], counts: [u64; 3]) -> SlaveStatistics {
    SlaveStatistics {
        name: name.to_string(),
        do_step_time: times[0],
        do_step_count: counts[0],
        get_state_time: times[1],
        get_state_count: counts[1],
        set_state_time: times[2],
        set_state_count: counts[2],
    }
}

/// Numbers of the Math003 GaussSeidel/Richardson reference run.
fn richardson_run() -> Statistics {
    Statistics {
        wall_clock_time: 0.009918,
        output_writing_time: 0.008489,
        master_algorithm_steps: 324,
        master_algorithm_time: 0.000711,
        convergence_fails: 41,
        convergence_iter_limit_exceeded: 41,
        error_test_fails: 85,
        error_test_time: 0.000209,
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
    assert_eq!(richardson_run().summary_text(), expected);
}

#[test]
fn summary_uses_six_digit_g_format() {
    let stats = Statistics {
        wall_clock_time: 1234567.0,
        master_algorithm_time: 7e-5,
        error_test_time: 0.0,
        slaves: vec![slave("A", [3.6e-5, 0.0, 0.0], [1, 0, 0])],
        ..Statistics::default()
    };
    let text = stats.summary_text();
    assert!(text.starts_with("WallClockTime=1.23457e+06\nFrameworkTimeWriteOutputs=0\n"));
    assert!(text.contains("\nMasterAlgorithmTime=7e-05\n"));
    assert!(text.contains("\nErrorTestTime=0\n"));
    assert!(text.ends_with("\nSlave[1]Time=3.6e-05\n"));
}

#[test]
fn extra_lines_come_last_and_leave_the_counters_alone() {
    let stats = richardson_run();
    let text = stats.summary_text_with_extra(&[("Outcome", "Interrupted")]);
    let plain = stats.summary_text();
    assert_eq!(text, format!("{plain}Outcome=Interrupted\n"));
}

#[test]
fn write_summary_creates_the_file() -> Result<()> {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("summary.txt");
    let stats = richardson_run();
    stats.write_summary(&path)?;
    assert_eq!(
        std::fs::read_to_string(&path).expect("read"),
        stats.summary_text()
    );
    stats.write_summary_with_extra(&path, &[("Interrupted", "1")])?;
    assert!(
        std::fs::read_to_string(&path)
            .expect("read")
            .ends_with("\nInterrupted=1\n")
    );
    let missing = dir.path().join("no_such_dir").join("summary.txt");
    assert!(matches!(
        stats.write_summary(&missing),
        Err(crate::Error::Create { .. })
    ));
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
    assert_eq!(richardson_run().console_block(), expected);
}

#[test]
fn console_block_in_seconds_and_minutes() {
    let stats = Statistics {
        wall_clock_time: 12.5,
        output_writing_time: 0.25,
        master_algorithm_steps: 1_234_567,
        slaves: vec![slave(
            "AVeryLongSlaveNameThatIsLongerThan30",
            [1.0, 0.0, 0.0],
            [7, 0, 0],
        )],
        ..Statistics::default()
    };
    let block = stats.console_block();
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

    let stats = Statistics {
        wall_clock_time: 200.0,
        ..Statistics::default()
    };
    let block = stats.console_block();
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
        assert_eq!(TimeUnit::suitable(seconds).symbol(), symbol, "{seconds} s");
    }
    let mut s = String::new();
    TimeUnit::Years.write_duration(&mut s, 365.0 * day * 2.5);
    assert_eq!(s, "  2.500 a   ");
    let mut s = String::new();
    TimeUnit::Hours.write_duration(&mut s, 5400.0);
    assert_eq!(s, "  1.500 h   ");
}
