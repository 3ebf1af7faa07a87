//! The cost of the live view (issue 32, scope 7): the bundled Lotka-Volterra project with a
//! result row at every 0.01 s step, run plain, with `--live` and no page attached, and with
//! `--live` and a headless Chromium page attached, the three alternating. Figures per
//! configuration (medians): wall time of the stepping loop (`WallClockTime` of
//! `summary.txt`, first row to last), the CPU time of the run (the whole process, less the
//! server thread `live-view`), the server thread's own CPU time, and the peak resident memory;
//! then the overhead of `--live` over the plain run in CPU time, and the server's CPU time as
//! a share of the run's. Last, the peak memory of a 2,000,000-row run plain, with `--live`, and
//! with `--live` writing only `values.csv` (no MAT file to read old rows back from).
//!
//! CPU times are read from `/proc/<pid>/task/<tid>/schedstat` (nanoseconds on the CPU, per
//! thread) just before the process ends, and from `wait4` for the whole process: they do not
//! depend on what else the machine runs, unlike wall times.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::process::median;

/// Rows of the overhead runs (0.01 s steps up to 5,000 s) and of the long run.
const ROWS: u64 = 500_000;
const LONG_ROWS: u64 = 2_000_000;

/// The configurations compared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Config {
    Plain,
    LiveNoPage,
    LivePage,
}

impl Config {
    fn label(self) -> &'static str {
        match self {
            Config::Plain => "plain run",
            Config::LiveNoPage => "--live, no page",
            Config::LivePage => "--live, headless page",
        }
    }
}

/// One measured run.
#[derive(Debug, Default, Clone, Copy)]
struct Figures {
    /// `WallClockTime` of `summary.txt`, s.
    wall: f64,
    /// CPU time of the process less the server thread, s.
    run_cpu: f64,
    /// CPU time of the server thread, s.
    server_cpu: f64,
    /// Peak resident set size, MiB.
    peak_mib: f64,
}

/// A copy of the bundled Lotka-Volterra project with a row at every step up to `rows` rows,
/// written in `formats` (`resultFormats`, e.g. `csv,mat`); returns its path.
fn project(rows: u64, formats: &str) -> PathBuf {
    let base = mastersim_tests::example_workspace().join("projects");
    let text = std::fs::read_to_string(base.join("lotka_volterra.msim")).expect("bundled project");
    let tag = formats.replace(',', "-");
    let path = base.join(format!("bench-live-{rows}-{tag}.msim"));
    let t_end = rows as f64 / 100.0;
    std::fs::write(
        &path,
        format!("{text}\ntEnd {t_end} s\nhOutputMin 0.01 s\nresultFormats {formats}\n"),
    )
    .expect("write project copy");
    path
}

/// Nanoseconds on the CPU of every thread of `pid`, by thread name.
fn thread_cpu(pid: u32) -> Vec<(String, f64)> {
    let mut threads = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return threads;
    };
    for task in tasks.flatten() {
        let dir = task.path();
        let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        let ns = std::fs::read_to_string(dir.join("schedstat"))
            .ok()
            .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok())
            .unwrap_or(0.0);
        threads.push((name.trim().to_string(), ns * 1e-9));
    }
    threads
}

/// Sends `method path` (with `body`) to the server on `port`; returns the response body.
fn request(port: u16, method: &str, path: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the live view");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("send");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("receive");
    answer
}

/// Starts headless Chromium on `url`, with a fresh profile in `profile`.
fn chromium(url: &str, profile: &Path) -> Child {
    Command::new("chromium")
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--window-size=1400,1000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(url)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium (Debian package chromium) can be started")
}

/// Waits for `child` with `wait4`; returns its peak resident set size, MiB, and its CPU
/// time, s.
fn reap(child: &Child) -> (f64, f64) {
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: a zeroed `rusage` is a valid value for wait4 to fill.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our unwaited child; the out-pointers outlive the call.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "mastersim failed (status {status})"
    );
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    (
        usage.ru_maxrss as f64 / 1024.0,
        seconds(usage.ru_utime) + seconds(usage.ru_stime),
    )
}

