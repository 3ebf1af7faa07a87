//! Bad requests to a real live-view server (started in this process on a free port, serving
//! stored rows, spoken to over HTTP on a TCP socket): every one is answered with 400 or 404
//! and a JSON body `{"error": …}` that names the parameter and what was expected, and the
//! server goes on answering.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use mastersim_live::{Column, Server, Source, Store};

/// An HTTP answer: status code and body.
struct Answer {
    code: u16,
    body: String,
}

impl Answer {
    /// The `error` member of the JSON body.
    fn error(&self) -> String {
        let json: serde_json::Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body));
        json["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error member: {}", self.body))
            .to_owned()
    }
}

/// A server of 100 stored rows, and its address and token.
struct Fixture {
    server: Server,
    token: String,
}

impl Fixture {
    fn start() -> Fixture {
        let time: Vec<f64> = (0..100).map(|i| f64::from(i) * 0.01).collect();
        let values: Vec<f64> = (0..100).map(f64::from).collect();
        let store = Store::replay("rows", &time, vec![(Column::new("A.x", "m"), values)]);
        let server = Server::start(Source::Replay { store }, 0).expect("server starts");
        let token = server
            .url()
            .split_once("?token=")
            .expect("URL with a token")
            .1
            .to_owned();
        Fixture { server, token }
    }

    /// `method path` (with the token appended to the query) with `headers` and `body`.
    fn send(&self, method: &str, path: &str, headers: &[&str], body: &str) -> Answer {
        let separator = if path.contains('?') { '&' } else { '?' };
        let path = format!("{path}{separator}token={}", self.token);
        let mut stream = TcpStream::connect(self.server.address()).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.server.address(),
            body.len()
        );
        for header in headers {
            request += &format!("{header}\r\n");
        }
        request += "\r\n";
        request += body;
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .expect("an answer, not a dropped connection");
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let (head, body) = answer
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer to {method} {path}: {answer:?}"));
        let code = head
            .split(' ')
            .nth(1)
            .and_then(|c| c.parse().ok())
            .expect("status code");
        Answer {
            code,
            body: body.to_owned(),
        }
    }

    fn get(&self, path: &str) -> Answer {
        self.send("GET", path, &[], "")
    }

    /// Asserts that the server still serves rows.
    fn still_answers(&self) {
        let answer = self.get("/api/rows?from=98&to=100");
        assert_eq!(answer.code, 200, "{}", answer.body);
        assert!(
            answer.body.starts_with("{\"from\":98,\"rows\":[[0.98"),
            "{}",
            answer.body
        );
    }
}

#[test]
fn bad_row_ranges_are_400_with_json_and_the_server_goes_on() {
    let f = Fixture::start();
    let max = usize::MAX;
    for (query, says) in [
        // Reversed: this request panicked the server before.
        (
            "from=50&to=10",
            "parameters from=50 and to=10 are reversed; expected from <= to",
        ),
        ("from=100&to=0", "from=100 and to=0 are reversed"),
        (
            "from=-5&to=10",
            "parameter 'from' is '-5'; expected a row number: a whole number from 0 to",
        ),
        ("from=0&to=-1", "parameter 'to' is '-1'"),
        ("from=abc&to=10", "parameter 'from' is 'abc'"),
        ("from=1.5&to=10", "parameter 'from' is '1.5'"),
        ("from=&to=10", "parameter 'from' is ''"),
        ("from=%2B5&to=10", "parameter 'from' is '+5'"),
        (
            "from=0&to=99999999999999999999999",
            "parameter 'to' is '99999999999999999999999'",
        ),
        (
            "to=10",
            "parameter 'from' is missing; expected a row number",
        ),
        ("from=0", "parameter 'to' is missing"),
        ("", "parameter 'from' is missing"),
        (
            "from=1&from=2&to=3",
            "the query string cannot be read (Failed to deserialize query string: duplicate \
             field `from`)",
        ),
    ] {
        let answer = f.get(&format!("/api/rows?{query}"));
        assert_eq!(answer.code, 400, "{query}: {}", answer.body);
        let error = answer.error();
        assert!(error.contains(says), "{query}: {error}");
        if says.contains("a row number") {
            assert!(error.ends_with(&format!("from 0 to {max}")), "{error}");
        }
        f.still_answers();
    }
}

