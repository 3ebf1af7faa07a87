//! A `mastersim --live` process driven over its HTTP interface, with a minimal HTTP/1.1 client
//! on a plain TCP socket (so that tests can send exactly the headers they want, foreign ones
//! included).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::{mastersim_bin, project_copy};

/// A copy of the bundled Lotka-Volterra project that writes a row at every step (0.01 s) up
/// to `t_end` seconds, as CSV and MAT (see [`project_copy`]); returns its path.
pub fn lotka_volterra(dir: &Path, t_end: f64) -> PathBuf {
    let extra = format!("tEnd {t_end} s\nhOutputMin 0.01 s\nresultFormats csv,mat\n");
    project_copy("lotka_volterra", "live", &extra, dir)
}

/// A running `mastersim <project> --live` (or `mastersim view <file>`).
#[derive(Debug)]
pub struct LiveRun {
    child: Child,
    /// The printed URL, `http://127.0.0.1:<port>/?token=<token>`.
    pub url: String,
    /// The port listened on.
    pub port: u16,
    /// The token of the URL.
    pub token: String,
    /// The working directory of the run (empty for `view`).
    pub working_dir: PathBuf,
    /// Standard output lines after the URL.
    lines: Receiver<String>,
}

/// An HTTP response: status code and body.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub code: u16,
    /// Body (chunked transfer decoded).
    pub body: String,
}

impl Response {
    /// The body as JSON.
    ///
    /// # Panics
    /// When it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

impl LiveRun {
    /// Starts `mastersim <args…>` and waits (up to 60 s) for the URL it prints on a line
    /// starting with `Live view: ` or `Viewing `.
    ///
    /// # Panics
    /// When the process cannot start or ends without printing a URL.
    pub fn spawn(args: &[&std::ffi::OsStr], working_dir: &Path) -> LiveRun {
        LiveRun::spawn_with_env(args, working_dir, &[])
    }

    /// [`LiveRun::spawn`] with the environment variables `env` set for the process.
    pub fn spawn_with_env(
        args: &[&std::ffi::OsStr],
        working_dir: &Path,
        env: &[(&str, &str)],
    ) -> LiveRun {
        let mut child = Command::new(mastersim_bin())
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("mastersim can be started");
        let stdout = child.stdout.take().expect("piped stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match lines.recv_timeout(left) {
                Ok(line) => {
                    if let Some(at) = line.find("http://") {
                        break line[at..].trim().to_string();
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    let output = child.wait_with_output().expect("wait for mastersim");
                    panic!(
                        "mastersim printed no URL; stderr:\n{}",
                        String::from_utf8_lossy(&output.stderr)
                    );
                }
            }
        };
        let rest = url
            .strip_prefix("http://127.0.0.1:")
            .expect("a loopback URL");
        let (port, token) = rest.split_once("/?token=").expect("URL with a token");
        LiveRun {
            child,
            port: port.parse().expect("a port number"),
            token: token.to_string(),
            url,
            working_dir: working_dir.to_path_buf(),
            lines,
        }
    }

    /// Starts `mastersim <project> --live --working-dir <working_dir> <extra…>`.
    pub fn start(project: &Path, working_dir: &Path, extra: &[&str]) -> LiveRun {
        LiveRun::start_with_env(project, working_dir, extra, &[])
    }

    /// [`LiveRun::start`] with the environment variables `env` set for the process.
    pub fn start_with_env(
        project: &Path,
        working_dir: &Path,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> LiveRun {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            project.as_os_str(),
            "--live".as_ref(),
            "--working-dir".as_ref(),
            working_dir.as_os_str(),
        ];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        LiveRun::spawn_with_env(&args, working_dir, env)
    }

    /// Sends `method path` with `headers` (besides `Host`, which `host` sets, and
    /// `Connection: close`) and `body`; returns the response.
    ///
    /// # Panics
    /// When the connection fails or the answer is not HTTP.
    pub fn raw(
        &self,
        method: &str,
        path: &str,
        host: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Response {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\
             Content-Length: {}\r\n",
            body.len()
        );
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).expect("receive");
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer.split_once("\r\n\r\n").expect("HTTP header");
        let code = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("status code");
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        Response {
            code,
            body: if chunked {
                dechunk(body)
            } else {
                body.to_string()
            },
        }
    }

    /// The loopback `Host` value of this server.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// `GET /api/<what>` with the token.
    pub fn get(&self, what: &str) -> Response {
        let sep = if what.contains('?') { '&' } else { '?' };
        let path = format!("/api/{what}{sep}token={}", self.token);
        self.raw("GET", &path, &self.host(), &[], "")
    }

    /// Opens the event stream (sending `Last-Event-ID: <last_event_id>` when given, as a
    /// reconnecting browser does) and returns the data of the first `rows` event, parsed.
    ///
    /// # Panics
    /// When no `rows` event arrives within 30 s.
    pub fn first_rows_event(&self, last_event_id: Option<usize>) -> Value {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let resume = last_event_id.map_or(String::new(), |id| format!("Last-Event-ID: {id}\r\n"));
        write!(
            stream,
            "GET /api/stream?token={} HTTP/1.1\r\nHost: {}\r\n{resume}\r\n",
            self.token,
            self.host()
        )
        .expect("send");
        let mut after_rows = false;
        for line in BufReader::new(stream).lines() {
            let line = line.expect("an event stream");
            if line == "event: rows" {
                after_rows = true;
            } else if let (true, Some(data)) = (after_rows, line.strip_prefix("data: ")) {
                return serde_json::from_str(data).expect("JSON rows");
            }
        }
        panic!("the event stream ended without rows")
    }

    /// `POST /api/control` of `command` (JSON object text) with the token and the page's own
    /// origin.
    pub fn control(&self, command: &str) -> Response {
        let origin = format!("http://{}", self.host());
        self.raw(
            "POST",
            &format!("/api/control?token={}", self.token),
            &self.host(),
            &[("Content-Type", "application/json"), ("Origin", &origin)],
            command,
        )
    }

    /// Sends `{"command": <name>}` and asserts 200.
    pub fn command(&self, name: &str) -> Value {
        let r = self.control(&format!(r#"{{"command":"{name}"}}"#));
        assert_eq!(r.code, 200, "{name}: {}", r.body);
        r.json()
    }

    /// The status (`GET /api/status`).
    pub fn status(&self) -> Value {
        self.get("status").json()
    }

    /// Polls the status until `done` holds (up to `timeout`), and returns it.
    ///
    /// # Panics
    /// When it does not hold in time.
    pub fn wait_for(&self, timeout: Duration, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let status = self.status();
            if done(&status) {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "the status did not change in {timeout:?}: {status}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Waits until the run has finished, then sends SIGINT (the view lingers until then) and
    /// waits for the process; returns its exit status and the remaining stdout.
    pub fn finish(mut self) -> (ExitStatus, String) {
        self.wait_for(Duration::from_secs(120), |s| s["state"] == "finished");
        self.interrupt()
    }

    /// Sends SIGINT and waits for the process.
    pub fn interrupt(&mut self) -> (ExitStatus, String) {
        let status = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill can be started");
        assert!(status.success());
        let exit = self.child.wait().expect("wait for mastersim");
        let rest: Vec<String> = self.lines.try_iter().collect();
        (exit, rest.join("\n"))
    }
}

impl Drop for LiveRun {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The body of a chunked HTTP response.
fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}
