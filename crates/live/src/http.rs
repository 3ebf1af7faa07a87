//! The HTTP routes of the live view, the request checks (host, origin, token) and the event
//! stream.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, QueryRejection};
use axum::extract::{Query, Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use mastersim::SteeringError;
use serde::{Deserialize, Serialize};

use crate::view::{SeekError, Shared, Status};
use crate::{Source, Store, view};

/// The page, served as it is in the repository.
const INDEX_HTML: &str = include_str!("../page/index.html");
/// The page's ES modules, served as `/<name>`.
const MODULES: [(&str, &str); 11] = [
    ("app.js", include_str!("../page/app.js")),
    ("page.js", include_str!("../page/page.js")),
    ("rowstore.js", include_str!("../page/rowstore.js")),
    ("charts.js", include_str!("../page/charts.js")),
    ("control.js", include_str!("../page/control.js")),
    ("decimate.js", include_str!("../page/decimate.js")),
    ("tree.js", include_str!("../page/tree.js")),
    ("panels.js", include_str!("../page/panels.js")),
    ("scene.js", include_str!("../page/scene.js")),
    // Recording (crate::record).
    ("record.js", include_str!("../page/record.js")),
    ("webm.js", include_str!("../page/webm.js")),
];
const STYLE_CSS: &str = include_str!("../page/style.css");

/// Most rows in one `rows` event.
const BATCH: usize = 2000;

/// A connection further behind than this many rows skips ahead to the latest ones (the page
/// fetches the gap with `/api/rows`).
const SKIP_BACKLOG: usize = 50_000;

/// How often a connection looks for new rows and a changed status.
const POLL: Duration = Duration::from_millis(50);

/// Most rows in one `/api/rows` answer (a client asks again from where an answer ends).
const MAX_ROWS: usize = 200_000;

/// What every handler shares.
#[derive(Debug, Clone)]
pub(crate) struct AppState(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    source: Source,
    /// The `Host` values the server answers to.
    hosts: [String; 2],
    /// The `Origin` values it accepts.
    origins: [String; 2],
    token: String,
    /// Replay and who holds the run, shared by every page.
    shared: Shared,
    /// Where an uploaded video goes (`mastersim view --record`).
    recording: Option<Arc<crate::Recording>>,
}

impl AppState {
    pub(crate) fn new(
        source: Source,
        port: u16,
        token: String,
        recording: Option<Arc<crate::Recording>>,
    ) -> AppState {
        AppState(Arc::new(Inner {
            source,
            hosts: [format!("127.0.0.1:{port}"), format!("localhost:{port}")],
            origins: [
                format!("http://127.0.0.1:{port}"),
                format!("http://localhost:{port}"),
            ],
            token,
            shared: Shared::default(),
            recording,
        }))
    }

    /// Where an uploaded video goes, when the server was started for a recording.
    pub(crate) fn recording(&self) -> Option<&crate::Recording> {
        self.0.recording.as_deref()
    }

    fn store(&self) -> &Store {
        match &self.0.source {
            Source::Live { store, .. } | Source::Replay { store } => store,
        }
    }

    /// The status as every page reads it ([`view::Shared::status`]).
    fn status(&self) -> Status {
        match &self.0.source {
            Source::Live { steering, store } => self.0.shared.status(steering, store),
            Source::Replay { store } => view::stored(store),
        }
    }
}

/// The routes, behind the host and origin check; `/api` also behind the token check.
pub(crate) fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/meta", get(meta))
        .route("/status", get(status))
        .route("/stream", get(stream))
        .route("/rows", get(rows))
        .route("/control", post(control))
        .route("/recording", post(recording))
        .route_layer(middleware::from_fn_with_state(state.clone(), check_token))
        .fallback(|| async { refuse(StatusCode::NOT_FOUND, "no such endpoint") })
        .method_not_allowed_fallback(|| async {
            refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "method not allowed: /api/control and /api/recording take POST, the other \
                 endpoints GET",
            )
        });
    let mut pages = Router::new().route(
        "/",
        get(|| async { page("text/html; charset=utf-8", INDEX_HTML) }),
    );
    for (name, text) in MODULES {
        pages = pages.route(
            &format!("/{name}"),
            get(move || async move { page("text/javascript; charset=utf-8", text) }),
        );
    }
    pages
        .route(
            "/style.css",
            get(|| async { page("text/css; charset=utf-8", STYLE_CSS) }),
        )
        .nest("/api", api)
        .layer(middleware::from_fn_with_state(state.clone(), check_site))
        .with_state(state)
}