#[test]
fn valid_ranges_are_cut_to_the_rows_there_are() {
    let f = Fixture::start();
    for (query, from, rows) in [
        ("from=0&to=100", 0, 100),
        ("from=90&to=1000000", 90, 10),
        (&format!("from=0&to={}", usize::MAX), 0, 100),
        ("from=100&to=200", 100, 0),
        (&format!("from={0}&to={0}", usize::MAX), usize::MAX, 0),
        ("from=10&to=10", 10, 0),
    ] {
        let answer = f.get(&format!("/api/rows?{query}"));
        assert_eq!(answer.code, 200, "{query}: {}", answer.body);
        let json: serde_json::Value = serde_json::from_str(&answer.body).expect("JSON");
        assert_eq!(json["from"].as_u64(), Some(from as u64), "{query}");
        assert_eq!(
            json["rows"].as_array().expect("rows").len(),
            rows,
            "{query}"
        );
    }
}

#[test]
fn bad_stream_positions_bodies_and_paths_are_refused_with_json() {
    let f = Fixture::start();
    let refused = [
        (
            "GET",
            "/api/stream?from=-1",
            &[][..],
            "",
            400,
            "parameter 'from' is '-1'",
        ),
        (
            "GET",
            "/api/stream?from=x",
            &[],
            "",
            400,
            "parameter 'from' is 'x'",
        ),
        (
            "GET",
            "/api/stream",
            &["Last-Event-ID: ten"][..],
            "",
            400,
            "parameter 'Last-Event-ID' is 'ten'",
        ),
        (
            "POST",
            "/api/control",
            &["Content-Type: application/json"][..],
            "{\"command\": ",
            400,
            "the body is not a command",
        ),
        (
            "POST",
            "/api/control",
            &["Content-Type: application/json"][..],
            "{\"command\": \"real_time\", \"factor\": \"fast\"}",
            400,
            "factor",
        ),
        (
            "POST",
            "/api/control",
            &["Content-Type: application/json"][..],
            "{\"factor\": 2}",
            400,
            "missing field `command`",
        ),
        (
            "POST",
            "/api/control",
            &["Content-Type: text/plain"][..],
            "{\"command\": \"start\"}",
            415,
            "declared as 'text/plain'",
        ),
        (
            "POST",
            "/api/control",
            &[][..],
            "{\"command\": 3}",
            400,
            "the body is not a command",
        ),
        ("GET", "/api/nothing", &[], "", 404, "no such endpoint"),
        (
            "GET",
            "/api/control",
            &[],
            "",
            405,
            "/api/control and /api/recording take POST",
        ),
    ];
    for (method, path, headers, body, code, says) in refused {
        let answer = f.send(method, path, headers, body);
        assert_eq!(answer.code, code, "{method} {path} {body}: {}", answer.body);
        let error = answer.error();
        assert!(error.contains(says), "{method} {path} {body}: {error}");
        f.still_answers();
    }
    // A valid command to stored results is still 409, as before; issue 28: also without a
    // Content-Type (read as JSON) and with a JSON type that has parameters.
    for headers in [
        &["Content-Type: application/json"][..],
        &[][..],
        &["Content-Type: application/json; charset=utf-8"][..],
    ] {
        let answer = f.send("POST", "/api/control", headers, "{\"command\": \"start\"}");
        assert_eq!(answer.code, 409, "{headers:?}: {}", answer.body);
        assert!(
            answer.error().contains("cannot be steered"),
            "{}",
            answer.body
        );
    }
    // Issue 32: a seek in stored results is 409 (the page moves its cursor itself).
    let answer = f.send("POST", "/api/control", &[], r#"{"command":"seek","row":3}"#);
    assert_eq!(answer.code, 409, "{}", answer.body);
    assert!(answer.error().contains("nor sought"), "{}", answer.body);
    f.still_answers();
}
