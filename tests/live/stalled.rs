//! A browser that connects to the event stream and then stops reading does not slow the run:
//! the stepping loop only appends rows to memory, and each connection copies them out at its
//! own pace.

use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use mastersim_tests::live_run::{LiveRun, lotka_volterra};

/// Runs `project` with the live view from Start to the end; with `stall`, a client first
/// opens the event stream and never reads from it. Returns the seconds from Start to the end.
fn run(project: &std::path::Path, wd: &std::path::Path, stall: bool) -> f64 {
    // CSV only: less disk traffic between the runs compared.
    let live = LiveRun::start(project, wd, &["--result-format", "csv"]);
    live.wait_for(Duration::from_secs(30), |s| s["rows"] == 1);
    let _stalled = stall.then(|| {
        let mut stream = TcpStream::connect(("127.0.0.1", live.port)).unwrap();
        write!(
            stream,
            "GET /api/stream?token={} HTTP/1.1\r\nHost: {}\r\n\r\n",
            live.token,
            live.host()
        )
        .unwrap();
        stream
    });
    let started = Instant::now();
    live.command("start");
    live.wait_for(Duration::from_secs(300), |s| s["state"] == "finished");
    let took = started.elapsed().as_secs_f64();
    let (exit, _) = live.finish();
    assert!(exit.success(), "{exit:?}");
    took
}

/// The runs of one pair start back to back (alternating which goes first), and the verdict is
/// the median of the pairs' ratios: this machine's speed drifts by up to 40 % within a minute
/// (the same run took 1.85 s and 2.57 s a minute apart), far more than the effect measured, so
/// only runs next to each other compare. What the test guards against is a stepping loop that
/// waits for a client, which never finishes with a client that never reads, or one that
/// competes with it for the machine: both cost far more than the 20 % allowed.
#[test]
fn a_stalled_client_does_not_slow_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    // 3,000,000 rows of three numbers: tens of MB of events, far more than the socket buffers
    // of a client that never reads can take.
    let project = lotka_volterra(tmp.path(), 30000.0);
    let mut ratios = Vec::new();
    let mut pairs = Vec::new();
    for k in 0..7 {
        let mut took = [0.0; 2];
        // Alternate which goes first, so that neither always follows the other.
        for stall in [k % 2 == 0, k % 2 != 0] {
            let wd = tmp.path().join(format!("{stall}{k}"));
            took[usize::from(stall)] = run(&project, &wd, stall);
            std::fs::remove_dir_all(&wd).unwrap();
        }
        ratios.push(took[1] / took[0]);
        pairs.push(format!("{:.3}/{:.3}", took[1], took[0]));
    }
    ratios.sort_by(f64::total_cmp);
    let slowdown = ratios[ratios.len() / 2] - 1.0;
    println!(
        "stalled client: median of 7 back-to-back pairs {:+.1} % (stalled/free s: {})",
        100.0 * slowdown,
        pairs.join(", ")
    );
    assert!(
        slowdown <= 0.20,
        "a stalled client slowed the run by {:.1} %",
        100.0 * slowdown
    );
    std::fs::remove_file(project).unwrap();
}