fn page(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}

/// An error answer: `code` with `{"error": message}`.
fn refuse(code: StatusCode, message: impl Into<String>) -> Response {
    let body = ErrorBody {
        error: message.into(),
    };
    (code, Json(body)).into_response()
}

fn forbidden(why: &str) -> Response {
    refuse(StatusCode::FORBIDDEN, why)
}

#[derive(Debug, Serialize)]
struct ErrorBody {
    error: String,
}

/// Refuses requests whose `Host` is not this server's loopback address, or whose `Origin`
/// (when sent) is another site: a page of another site that resolves its own name to
/// 127.0.0.1 (DNS rebinding) sends its own name as `Host`.
async fn check_site(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(|h| state.0.hosts.iter().any(|a| a == h)) {
        return forbidden("foreign Host");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !state.0.origins.iter().any(|o| o == origin) {
            return forbidden("foreign Origin");
        }
    }
    next.run(request).await
}

#[derive(Debug, Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

/// Refuses `/api` requests without the run's token, and with a query string that cannot be
/// read (400).
async fn check_token(
    State(state): State<AppState>,
    query: Result<Query<TokenQuery>, QueryRejection>,
    request: Request,
    next: Next,
) -> Response {
    let query = match query {
        Ok(Query(query)) => query,
        Err(rejection) => return bad_query(&rejection),
    };
    match query.token {
        Some(t) if same(t.as_bytes(), state.0.token.as_bytes()) => next.run(request).await,
        Some(_) => forbidden("wrong token"),
        None => forbidden("the token is missing"),
    }
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0, |d, (x, y)| d | (x ^ y)) == 0
}

async fn meta(State(state): State<AppState>) -> Json<crate::Meta> {
    Json(state.store().meta())
}

async fn status(State(state): State<AppState>) -> Json<Status> {
    Json(state.status())
}

/// The query of `/api/rows`, as written: the numbers are checked by [`rows`] so that a bad
/// one gets a message naming it.
#[derive(Debug, Deserialize)]
struct RowsQuery {
    from: Option<String>,
    to: Option<String>,
}

#[derive(Debug, Serialize)]
struct Rows {
    from: usize,
    rows: Vec<Vec<f64>>,
}

/// A 400 answer for a query string that cannot be read at all (e.g. a parameter given
/// twice).
fn bad_query(rejection: &QueryRejection) -> Response {
    refuse(
        StatusCode::BAD_REQUEST,
        format!(
            "the query string cannot be read ({}); expected name=value pairs, each name once",
            rejection.body_text()
        ),
    )
}

/// The row number `text` given as parameter `name`: a whole number from 0; `Err` holds the
/// message of the 400 answer.
fn row_number(name: &str, text: Option<&str>) -> Result<usize, String> {
    let expected = format!("a row number: a whole number from 0 to {}", usize::MAX);
    let Some(text) = text else {
        return Err(format!(
            "parameter '{name}' is missing; expected {expected}"
        ));
    };
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    match text.parse::<usize>() {
        Ok(n) if digits => Ok(n),
        _ => Err(format!(
            "parameter '{name}' is '{text}'; expected {expected}"
        )),
    }
}

/// Rows `from..to`: both required, `from <= to`; `to` beyond the rows there are is cut to
/// them, and an answer holds at most [`MAX_ROWS`] rows.
async fn rows(
    State(state): State<AppState>,
    query: Result<Query<RowsQuery>, QueryRejection>,
) -> Response {
    let q = match query {
        Ok(Query(q)) => q,
        Err(rejection) => return bad_query(&rejection),
    };
    let range = row_number("from", q.from.as_deref())
        .and_then(|from| Ok((from, row_number("to", q.to.as_deref())?)))
        .and_then(|(from, to)| {
            if from > to {
                Err(format!(
                    "parameters from={from} and to={to} are reversed; expected from <= to (the \
                     rows from..to, to excluded)"
                ))
            } else {
                Ok((from, to))
            }
        });
    let (from, to) = match range {
        Ok(range) => range,
        Err(message) => return refuse(StatusCode::BAD_REQUEST, message),
    };
    let to = to.min(from.saturating_add(MAX_ROWS));
    match state.store().rows(from, to) {
        Ok(rows) => Json(Rows { from, rows }).into_response(),
        Err(message) => refuse(StatusCode::INTERNAL_SERVER_ERROR, message),
    }
}

