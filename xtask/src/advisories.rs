//! The RustSec advisory database for cargo-deny. Without a snapshot named, cargo-deny's own
//! copy is fetched as it normally is; where it cannot be fetched (a machine that reaches
//! only the package registries), the stage says so in one line and the summary says the
//! advisories were not checked, rather than pass in silence. A snapshot named by
//! [`SNAPSHOT_VARIABLE`] (a copy of the database's `crates/` with a `SNAPSHOT.md` that says
//! "dated YYYY-MM-DD") is read offline instead, and a named one that is missing fails.
//!
//! cargo-deny 0.20 reads a database from `<db-path>/advisory-db-3157b0e258782691` (the
//! folder its default URL names) laid out as a git repository, and takes its HEAD commit's
//! time for the database's age. A snapshot is laid out so under `target/advisory-db`
//! (deny.toml's `db-path`): a copy (the named folder may be read-only), committed once and
//! dated at the snapshot's own date. An old snapshot does not fail a build by the calendar
//! alone: the stage warns, and only an advisory fails it.

use std::path::{Path, PathBuf};

use crate::proc::{self, command, run, stdout_of};
use crate::Result;

/// The variable that names a snapshot to read offline (`.ci/run` names the one CI has).
pub const SNAPSHOT_VARIABLE: &str = "ADVISORY_DB";

/// deny.toml's `db-path`, relative to the workspace.
const DB_PATH: &str = "target/advisory-db";

/// The folder cargo-deny derives from its default database URL.
const FOLDER: &str = "advisory-db-3157b0e258782691";

/// The file that names the snapshot's commit and date; a newer snapshot changes it.
const NOTES: &str = "SNAPSHOT.md";

/// The age past which a snapshot is worth replacing (cargo-deny's own default limit).
const OLD_AFTER_DAYS: i64 = 90;

/// Which database the advisories are checked against, if any.
#[derive(Debug, PartialEq, Eq)]
pub enum Database {
    /// The named snapshot, laid out for cargo-deny.
    Snapshot,
    /// cargo-deny's own copy, fetched now.
    Fetched,
    /// None could be had: why, in one line.
    Unavailable(String),
}

impl Database {
    /// Whether cargo-deny can check the advisories against it.
    pub fn checked(&self) -> bool {
        !matches!(self, Database::Unavailable(_))
    }
}

/// Makes a database ready for `cargo deny --offline`: the snapshot named by
/// [`SNAPSHOT_VARIABLE`] (an error when it is named but missing), else cargo-deny's own,
/// fetched.
pub fn prepare() -> Result<Database> {
    match std::env::var_os(SNAPSHOT_VARIABLE).filter(|named| !named.is_empty()) {
        Some(named) => {
            lay_out(&proc::root().join(named))?;
            Ok(Database::Snapshot)
        }
        None => Ok(fetch()),
    }
}

/// cargo-deny's own database, fetched into `db-path`. A snapshot laid out there before (it
/// has no remote to fetch from) is removed first.
fn fetch() -> Database {
    let copy = proc::root().join(DB_PATH).join(FOLDER);
    let has_remote =
        || stdout_of(command("git").current_dir(&copy).args(["remote"])).is_some_and(|r| !r.trim().is_empty());
    if copy.exists() && !has_remote() {
        let _ = std::fs::remove_dir_all(&copy);
    }
    match proc::run(proc::cargo().args(["deny", "fetch", "db"])) {
        Ok(()) => Database::Fetched,
        Err(_) => Database::Unavailable(format!(
            "advisories not checked: the RustSec database could not be fetched; \
             name a snapshot of it with {SNAPSHOT_VARIABLE}=PATH to read it offline"
        )),
    }
}

/// Lays the snapshot at `source` out for cargo-deny, unless the copy already holds it,
/// committed and unchanged; warns when it is old.
fn lay_out(source: &Path) -> Result {
    let notes = std::fs::read_to_string(source.join(NOTES)).map_err(|error| {
        format!(
            "{SNAPSHOT_VARIABLE} names {}, but it holds no advisory database snapshot ({NOTES}: {error})",
            source.display()
        )
    })?;
    let date = snapshot_date(&notes)?;
    if let Some(days) = age_in_days(&date).filter(|days| *days > OLD_AFTER_DAYS) {
        println!(
            "xtask: warning: the advisory database snapshot is {days} days old ({date}); a newer one would know more"
        );
    }
    let copy = proc::root().join(DB_PATH).join(FOLDER);
    if is_laid_out(&copy, &notes) {
        return Ok(());
    }
    if copy.exists() {
        std::fs::remove_dir_all(&copy).map_err(|error| format!("cannot remove {}: {error}", copy.display()))?;
    }
    copy_tree(source, &copy)?;
    let git = |args: &[&str]| {
        let mut git = command("git");
        git.current_dir(&copy)
            .args(["-c", "user.name=cargo xtask", "-c", "user.email=xtask@localhost", "-c", "commit.gpgsign=false"])
            .args(args)
            .env("GIT_AUTHOR_DATE", format!("{date}T00:00:00Z"))
            .env("GIT_COMMITTER_DATE", format!("{date}T00:00:00Z"));
        git
    };
    run(&mut git(&["init", "--quiet"]))?;
    run(&mut git(&["add", "--all"]))?;
    run(&mut git(&["commit", "--quiet", "--message", &format!("The RustSec advisory database snapshot ({NOTES})")]))?;
    // cargo-deny takes the later of the commit's time and `.git/HEAD`'s modification time
    // (a fresh clone's), which would make the copy as new as today.
    run(command("touch").args(["-d", &format!("{date}T00:00:00Z")]).arg(copy.join(".git/HEAD")))
}

