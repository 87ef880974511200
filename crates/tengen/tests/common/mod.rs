//! What the online-play tests share: a real `tengen serve` process on a free port with its data
//! in a temporary folder, plain HTTP calls to it, and running the `tengen` binary with a time
//! limit.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");

/// The `pbrain-tengen` binary of the same build. It belongs to the `tengen-brain` package, so
/// Cargo builds it for a workspace test run (that package has tests of its own) but does not
/// hand its path to this package's tests: it is found beside `tengen`.
pub fn pbrain_tengen() -> String {
    let path = std::path::Path::new(TENGEN).with_file_name("pbrain-tengen");
    assert!(
        path.exists(),
        "{} is missing: run the workspace's tests, or `cargo build -p tengen-brain` first",
        path.display()
    );
    path.display().to_string()
}

/// Reads an online game's frames until a state meeting `pred` (a refusal or a closed
/// connection fails the test; so does no such state within 30 s).
pub async fn until(
    s: &mut tengen_client::online::Socket,
    pred: impl Fn(&tengen_wire::GameState) -> bool,
) -> tengen_wire::GameState {
    use tengen_wire::ServerMsg;
    let wait = async {
        loop {
            match s.recv().await.expect("frame") {
                Some(ServerMsg::State(st)) if pred(&st) => return st,
                Some(ServerMsg::Error { message }) => panic!("refused: {message}"),
                Some(_) => {}
                None => panic!("the connection closed"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .expect("the server answers")
}

/// A `tengen serve` process, killed when dropped.
pub struct TestServer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// What the server has written to standard error so far (also passed on to the test's).
    pub stderr: Arc<Mutex<String>>,
    _dir: Option<tempfile::TempDir>,
}

impl TestServer {
    /// Starts the server on a fresh data folder and waits for its address line.
    pub fn start() -> TestServer {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut server = TestServer::start_in(dir.path());
        server._dir = Some(dir);
        server
    }

    /// Kills the server with SIGKILL, as a crash would, and waits for it to be gone.
    pub fn kill(mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }

    /// Starts the server on a fresh data folder with more options.
    pub fn start_with(args: &[&str]) -> TestServer {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut server = TestServer::start_in_with(dir.path(), args, &[]);
        server._dir = Some(dir);
        server
    }

    /// Starts the server on the data folder `dir` (kept by the caller).
    pub fn start_in(dir: &std::path::Path) -> TestServer {
        TestServer::start_in_with(dir, &[], &[])
    }

    /// Starts the server on the data folder `dir` with more options and environment.
    pub fn start_in_with(dir: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> TestServer {
        let mut command = Command::new(TENGEN);
        command
            .args(["serve", "--port", "0", "--data-dir"])
            .arg(dir)
            .args(args)
            .envs(env.iter().copied());
        TestServer::spawn(command)
    }

    /// Starts the server on a fresh data folder with at most `files` open files, a hard limit
    /// it cannot raise (through `sh`, which then becomes the server).
    pub fn start_with_open_files(files: u32) -> TestServer {
        let dir = tempfile::tempdir().expect("temporary folder");
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(format!("ulimit -n {files} && exec \"$0\" \"$@\""))
            .arg(TENGEN)
            .args(["serve", "--port", "0", "--data-dir"])
            .arg(dir.path());
        let mut server = TestServer::spawn(command);
        server._dir = Some(dir);
        server
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    fn spawn(mut command: Command) -> TestServer {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tengen serve starts");
        let stderr = Arc::new(Mutex::new(String::new()));
        let pipe = child.stderr.take().expect("piped stderr");
        let kept = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { return };
                eprintln!("{line}");
                if let Ok(mut s) = kept.lock() {
                    s.push_str(&line);
                    s.push('\n');
                }
            }
        });
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = mpsc::channel();
        // Reads the server's output to its end, so that the pipe never fills.
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if let Some(url) = line.strip_prefix("Tengen is listening on ") {
                    tx.send(url.trim().trim_end_matches('/').to_string()).ok();
                }
            }
        });
        let base = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(base) => base,
            Err(_) => {
                child.kill().ok();
                child.wait().ok();
                panic!("tengen serve did not print its address");
            }
        };
        TestServer {
            child,
            base,
            stderr,
            _dir: None,
        }
    }

    pub fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        block_on(async move {
            let r = reqwest::Client::new()
                .post(url)
                .json(&body)
                .send()
                .await
                .expect("request");
            let status = r.status().as_u16();
            (status, r.json().await.unwrap_or(Value::Null))
        })
    }

    /// Waits (up to 30 s) until the server's standard error holds `text`.
    pub fn wait_for_log(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let log = self.stderr.lock().map(|s| s.clone()).unwrap_or_default();
            if log.contains(text) {
                return log;
            }
            assert!(Instant::now() < deadline, "no {text:?} in the log:\n{log}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn get(&self, path: &str) -> (u16, Value) {
        let url = format!("{}{path}", self.base);
        block_on(async move {
            let r = reqwest::get(url).await.expect("request");
            let status = r.status().as_u16();
            (status, r.json().await.unwrap_or(Value::Null))
        })
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

fn block_on<T>(f: impl std::future::Future<Output = T>) -> T {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(f)
}

/// A finished `tengen` run.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Starts `tengen args...` with its output captured.
pub fn spawn(args: &[&str]) -> Child {
    spawn_with_stdin(args, Stdio::null())
}

pub fn spawn_with_stdin(args: &[&str], stdin: Stdio) -> Child {
    Command::new(TENGEN)
        .args(args)
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tengen starts")
}

/// Waits for `child` to exit, killing it (and failing the test) after `limit`.
pub fn finish(mut child: Child, limit: Duration) -> Run {
    // Readers on their own threads, so that a chatty child never blocks on a full pipe.
    let out = child.stdout.take();
    let err = child.stderr.take();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut o) = out {
            o.read_to_string(&mut s).ok();
        }
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = String::new();
        if let Some(mut e) = err {
            e.read_to_string(&mut s).ok();
        }
        s
    });
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().ok();
            child.wait().ok();
            let (o, e) = (
                out.join().unwrap_or_default(),
                err.join().unwrap_or_default(),
            );
            panic!("tengen did not finish within {limit:?}\nstdout:\n{o}\nstderr:\n{e}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    Run {
        status,
        stdout: out.join().unwrap_or_default(),
        stderr: err.join().unwrap_or_default(),
    }
}

/// Runs `tengen args...` to its end within `limit`.
pub fn run(args: &[&str], limit: Duration) -> Run {
    finish(spawn(args), limit)
}

/// Runs `tengen args...` with `input` on its standard input (then closed), to its end within
/// `limit`.
pub fn run_with_input(args: &[&str], input: impl AsRef<[u8]>, limit: Duration) -> Run {
    use std::io::Write;
    let mut child = spawn_with_stdin(args, Stdio::piped());
    if let Some(mut stdin) = child.stdin.take() {
        // A child that exits before reading all of it closes the pipe: not this test's failure.
        stdin.write_all(input.as_ref()).ok();
    }
    finish(child, limit)
}