/// The form of a control command, for error messages.
const COMMAND_FORM: &str = "{\"command\": \"start\", \"pause\", \"resume\", \"step\", \"stop\" or \
                            \"real_time\", \"factor\": a number or null}";

/// Whether the Content-Type `value` is JSON: `application/json` or a `+json` type, with any
/// parameters (`; charset=utf-8`), in any case.
fn is_json(value: &axum::http::HeaderValue) -> bool {
    let text = String::from_utf8_lossy(value.as_bytes()).to_ascii_lowercase();
    let essence = text.split(';').next().unwrap_or_default().trim();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

#[derive(Debug, Deserialize)]
struct Command {
    command: String,
    #[serde(default)]
    factor: Option<f64>,
    /// `seek`: the row, checked by [`seek_row`].
    #[serde(default)]
    row: Option<serde_json::Value>,
    /// The page that sends the command (any text; shown back in the status as `by`).
    #[serde(default)]
    view: Option<String>,
}

/// The row of a `seek` command: a whole number from 0; `Err` holds the message of the 400
/// answer.
fn seek_row(row: Option<&serde_json::Value>) -> Result<usize, String> {
    let expected =
        "expected {\"command\": \"seek\", \"row\": N}, N a row number (a whole number from 0)";
    match row {
        None => Err(format!("seek without 'row'; {expected}")),
        Some(value) => value
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("seek to row {value}; {expected}")),
    }
}

/// `POST /api/control`: the body is read as JSON whether it comes with `Content-Type:
/// application/json` or without a Content-Type (as `curl -d` and simple scripts send it); a
/// body declared as another type is 415, a body that is no command 400, each with a JSON
/// error.
async fn control(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    if let Some(declared) = headers.get(header::CONTENT_TYPE)
        && !is_json(declared)
    {
        return refuse(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!(
                "the body is declared as '{}'; expected JSON (Content-Type application/json, \
                 or none): {COMMAND_FORM}",
                String::from_utf8_lossy(declared.as_bytes())
            ),
        );
    }
    let body = match body {
        Ok(body) => body,
        Err(rejection) => {
            return refuse(
                rejection.status(),
                format!("the body cannot be read: {}", rejection.body_text()),
            );
        }
    };
    let c: Command = match serde_json::from_slice(&body) {
        Ok(c) => c,
        Err(e) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                format!("the body is not a command ({e}); expected JSON: {COMMAND_FORM}"),
            );
        }
    };
    let Source::Live { steering, store } = &state.0.source else {
        return refuse(
            StatusCode::CONFLICT,
            "stored results cannot be steered (nor sought: the page moves its cursor itself)",
        );
    };
    // The status as the command found it.
    let before = state.status();
    let shared = &state.0.shared;
    let run = |f: fn(&mastersim::Steering) -> Result<_, SteeringError>| {
        shared.command(&c.command, c.view.clone(), || f(steering))
    };
    let done = match c.command.as_str() {
        "start" => run(mastersim::Steering::start),
        "pause" => run(mastersim::Steering::pause),
        "resume" => run(mastersim::Steering::resume),
        "step" => run(mastersim::Steering::step),
        "stop" => run(mastersim::Steering::stop),
        "real_time" => shared.command("real_time", None, || steering.set_real_time(c.factor)),
        "seek" => {
            let row = match seek_row(c.row.as_ref()) {
                Ok(row) => row,
                Err(message) => return refuse(StatusCode::BAD_REQUEST, message),
            };
            return match shared.seek(steering, store, row, c.view.clone()) {
                Ok(()) => Json(before).into_response(),
                Err(SeekError::Steering(e)) => refused(&e),
                Err(e) => refuse(StatusCode::CONFLICT, e.to_string()),
            };
        }
        other => {
            return refuse(
                StatusCode::BAD_REQUEST,
                format!(
                    "unknown command '{other}': expected start, pause, resume, step, stop, \
                     real_time or seek"
                ),
            );
        }
    };
    match done {
        Ok(()) => Json(before).into_response(),
        Err(e) => refused(&e),
    }
}

