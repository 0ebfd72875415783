//! The store files written by an earlier format (`tests/fixtures/stores/`), for the migration
//! tests of the trading store and the paper book: each fixture `NAME.redb` comes with
//! `NAME.expected.json`, what the code that wrote it read back.

use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/stores")
}

/// What the writing code read back from fixture `name`.
pub fn expected(name: &str) -> Value {
    let text = std::fs::read_to_string(dir().join(format!("{name}.expected.json")))
        .expect("expected answers");
    serde_json::from_str(&text).expect("expected json")
}

/// Fixture `name`, copied to `file_name` in a temp dir where a test may change it.
pub fn copy(name: &str, file_name: &str) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().expect("temp dir");
    let path = temp.path().join(file_name);
    std::fs::copy(dir().join(format!("{name}.redb")), &path).expect("copy fixture");
    (temp, path)
}

/// Saves `path` as fixture `name`, with `expected` beside it (the ignored generators).
pub fn save(path: &Path, name: &str, expected: &Value) {
    let out = dir();
    std::fs::create_dir_all(&out).expect("fixture dir");
    std::fs::copy(path, out.join(format!("{name}.redb"))).expect("copy");
    let text = serde_json::to_string_pretty(expected).expect("json");
    std::fs::write(out.join(format!("{name}.expected.json")), text + "\n").expect("expected");
}

/// Opens the file directly once the store's lease closed it (its closer runs after the idle
/// window; dropping the store closes it at once).
pub fn open_released(path: &Path) -> redb::Database {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match redb::Database::open(path) {
            Ok(db) => return db,
            Err(redb::DatabaseError::DatabaseAlreadyOpen)
                if std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(err) => panic!("the file could not be opened: {err}"),
        }
    }
}

/// The file's table names, sorted, read once the store let go of it.
pub fn tables(path: &Path) -> Vec<String> {
    use redb::{ReadableDatabase, TableHandle};
    let db = open_released(path);
    let txn = db.begin_read().expect("read");
    let mut names: Vec<String> = txn
        .list_tables()
        .expect("tables")
        .map(|t| t.name().to_owned())
        .collect();
    names.sort();
    names
}
