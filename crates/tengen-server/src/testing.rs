//! Databases for tests (not part of the server's interface).
//!
//! The tests of the store and of the server run against SQLite, and against PostgreSQL too
//! where `scripts/test` has started one: `TENGEN_TEST_POSTGRES` is then an admin URL of that
//! server, on which each test makes a database of its own, so tests running at once never see
//! each other's rows. `TENGEN_TEST_BACKEND=postgres` makes the server's integration tests use
//! it instead of an SQLite file.

use std::path::Path;
use std::str::FromStr;

use sqlx::Connection;
use sqlx::postgres::{PgConnectOptions, PgConnection};

/// The admin URL of the tests' PostgreSQL server, if one was started.
pub fn postgres_admin_url() -> Option<String> {
    std::env::var("TENGEN_TEST_POSTGRES")
        .ok()
        .filter(|u| !u.is_empty())
}

/// Whether the server's integration tests are to run on PostgreSQL.
pub fn postgres_backend() -> bool {
    std::env::var("TENGEN_TEST_BACKEND").is_ok_and(|b| b == "postgres")
}

/// A new, empty PostgreSQL database on the tests' server; its URL.
///
/// # Panics
///
/// When no server was started, or it refuses: a test asked for PostgreSQL and cannot have it.
pub async fn new_postgres_database() -> String {
    let admin = postgres_admin_url().expect("TENGEN_TEST_POSTGRES names no server");
    let name = format!(
        "tengen_test_{}",
        crate::online::random_hex(8).expect("random bytes")
    );
    let options = PgConnectOptions::from_str(&admin).expect("an admin URL");
    let mut conn = PgConnection::connect_with(&options)
        .await
        .expect("the tests' PostgreSQL server answers");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .expect("a new database");
    conn.close().await.ok();
    let (base, _) = admin.rsplit_once('/').expect("a URL with a database name");
    format!("{base}/{name}")
}

/// The database URL for a server whose data folder is `dir`: an SQLite file there, or, under
/// `TENGEN_TEST_BACKEND=postgres`, a PostgreSQL database made for `dir` (the same one each
/// time, its URL kept in the folder, so a restarted server finds its games).
pub async fn database_for(dir: &Path) -> String {
    if !postgres_backend() {
        return format!("sqlite://{}", dir.join("tengen.db").display());
    }
    let kept = dir.join("postgres-url");
    if let Ok(url) = std::fs::read_to_string(&kept) {
        return url;
    }
    let url = new_postgres_database().await;
    std::fs::write(&kept, &url).expect("the URL kept in the data folder");
    url
}