/// `POST /api/recording`: the video of `mastersim view --record`, or the page's error
/// ([`crate::Recording::receive`]); 409 when the server was not started for a recording.
async fn recording(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    let Some(recording) = state.recording() else {
        return refuse(
            StatusCode::CONFLICT,
            "no recording was asked for: this view was not started by `mastersim view <results> \
             --record <file.webm>` (the Record button downloads its video in the browser)",
        );
    };
    let declared = headers
        .get(header::CONTENT_TYPE)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
        .unwrap_or_default();
    match recording.receive(&declared, body).await {
        Ok(bytes) => Json(serde_json::json!({ "bytes": bytes })).into_response(),
        Err((code, message)) => refuse(code, message),
    }
}

/// The answer to a command the steering refused: 400 for a bad factor, 409 otherwise.
fn refused(e: &SteeringError) -> Response {
    match e {
        SteeringError::InvalidFactor(_) => refuse(StatusCode::BAD_REQUEST, e.to_string()),
        SteeringError::Finished | SteeringError::NotNow { .. } => {
            refuse(StatusCode::CONFLICT, e.to_string())
        }
    }
}

/// The query of `/api/stream`, as written (checked by [`stream`]).
#[derive(Debug, Deserialize)]
struct StreamQuery {
    from: Option<String>,
}

/// Where one connection's stream stands.
struct Cursor {
    state: AppState,
    /// The next row to send.
    next: usize,
    /// The status last sent, and when.
    sent: Option<(Status, Instant)>,
}

/// The event stream: `rows` batches from the connection's position on (`Last-Event-ID`, else
/// `?from=`, else 0), and `status` whenever it changes. A position that is not a row number
/// gets 400.
async fn stream(
    State(state): State<AppState>,
    query: Result<Query<StreamQuery>, QueryRejection>,
    headers: HeaderMap,
) -> Response {
    let q = match query {
        Ok(Query(q)) => q,
        Err(rejection) => return bad_query(&rejection),
    };
    let resume = headers
        .get("last-event-id")
        .map(|value| row_number("Last-Event-ID", Some(value.to_str().unwrap_or("?"))))
        .transpose();
    let from = q
        .from
        .as_deref()
        .map(|text| row_number("from", Some(text)))
        .transpose();
    let (resume, from) = match (resume, from) {
        (Ok(resume), Ok(from)) => (resume, from),
        (Err(message), _) | (_, Err(message)) => {
            return refuse(StatusCode::BAD_REQUEST, message);
        }
    };
    let cursor = Cursor {
        state,
        next: resume.or(from).unwrap_or(0),
        sent: None,
    };
    let events = futures_util::stream::unfold(cursor, |mut c| async move {
        let event = next_event(&mut c).await;
        Some((Ok::<_, Infallible>(event), c))
    });
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// The communication point of the status's held values (never NaN), to tell a new one.
fn point_time(status: &Status) -> Option<f64> {
    status.point.as_ref().and_then(|p| p.first().copied())
}

/// Waits for the connection's next event: a changed status first, then new rows.
async fn next_event(c: &mut Cursor) -> Event {
    loop {
        let status = c.state.status();
        // A new state is sent at once; a mere advance of time at most every POLL.
        let due = match &c.sent {
            None => true,
            Some((sent, at)) => {
                sent.state != status.state
                    || sent.real_time != status.real_time
                    || sent.replay != status.replay
                    || sent.by != status.by
                    || point_time(sent) != point_time(&status)
                    || (*sent != status && at.elapsed() >= POLL)
            }
        };
        if due {
            let event = Event::default()
                .event("status")
                .json_data(&status)
                .unwrap_or_default();
            c.sent = Some((status, Instant::now()));
            return event;
        }
        let store = c.state.store();
        let len = store.len();
        if len > c.next {
            if len - c.next > SKIP_BACKLOG {
                c.next = len - BATCH;
            }
            let to = len.min(c.next + BATCH);
            let rows = match store.rows(c.next, to) {
                Ok(rows) => Rows { from: c.next, rows },
                Err(message) => {
                    // Older rows cannot be read back: go on with those in memory.
                    log::warn!("live view: {message}");
                    c.next = store.in_memory_from().max(c.next + 1);
                    continue;
                }
            };
            c.next = to;
            return Event::default()
                .event("rows")
                .id(to.to_string())
                .json_data(&rows)
                .unwrap_or_default();
        }
        tokio::time::sleep(POLL).await;
    }
}