/// One run of `project` in `wd` as `config`.
fn measure(mastersim: &Path, project: &Path, wd: &Path, config: Config) -> Figures {
    let _ = std::fs::remove_dir_all(wd);
    let mut command = Command::new(mastersim);
    command
        .arg(project)
        .args(["--verbosity-level", "0", "--working-dir"])
        .arg(wd)
        .stdout(Stdio::null());
    if config != Config::Plain {
        command.arg("--live").stdout(Stdio::piped());
    }
    #[expect(clippy::zombie_processes, reason = "reaped by wait4 in `reap`")]
    let mut child = command.spawn().expect("mastersim starts");
    let mut figures = Figures::default();
    let mut page = None;
    if config != Config::Plain {
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let url = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| l.find("http://").map(|at| l[at..].trim().to_string()))
            .expect("mastersim prints the URL of the live view");
        let port: u16 = url["http://127.0.0.1:".len()..]
            .split('/')
            .next()
            .and_then(|p| p.parse().ok())
            .expect("a port in the URL");
        let token = url
            .split("token=")
            .nth(1)
            .expect("a token in the URL")
            .to_string();
        if config == Config::LivePage {
            page = Some(chromium(&url, &wd.with_extension("profile")));
            // The page loads and opens its event stream before Start.
            std::thread::sleep(Duration::from_secs(3));
        }
        let api = |what: &str| format!("/api/{what}?token={token}");
        request(port, "POST", &api("control"), r#"{"command":"start"}"#);
        let deadline = Instant::now() + Duration::from_secs(600);
        while !request(port, "GET", &api("status"), "").contains("\"finished\"") {
            assert!(Instant::now() < deadline, "the live run did not finish");
            std::thread::sleep(Duration::from_millis(20));
        }
        if page.is_some() {
            // The page receives the last rows.
            std::thread::sleep(Duration::from_secs(1));
        }
        figures.server_cpu = thread_cpu(child.id())
            .iter()
            .filter(|(name, _)| name == "live-view")
            .map(|(_, s)| s)
            .sum();
        let status = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .expect("kill starts");
        assert!(status.success());
        // The rest of stdout, so that the process never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
    }
    let (peak, cpu) = reap(&child);
    if let Some(mut page) = page {
        let _ = page.kill();
        let _ = page.wait();
    }
    figures.peak_mib = peak;
    figures.run_cpu = cpu - figures.server_cpu;
    let summary = std::fs::read_to_string(wd.join("log/summary.txt")).unwrap_or_default();
    figures.wall = summary
        .lines()
        .find_map(|l| l.strip_prefix("WallClockTime="))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(f64::NAN);
    figures
}

/// Prints the figures of [`Config`]s side by side (medians of `runs`, alternating), then the
/// peak memory of a long run plain and with `--live`.
pub fn cost(mastersim: &Path, runs: usize) {
    let tmp = tempfile::tempdir().expect("temp dir");
    let configs = [Config::Plain, Config::LiveNoPage, Config::LivePage];
    let short = project(ROWS, "csv,mat");
    let mut all: Vec<Vec<Figures>> = vec![Vec::new(); configs.len()];
    for k in 0..runs {
        for (i, config) in configs.iter().enumerate() {
            let wd = tmp.path().join(format!("wd{i}-{k}"));
            all[i].push(measure(mastersim, &short, &wd, *config));
            let _ = std::fs::remove_dir_all(&wd);
        }
    }
    println!(
        "live: Lotka-Volterra, {ROWS} rows (CSV and MAT), medians of {runs}:\n  \
         configuration          | loop wall s | run CPU s | server CPU s | peak MiB"
    );
    let mut medians = Vec::new();
    for (config, runs) in configs.iter().zip(&all) {
        let m = |f: fn(&Figures) -> f64| median(runs.iter().map(f).collect());
        let f = Figures {
            wall: m(|f| f.wall),
            run_cpu: m(|f| f.run_cpu),
            server_cpu: m(|f| f.server_cpu),
            peak_mib: m(|f| f.peak_mib),
        };
        println!(
            "  {:<22} | {:>11.3} | {:>9.3} | {:>12.3} | {:>8.1}",
            config.label(),
            f.wall,
            f.run_cpu,
            f.server_cpu,
            f.peak_mib
        );
        medians.push(f);
    }
    let over = |i: usize| 100.0 * (medians[i].run_cpu / medians[0].run_cpu - 1.0);
    println!(
        "live: run CPU over the plain run: no page {:+.1} %, headless page {:+.1} %; server CPU \
         / run CPU with the page {:.1} %",
        over(1),
        over(2),
        100.0 * medians[2].server_cpu / medians[2].run_cpu
    );
    let long = project(LONG_ROWS, "csv,mat");
    let plain = measure(
        mastersim,
        &long,
        &tmp.path().join("long-plain"),
        Config::Plain,
    );
    let live = measure(
        mastersim,
        &long,
        &tmp.path().join("long-live"),
        Config::LiveNoPage,
    );
    // Only values.csv: the server reads the rows older than its window back from it.
    let long_csv = project(LONG_ROWS, "csv");
    let live_csv = measure(
        mastersim,
        &long_csv,
        &tmp.path().join("long-live-csv"),
        Config::LiveNoPage,
    );
    println!(
        "live: peak memory of a {LONG_ROWS}-row run: plain {:.1} MiB, --live {:.1} MiB \
         ({ROWS} rows: {:.1} MiB), --live with values.csv only {:.1} MiB",
        plain.peak_mib, live.peak_mib, medians[1].peak_mib, live_csv.peak_mib
    );
    for path in [short, long, long_csv] {
        let _ = std::fs::remove_file(path);
    }
}
