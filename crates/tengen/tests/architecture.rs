//! The crate table of `docs/architecture.md` is the dependency rule: each workspace crate may
//! depend only on the crates its "may depend on" column names. This test reads that table and
//! the workspace's real dependencies (`cargo metadata`) and fails when a crate gains one the
//! table does not allow, or when the table names a crate the workspace does not have. It also
//! checks, on the resolved graph, that the brain, the client and the match runner build none of
//! the server's stack, and that the match runner builds no engine.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

/// The crates of the table, in its order, each with the crates it may depend on.
fn allowed_by_the_table(text: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut rows: Vec<(String, BTreeSet<String>)> = Vec::new();
    let table = text
        .lines()
        .skip_while(|l| !l.starts_with("| crate |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'));
    for line in table {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "| crate | owns | may depend on | status |" splits into six cells, the outer two empty.
        assert!(cells.len() >= 5, "a row of four columns: {line}");
        let name = cells[1].trim_matches('`').to_string();
        let may = cells[3];
        let allowed: BTreeSet<String> = if may.contains("every crate above") {
            rows.iter().map(|(n, _)| n.clone()).collect()
        } else {
            may.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        rows.push((name, allowed));
    }
    rows
}

/// `cargo metadata` of the workspace at `root` (offline), with `extra` arguments, as JSON.
fn cargo_metadata(root: &Path, extra: &[&str]) -> serde_json::Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(extra)
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Each workspace crate with the workspace crates it depends on (normal and build
/// dependencies; dev-dependencies are the tests' business).
fn workspace_dependencies(root: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let meta = cargo_metadata(root, &["--no-deps"]);
    let packages = meta["packages"].as_array().expect("packages");
    let ours: BTreeSet<String> = packages
        .iter()
        .filter_map(|p| p["name"].as_str().map(str::to_string))
        .collect();
    packages
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str())
                .filter(|n| ours.contains(*n))
                .map(str::to_string)
                .collect();
            (p["name"].as_str().expect("a name").to_string(), deps)
        })
        .collect()
}

#[test]
fn every_crate_depends_only_on_what_the_architecture_table_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).expect("the doc");
    let table = allowed_by_the_table(&text);
    assert!(table.len() >= 5, "the crate table has {} rows", table.len());
    let real = workspace_dependencies(&root);
    let named: BTreeSet<&String> = table.iter().map(|(n, _)| n).collect();
    let present: BTreeSet<&String> = real.keys().collect();
    assert_eq!(
        named, present,
        "the table's crates and the workspace's crates differ"
    );
    let mut wrong = Vec::new();
    for (name, allowed) in &table {
        for dep in &real[name] {
            if !allowed.contains(dep) {
                wrong.push(format!("{name} depends on {dep}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies docs/architecture.md does not allow: {}",
        wrong.join("; ")
    );
}

#[test]
fn the_table_reader_sees_a_forbidden_dependency() {
    // A small table in the doc's form: the reader must give `b` only `a`, and `c` both.
    let text = "intro\n\n| crate | owns | may depend on | status |\n| --- | --- | --- | --- |\n\
                | `a` | x | nothing of ours | built |\n| `b` | y | `a` | built |\n\
                | `c` | z | every crate above | built |\n\nafter\n";
    let table = allowed_by_the_table(text);
    let names: Vec<&str> = table.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b", "c"]);
    assert!(table[0].1.is_empty());
    assert_eq!(table[1].1, BTreeSet::from(["a".to_string()]));
    assert_eq!(
        table[2].1,
        BTreeSet::from(["a".to_string(), "b".to_string()])
    );
    assert!(!table[1].1.contains("c"), "b may not depend on c");
}

/// The packages `package` builds: the closure of its normal and build dependencies in the
/// resolved graph (`cargo metadata` with dependencies; dev-dependencies are the tests' business).
fn built_by(meta: &serde_json::Value, package: &str) -> BTreeSet<String> {
    let nodes = meta["resolve"]["nodes"].as_array().expect("resolve nodes");
    let name_of = |id: &str| -> String {
        meta["packages"]
            .as_array()
            .expect("packages")
            .iter()
            .find(|p| p["id"].as_str() == Some(id))
            .and_then(|p| p["name"].as_str())
            .expect("a package for every id")
            .to_string()
    };
    let start = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"].as_str() == Some(package))
        .and_then(|p| p["id"].as_str())
        .unwrap_or_else(|| panic!("no package {package}"))
        .to_string();
    let mut seen = BTreeSet::from([start.clone()]);
    let mut todo = vec![start];
    while let Some(id) = todo.pop() {
        let node = nodes
            .iter()
            .find(|n| n["id"].as_str() == Some(id.as_str()))
            .expect("a node for every id");
        for dep in node["deps"].as_array().expect("deps") {
            let not_dev = dep["dep_kinds"]
                .as_array()
                .expect("dep kinds")
                .iter()
                .any(|k| k["kind"].as_str() != Some("dev"));
            let dep_id = dep["pkg"].as_str().expect("pkg").to_string();
            if not_dev && seen.insert(dep_id.clone()) {
                todo.push(dep_id);
            }
        }
    }
    seen.iter().map(|id| name_of(id)).collect()
}

#[test]
fn the_brain_the_client_and_the_match_runner_build_only_what_they_need() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // This machine's packages only: the others (Windows' and macOS's) need not be downloaded.
    let rustc = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    let host = String::from_utf8_lossy(&rustc.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("host: ").map(str::to_string))
        .expect("rustc names its host");
    let meta = cargo_metadata(&root, &["--filter-platform", &host]);
    // The server's stack: a brain binary or a client that builds it has taken a wrong turn.
    let server_stack = ["tengen-server", "axum", "sqlx"];
    for package in [
        "tengen-brain",
        "tengen-client",
        "tengen-wire",
        "tengen-match",
    ] {
        let built = built_by(&meta, package);
        for heavy in server_stack {
            assert!(!built.contains(heavy), "{package} builds {heavy}");
        }
    }
    // The match runner drives outside brains and needs no engine of its own.
    assert!(!built_by(&meta, "tengen-match").contains("tengen-engine"));
    assert!(!built_by(&meta, "tengen-protocol").contains("tengen-engine"));
    // The check can fail: the command line does build the server.
    assert!(built_by(&meta, "tengen").contains("axum"));
}
