//! Cuts the release wasm into the first load and one chunk per lazily loaded page.
//!
//! trunk has no wasm-split step, so this runs after it: the raw cargo output (built with
//! `--cfg split_pages`, linked with `--emit-relocs`) goes through wasm-split, which writes
//! the main module, the page chunks and `__wasm_split.js` (their loader). The main module
//! then gets wasm-bindgen's glue and every module wasm-opt, and they replace trunk's files
//! under trunk's names, so its `index.html` (preloads, start-up script) stays as it is.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use crate::proc::{self, command, run};
use crate::tools::WASM_TARGET;
use crate::Result;

/// The package (and trunk's `data-bin`) whose wasm is split.
const BINARY: &str = "reservations-console";

/// The flags the split needs from rustc: the split points, and relocations for wasm-split.
pub const RUSTFLAGS: [&str; 2] = ["--cfg split_pages", "-C link-args=--emit-relocs"];

pub fn split_pages(dist: &Path) -> Result {
    let stem = trunk_stem(dist)?;
    let work = target_dir().join("wasm-split");
    let _ = fs::remove_dir_all(&work);
    let raw = target_dir()
        .join(WASM_TARGET)
        .join("release")
        .join(format!("{BINARY}.wasm"));
    run(command("wasm-split-cli").arg(&raw).arg(&work).args([
        "--target",
        "web",
        "--out-name",
        &stem,
    ]))?;

    let main = work.join(format!("{stem}.wasm"));
    let glue = work.join("bindgen");
    run(command("wasm-bindgen")
        .args(["--target", "web", "--no-typescript"])
        // The chunks link against the main module's exports by their linker names.
        .args(["--keep-lld-exports", "--no-demangle"])
        .arg("--out-dir")
        .arg(&glue)
        .args(["--out-name", &stem])
        .arg(&main))?;

    let wasm_opt_flags = wasm_opt_flags()?;
    let optimise = |from: &Path, to: &Path| {
        run(command("wasm-opt")
            .arg("-Oz")
            .args(&wasm_opt_flags)
            .arg(from)
            .arg("-o")
            .arg(to))
    };
    optimise(
        &glue.join(format!("{stem}_bg.wasm")),
        &dist.join(format!("{stem}_bg.wasm")),
    )?;
    let mut loader = read(&work.join(LOADER))?;
    for chunk in chunks(&work, &main)? {
        let optimised = chunk.with_extension("opt.wasm");
        optimise(&chunk, &optimised)?;
        let bytes = fs::read(&optimised)
            .map_err(|error| format!("cannot read {}: {error}", optimised.display()))?;
        let name = file_name(&chunk);
        let hashed = hashed_name(&name, &bytes);
        loader = loader.replace(&format!("\"./{name}\""), &format!("\"./{hashed}\""));
        write(&dist.join(hashed), &bytes)?;
    }
    let hashed_loader = hashed_name(LOADER, loader.as_bytes());
    write(&dist.join(&hashed_loader), loader.as_bytes())?;
    // Only the glue's `import … from` changes: the wasm still names the loader's module
    // `./__wasm_split.js` in its imports, and the glue's import object keys follow that.
    let main_glue = read(&glue.join(format!("{stem}.js")))?.replace(
        &format!("from \"./{LOADER}\""),
        &format!("from \"./{hashed_loader}\""),
    );
    write(&dist.join(format!("{stem}.js")), main_glue.as_bytes())
}

/// The chunks' loader that wasm-split writes, which the main module imports.
const LOADER: &str = "__wasm_split.js";

/// `name` with its content's hash before the extension, as trunk names its own files,
/// so that a tab never joins a cached chunk of one release to another's main module.
fn hashed_name(name: &str, content: &[u8]) -> String {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
    format!("{stem}-{:016x}.{extension}", hasher.finish())
}

/// trunk's output name, `reservations-console-<hash>`, read off the glue it wrote.
fn trunk_stem(dist: &Path) -> Result<String> {
    let prefix = format!("{BINARY}-");
    entries(dist)?
        .into_iter()
        .filter_map(|path| path.file_name()?.to_str().map(str::to_owned))
        .find_map(|name| {
            let stem = name.strip_suffix(".js")?;
            stem.starts_with(&prefix).then(|| stem.to_owned())
        })
        .ok_or_else(|| format!("trunk wrote no {prefix}*.js into {}", dist.display()))
}

/// Every wasm file wasm-split wrote besides the main module.
fn chunks(work: &Path, main: &Path) -> Result<Vec<PathBuf>> {
    Ok(entries(work)?
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "wasm") && path != main)
        .collect())
}

/// The wasm-opt features trunk is given in `index.html`, so both passes agree.
fn wasm_opt_flags() -> Result<Vec<String>> {
    const ATTRIBUTE: &str = "data-wasm-opt-params=\"";
    let html = fs::read_to_string(proc::root().join("index.html"))
        .map_err(|error| format!("cannot read index.html: {error}"))?;
    let params = html
        .split_once(ATTRIBUTE)
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(params, _)| params)
        .ok_or_else(|| format!("index.html has no {ATTRIBUTE}…\""))?;
    Ok(params.split_whitespace().map(str::to_owned).collect())
}

/// Where cargo (and so trunk) builds: `CARGO_TARGET_DIR` when set.
fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|dir| proc::root().join(dir))
        .unwrap_or_else(|| proc::root().join("target"))
}

fn entries(dir: &Path) -> Result<Vec<PathBuf>> {
    let listing =
        fs::read_dir(dir).map_err(|error| format!("cannot list {}: {error}", dir.display()))?;
    Ok(listing.flatten().map(|entry| entry.path()).collect())
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|error| format!("cannot read {}: {error}", path.display()))
}

fn write(path: &Path, content: &[u8]) -> Result {
    fs::write(path, content).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashed_name_follows_the_content_and_keeps_the_extension() {
        let first = hashed_name("split_nodes.wasm", b"one");
        assert!(
            first.starts_with("split_nodes-") && first.ends_with(".wasm"),
            "{first}"
        );
        assert_eq!(first, hashed_name("split_nodes.wasm", b"one"));
        assert_ne!(first, hashed_name("split_nodes.wasm", b"two"));
    }
}
