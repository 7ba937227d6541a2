//! The RustSec advisory database, read offline. These machines cannot clone it, so
//! `../shared/advisory-db/` beside the clone holds a snapshot (its `SNAPSHOT.md` says of
//! which commit and date). cargo-deny 0.20 reads a database from
//! `<db-path>/advisory-db-3157b0e258782691` (the folder its default URL names) laid out as
//! a git repository, and takes its HEAD commit's time for the database's age. This lays the
//! snapshot out so under `target/advisory-db` (deny.toml's `db-path`): a copy, since the
//! shared folder is read-only, committed once and dated at the snapshot's own date, so
//! deny.toml's `maximum-db-staleness` counts from the data and not from the copy.

use std::path::{Path, PathBuf};

use crate::proc::{self, command, run, stdout_of};
use crate::Result;

/// The snapshot, relative to the workspace: beside the clone (CI's copy is read-only).
const SNAPSHOT: &str = "../shared/advisory-db";

/// deny.toml's `db-path`, relative to the workspace.
const DB_PATH: &str = "target/advisory-db";

/// The folder cargo-deny derives from its default database URL.
const FOLDER: &str = "advisory-db-3157b0e258782691";

/// The file that names the snapshot's commit and date; a newer snapshot changes it.
const NOTES: &str = "SNAPSHOT.md";

/// Lays the snapshot out for cargo-deny, unless the copy already holds this snapshot,
/// committed and unchanged.
pub fn prepare() -> Result {
    let source = proc::root().join(SNAPSHOT);
    let notes = std::fs::read_to_string(source.join(NOTES)).map_err(|error| {
        format!(
            "no advisory database snapshot at {} ({error}): it is ../shared/advisory-db beside the clone, \
             a copy of the RustSec database described by its {NOTES}",
            source.display()
        )
    })?;
    let date = snapshot_date(&notes)?;
    let copy = proc::root().join(DB_PATH).join(FOLDER);
    if is_laid_out(&copy, &notes) {
        return Ok(());
    }
    if copy.exists() {
        std::fs::remove_dir_all(&copy).map_err(|error| format!("cannot remove {}: {error}", copy.display()))?;
    }
    copy_tree(&source, &copy)?;
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
    run(&mut git(&[
        "commit",
        "--quiet",
        "--message",
        &format!("The RustSec advisory database of {SNAPSHOT} ({NOTES})"),
    ]))?;
    // cargo-deny takes the later of the commit's time and `.git/HEAD`'s modification time
    // (a fresh clone's), which would make the copy as new as today.
    run(command("touch").args(["-d", &format!("{date}T00:00:00Z")]).arg(copy.join(".git/HEAD")))
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
    date.map(str::to_owned).ok_or_else(|| format!("{SNAPSHOT}/{NOTES} names no date (\"dated YYYY-MM-DD\")"))
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
