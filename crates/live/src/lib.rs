//! The live view of mastersim: a small HTTP server on the loopback interface that shows a
//! co-simulation in a browser while it runs, steers it (start, pause, resume, single step,
//! stop, real-time factor, `seek` into replay: see `view`), and replays stored result files.
//!
//! The page (`page/`, plain JavaScript drawing on a canvas) gets the column description from
//! `GET /api/meta`, the rows and the run's status as Server-Sent Events from
//! `GET /api/stream`, missing rows from `GET /api/rows`, and sends commands with
//! `POST /api/control`. `mastersim view --record` ([`record_file`]) opens the page in headless
//! Chromium, which renders the replay into a WebM video and sends it with
//! `POST /api/recording` ([`Recording`]). `docs/live.md` describes the protocol and the security model:
//! - the listener is bound to 127.0.0.1 only;
//! - every `/api` request must carry the run's random token (`?token=`), which is part of the
//!   printed URL;
//! - a request whose `Host` is not the listener's own address, or whose `Origin` is another
//!   site, gets 403 (a defence against DNS rebinding and cross-site requests);
//! - the stepping loop only appends to the [`Store`]; each browser connection copies rows
//!   out at its own pace, so a slow or stalled browser never holds up the run, and one that
//!   falls far behind skips to the latest rows and fetches the gap later.
//!
//! Spec: the block simulator's visualization and simulation control (seed design); HTML
//! Living Standard §9.2 (Server-Sent Events, `Last-Event-ID`); RFC 6454 (`Origin`).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod chromium;
mod http;
mod record;
pub mod scene;
mod serve;
mod source;
mod store;
mod view;

use std::future::IntoFuture;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::sync::Arc;
use std::thread::JoinHandle;

use mastersim::Steering;

pub use chromium::CHROMIUM_VAR;
pub use record::Recording;
pub use serve::{ViewArgs, linger, record_file, serve_run, view, view_file};
pub use store::{Column, Meta, Store};

/// What the server shows.
#[derive(Debug, Clone)]
pub enum Source {
    /// A running co-simulation: its rows, and the steering of its run.
    Live {
        /// The rows (add the store to the session as an observer).
        store: Store,
        /// The run's steering.
        steering: Steering,
    },
    /// Stored results, without run controls.
    Replay {
        /// The rows.
        store: Store,
    },
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The port could not be bound on 127.0.0.1.
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0: any free port).
        port: u16,
        /// The cause.
        source: std::io::Error,
    },
    /// No random token could be drawn from the operating system.
    #[error("cannot draw a random token: {0}")]
    Random(String),
    /// The server thread or its runtime could not start.
    #[error("cannot start the server: {0}")]
    Start(std::io::Error),
}

/// A running live-view server; dropping it stops the server (open connections are closed).
#[derive(Debug)]
pub struct Server {
    url: String,
    address: SocketAddr,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Server {
    /// Starts serving `source` on 127.0.0.1:`port` (0: a free port chosen by the system), in a
    /// thread of its own, with a fresh random token.
    ///
    /// # Errors
    /// [`Error::Bind`] when the port is taken or not allowed; [`Error::Random`];
    /// [`Error::Start`].
    pub fn start(source: Source, port: u16) -> Result<Server, Error> {
        Server::launch(source, port, None)
    }

    /// Starts serving `source` like [`Server::start`], and accepts one video upload from the
    /// page (`POST /api/recording`), written to `recording`'s target.
    ///
    /// # Errors
    /// Those of [`Server::start`].
    pub fn start_recording(
        source: Source,
        port: u16,
        recording: Arc<Recording>,
    ) -> Result<Server, Error> {
        Server::launch(source, port, Some(recording))
    }

    fn launch(
        source: Source,
        port: u16,
        recording: Option<Arc<Recording>>,
    ) -> Result<Server, Error> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .map_err(|source| Error::Bind { port, source })?;
        let address = listener
            .local_addr()
            .map_err(|source| Error::Bind { port, source })?;
        listener.set_nonblocking(true).map_err(Error::Start)?;
        let token = token()?;
        let url = format!("http://{address}/?token={token}");
        let app = http::router(http::AppState::new(
            source,
            address.port(),
            token,
            recording,
        ));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(Error::Start)?;
        let (shutdown, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("live-view".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match tokio::net::TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            log::error!("live view: {e}");
                            return;
                        }
                    };
                    let serve = axum::serve(listener, app).into_future();
                    tokio::select! {
                        served = serve => if let Err(e) = served {
                            log::error!("live view: {e}");
                        },
                        _ = stopped => {}
                    }
                });
            })
            .map_err(Error::Start)?;
        Ok(Server {
            url,
            address,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    /// The page's URL, with the token: `http://127.0.0.1:<port>/?token=<32 hex digits>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The address listened on (always 127.0.0.1).
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// 128 random bits from the operating system, as 32 hex digits.
fn token() -> Result<String, Error> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| Error::Random(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}