/// Days from `date` (`YYYY-MM-DD`) to today, by `date`'s own clock (`None` if it cannot tell).
fn age_in_days(date: &str) -> Option<i64> {
    let seconds = |args: &[&str]| stdout_of(command("date").args(args))?.trim().parse::<i64>().ok();
    let (then, now) = (seconds(&["-u", "-d", date, "+%s"])?, seconds(&["-u", "+%s"])?);
    Some((now - then) / 86_400)
}

/// The copy holds this snapshot's notes and everything in it is committed (in a repository
/// of its own: git would otherwise answer for the workspace's).
fn is_laid_out(copy: &Path, notes: &str) -> bool {
    let same_notes =
        copy.join(".git").is_dir() && std::fs::read_to_string(copy.join(NOTES)).is_ok_and(|copied| copied == notes);
    let clean = || {
        stdout_of(command("git").current_dir(copy).args(["status", "--porcelain"])).is_some_and(|out| out.is_empty())
    };
    let committed = || stdout_of(command("git").current_dir(copy).args(["rev-parse", "--verify", "HEAD"])).is_some();
    same_notes && committed() && clean()
}

/// The snapshot's date, `YYYY-MM-DD` after the word "dated" in its notes.
fn snapshot_date(notes: &str) -> Result<String> {
    let words: Vec<&str> = notes.split_whitespace().collect();
    let date =
        words.windows(2).find(|pair| pair[0] == "dated").map(|pair| pair[1].trim_end_matches([',', '.'])).filter(
            |date| {
                date.len() == 10
                    && date.char_indices().all(|(at, c)| if at == 4 || at == 7 { c == '-' } else { c.is_ascii_digit() })
            },
        );
    date.map(str::to_owned).ok_or_else(|| format!("the snapshot's {NOTES} names no date (\"dated YYYY-MM-DD\")"))
}

/// Copies `from` into `to`, files by content only: the copy is writable, so it can be
/// replaced by the next snapshot's.
fn copy_tree(from: &Path, to: &Path) -> Result {
    std::fs::create_dir_all(to).map_err(|error| format!("cannot create {}: {error}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|error| format!("cannot list {}: {error}", from.display()))?;
    for entry in entries.flatten() {
        let (path, target): (PathBuf, PathBuf) = (entry.path(), to.join(entry.file_name()));
        if entry.file_name() == ".git" {
            continue;
        }
        if path.is_dir() {
            copy_tree(&path, &target)?;
        } else {
            let bytes = std::fs::read(&path).map_err(|error| format!("cannot read {}: {error}", path.display()))?;
            std::fs::write(&target, bytes).map_err(|error| format!("cannot write {}: {error}", target.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_snapshot_that_is_missing_fails_and_names_the_folder() {
        let missing = std::env::temp_dir().join(format!("xtask-no-snapshot-{}", std::process::id()));
        let error = lay_out(&missing).unwrap_err();
        assert!(error.contains(SNAPSHOT_VARIABLE) && error.contains(&missing.display().to_string()), "{error}");
    }

    #[test]
    fn the_snapshot_date_is_read_from_its_notes() {
        let notes = "`crates/` is the RustSec advisory database as of its commit\n\
                     bf5c0d245a92671908518d7e765914d437954ed6, dated 2026-08-21. These machines cannot clone it";
        assert_eq!(snapshot_date(notes).unwrap(), "2026-08-21");
        assert!(snapshot_date("as of last week").is_err());
        assert!(snapshot_date("dated 21/08/2026.").is_err());
    }

    #[test]
    fn a_copy_is_writable_and_leaves_out_a_git_folder() {
        let root = std::env::temp_dir().join(format!("xtask-advisories-{}", std::process::id()));
        let (from, to) = (root.join("from"), root.join("to"));
        std::fs::create_dir_all(from.join("crates/paste")).unwrap();
        std::fs::create_dir_all(from.join(".git")).unwrap();
        std::fs::write(from.join("crates/paste/RUSTSEC-2024-0436.md"), "unmaintained").unwrap();
        let mut read_only = std::fs::metadata(from.join("crates/paste/RUSTSEC-2024-0436.md")).unwrap().permissions();
        read_only.set_readonly(true);
        std::fs::set_permissions(from.join("crates/paste/RUSTSEC-2024-0436.md"), read_only).unwrap();
        copy_tree(&from, &to).unwrap();
        let copied = to.join("crates/paste/RUSTSEC-2024-0436.md");
        let (text, writable) =
            (std::fs::read_to_string(&copied).unwrap(), !std::fs::metadata(&copied).unwrap().permissions().readonly());
        let git_copied = to.join(".git").exists();
        std::fs::remove_dir_all(&root).unwrap();
        assert_eq!(text, "unmaintained");
        assert!(writable && !git_copied);
    }
}
