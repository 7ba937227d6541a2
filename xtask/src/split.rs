//! Cuts the release wasm into the first load and one chunk per lazily loaded page.
//!
//! trunk has no wasm-split step, so this runs after it: the raw cargo output (built with
//! `--cfg split_pages`, linked with `--emit-relocs`) goes through wasm-split, which writes
//! the main module, the page chunks and `__wasm_split.js` (their loader). Each page's own
//! chunk stays a file; the pieces pages share are merged into three modules, each a file
//! ([`SHARED_BUNDLE`]). The main module then gets wasm-bindgen's glue (its imports renamed
//! short, [`imports`]) and every module wasm-opt, esbuild minifies the glue and the loader,
//! and they replace trunk's files under trunk's names, so its `index.html` (preloads,
//! start-up script) stays as it is but for one more preload, the loader's.

use std::fs;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

use crate::imports;
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
    let raw = target_dir().join(WASM_TARGET).join("release").join(format!("{BINARY}.wasm"));
    run(command("wasm-split-cli").arg(&raw).arg(&work).args(["--target", "web", "--out-name", &stem]))?;

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

    let main_glue = read(&glue.join(format!("{stem}.js")))?;
    if let Some(class) = wrapped_stream_class(&main_glue) {
        return Err(format!("the glue hands a {class} to JavaScript: its exports are needed, drop UNUSED_EXPORTS"));
    }
    let main_glue = without_stream_classes(&main_glue)?;
    let bound = glue.join(format!("{stem}_bg.wasm"));
    let wasm = read_bytes(&bound)?;
    let (wasm, main_glue) = imports::shortened(&wasm, &main_glue, &format!("./{stem}_bg.js"))?;
    write(&bound, &wasm)?;
    let wasm_opt_flags = wasm_opt_flags()?;
    let optimise = |from: &Path, to: &Path, passes: &[&str]| {
        run(command("wasm-opt").args(passes).arg("-Oz").args(&wasm_opt_flags).arg(from).arg("-o").arg(to))
    };
    optimise(
        &bound,
        &dist.join(format!("{stem}_bg.wasm")),
        &["--remove-exports", &format!("--pass-arg=remove-exports@{UNUSED_EXPORTS}")],
    )?;
    let generated = read(&work.join(LOADER))?;
    let mut loader = generated.clone();
    let mut shared = vec![Vec::new(); BUNDLE_PAGES.len() + 1];
    let mut pages = Vec::new();
    for chunk in chunks(&work, &main)? {
        let name = file_name(&chunk);
        let fetch = format!("fetch(new URL(\"./{name}\", import.meta.url))");
        if name.starts_with(SHARED_PREFIX) {
            // Optimised once merged.
            let bundle = piece_bundle(&generated, &name)?;
            shared[bundle].push(read_bytes(&chunk)?);
            let fetched = format!("const src = {fetch};\n    src.catch(() => {{}});\n    {INSTANTIATED}");
            loader =
                replaced(&loader, LOADER, &fetched, &format!("return async (imports) => merged({bundle}, imports);"))?;
            continue;
        }
        let optimised = chunk.with_extension("opt.wasm");
        optimise(&chunk, &optimised, &[])?;
        let bytes = read_bytes(&optimised)?;
        let hashed = hashed_name(&name, &bytes);
        let page = page_name(&name)?;
        loader = replaced(&loader, LOADER, &fetch, &format!("pageChunk(\"{page}\")"))?;
        write(&dist.join(&hashed), &bytes)?;
        pages.push(Page { bundles: page_bundles(&generated, page)?, name: page.to_owned(), file: hashed });
    }
    let mut bundles = Vec::new();
    for (index, pieces) in shared.iter().enumerate() {
        if pieces.is_empty() {
            bundles.push(Bundle::of(Vec::new()));
            continue;
        }
        let merged = merged(&work.join(format!("merged_{index}")), pieces, &wasm_opt_flags)?;
        let optimised = merged.with_extension("opt.wasm");
        optimise(&merged, &optimised, &["--remove-exports", "--pass-arg=remove-exports@*"])?;
        bundles.push(Bundle::of(read_bytes(&optimised)?));
    }
    for bundle in bundles.iter().filter(|bundle| !bundle.file.is_empty()) {
        write(&dist.join(&bundle.file), &bundle.bytes)?;
    }
    loader = format!("{}{loader}", loader_head(&bundles, &pages));
    let loader = minified(&work, LOADER, &loader)?;
    let hashed_loader = hashed_name(LOADER, &loader);
    write(&dist.join(&hashed_loader), &loader)?;
    // Only the glue's `import … from` changes: the wasm still names the loader's module
    // `./__wasm_split.js` in its imports, and the glue's import object keys follow that.
    let main_glue = replaced(
        &main_glue,
        &format!("{stem}.js"),
        &format!("from \"./{LOADER}\""),
        &format!("from \"./{hashed_loader}\""),
    )?;
    let main_glue = minified(&work, &format!("{stem}.js"), &main_glue)?;
    write(&dist.join(format!("{stem}.js")), &main_glue)?;
    let index = dist.join("index.html");
    let html = with_loader_preload(&read(&index)?, &format!("{stem}.js"), &hashed_loader)?;
    write(&index, html.as_bytes())
}

/// `text` (the generated file `file`) with every `pattern` replaced by `with`. A pattern that
/// matches nothing fails the build, naming it: a new wasm-bindgen or wasm-split that words
/// its output differently would otherwise ship a page whose chunks never load.
fn replaced(text: &str, file: &str, pattern: &str, with: &str) -> Result<String> {
    if !text.contains(pattern) {
        return Err(format!("{file} has no `{pattern}` to replace: its generator changed how it writes it"));
    }
    Ok(text.replace(pattern, with))
}

/// `html` with the loader preloaded beside the glue: the glue imports it, so without this
/// the browser learns of it only once the glue is in and parsed, one round trip later on
/// the way to the first render. The glue's own `<link rel=modulepreload>` (trunk's, its
/// attributes as trunk or its minifier wrote them) is copied with the other file's name.
fn with_loader_preload(html: &str, glue: &str, loader: &str) -> Result<String> {
    let (start, end) = html
        .match_indices("<link")
        .filter_map(|(start, _)| Some((start, start + html[start..].find('>')? + 1)))
        .find(|&(start, end)| html[start..end].contains("modulepreload") && html[start..end].contains(glue))
        .ok_or_else(|| format!("index.html has no modulepreload of {glue}"))?;
    let preload = html[start..end].replace(glue, loader);
    Ok(format!("{}{preload}{}", &html[..end], &html[end..]))
}

/// `source` minified by esbuild, as an ES module (names exported and imported stay).
/// The glue lists one module's import object under the same key once per chunk, which
/// esbuild would warn of on every build; only errors are shown.
fn minified(work: &Path, name: &str, source: &str) -> Result<Vec<u8>> {
    let (from, to) = (work.join(format!("full-{name}")), work.join(format!("min-{name}")));
    write(&from, source.as_bytes())?;
    run(command("esbuild")
        .arg(&from)
        .args(["--minify", "--format=esm", "--log-level=error"])
        .arg(format!("--outfile={}", to.display())))?;
    read_bytes(&to)
}

/// The exports (a wasm-opt wildcard) of `wasm-streams`' classes, which leptos links for
/// server functions' streamed bodies (`server_fn`'s `browser` feature is always on). This
/// console has no server functions: nothing but the exports reaches their code (~1.4 KB
/// of the first load's brotli wasm), so they are removed. Should Rust ever hand such a
/// stream to JavaScript, the glue would wrap one, and the build stops
/// ([`wrapped_stream_class`]) rather than ship a stream whose methods are gone.
const UNUSED_EXPORTS: &str = "*intounderlying*";

/// The JavaScript classes wasm-bindgen writes for those exports.
const STREAM_CLASSES: [&str; 3] = ["IntoUnderlyingByteSource", "IntoUnderlyingSink", "IntoUnderlyingSource"];

/// The stream class the glue builds from a Rust value, if any.
fn wrapped_stream_class(glue: &str) -> Option<&'static str> {
    STREAM_CLASSES.into_iter().find(|class| glue.contains(&format!("{class}.__wrap(")))
}

/// `glue` without the stream classes whose wasm exports are removed, and their
/// finalization registries: nothing constructs them ([`wrapped_stream_class`]), and each
/// would call exports that are gone (~1.3 KB of the first load's minified glue). Each
/// class runs from its declaration to the line that gives it `Symbol.dispose`, its
/// registry is one statement of three lines; either not found fails the build, naming it.
fn without_stream_classes(glue: &str) -> Result<String> {
    let mut glue = glue.to_owned();
    for class in STREAM_CLASSES {
        let start = glue
            .find(&format!("export class {class} {{"))
            .ok_or_else(|| format!("the glue declares no class {class}: wasm-bindgen changed how it writes it"))?;
        let last = format!("if (Symbol.dispose) {class}.prototype[Symbol.dispose] = {class}.prototype.free;\n");
        let end = glue[start..]
            .find(&last)
            .map(|at| start + at + last.len())
            .ok_or_else(|| format!("the glue's class {class} has no `{}`", last.trim_end()))?;
        glue.replace_range(start..end, "");
        let registry = format!("const {class}Finalization = ");
        let start =
            glue.find(&registry).ok_or_else(|| format!("the glue has no `{registry}`: wasm-bindgen changed it"))?;
        let end = glue[start..]
            .find(";\n")
            .map(|at| start + at + 2)
            .ok_or_else(|| format!("the glue's `{registry}` has no end"))?;
        glue.replace_range(start..end, "");
    }
    Ok(glue)
}

/// The chunks' loader that wasm-split writes, which the main module imports.
const LOADER: &str = "__wasm_split.js";

/// wasm-split's name for a piece of code that several pages share (`chunk_8.wasm`), where
/// a page's own is `split_nodes.wasm`.
const SHARED_PREFIX: &str = "chunk_";

/// The shared pieces, in three files. wasm-split writes one piece per set of pages sharing
/// code: 43 once, 25 of them for the Nodes page alone, fetched side by side over six
/// HTTP/1.1 connections, and on 2 cores the 10,000-node first grid waited ~100 ms for them
/// (a median of 410 ms, 319 ms with one file, alternating loads). A file compresses as a
/// whole and is fetched once, by the first page that needs any of its pieces. The pieces
/// each of [`BUNDLE_PAGES`] uses (and no page before it there) are a file, the rest the
/// last: the list opened at its address paints with the main module, its chunk and 37 KB
/// brotli of shared code, not the 128 KB of all of it, and reads what it reads after its
/// paint with 17 KB more, not all 91 of the rest. Each file is one module ([`merged`]).
const SHARED_BUNDLE: &str = "__wasm_split_shared.bin";

/// The pages whose shared pieces make the first files, in order: the list's first paint,
/// then the reads it starts after its paint (whose pieces, in the file of all the rest,
/// had the list fetch 88 KB brotli and compile 249 KB of other pages' code after its
/// paint).
const BUNDLE_PAGES: [&str; 2] = ["list", "placement_reads"];

/// How wasm-split's loader instantiates a piece it fetched.
const INSTANTIATED: &str = "return async (imports) => (WebAssembly.instantiateStreaming(src, imports));";

/// The module the pieces import the main module's memory, table and globals from.
const SPLIT_IMPORTS: &str = "__wasm_split";

/// `pieces` merged into one module by binaryen's `wasm-merge`, in `dir/merged.wasm`: one
/// compile and one instantiation per file where there was one per piece (77 in the list's
/// file, 120 in the last), whose ends V8 takes on the page's thread one by one. For the
/// list, 13 ms of `compileConsume` before its first paint, on 2 cores, and 2.5 KB less
/// brotli (37.2 KB); for the overview and the 10,000-node grid opened at their address, ~10 % off their
/// first render (alternating loads). Each piece imports the main module's memory, table
/// and globals; merged as they are, each import would stay its own (two memories), so each
/// piece takes them from one module that re-exports them ([`imports::reexporting`]).
fn merged(dir: &Path, pieces: &[Vec<u8>], flags: &[String]) -> Result<PathBuf> {
    const PROVIDER: &str = "__wasm_split_provider";
    fs::create_dir_all(dir).map_err(|error| format!("cannot create {}: {error}", dir.display()))?;
    let provider = dir.join("provider.wasm");
    write(&provider, &imports::reexporting(pieces, SPLIT_IMPORTS)?)?;
    let mut inputs = vec![provider.into_os_string(), PROVIDER.into()];
    for (index, piece) in pieces.iter().enumerate() {
        let path = dir.join(format!("piece_{index}.wasm"));
        write(&path, &imports::imports_moved(piece, SPLIT_IMPORTS, PROVIDER)?)?;
        inputs.extend([path.into_os_string(), format!("piece_{index}").into()]);
    }
    let out = dir.join("merged.wasm");
    run(command("wasm-merge").args(flags).args(inputs).arg("-o").arg(&out))?;
    Ok(out)
}

/// The file of a shared piece used by `users`: that of the first of [`BUNDLE_PAGES`] among
/// them, else the last.
fn bundle_of(users: &[&str]) -> usize {
    BUNDLE_PAGES.iter().position(|page| users.contains(page)).unwrap_or(BUNDLE_PAGES.len())
}

/// The file of the shared piece `piece` (`chunk_8.wasm`), by the pages the loader
/// says use it.
fn piece_bundle(loader: &str, piece: &str) -> Result<usize> {
    piece_users(loader, piece).map(|users| bundle_of(&users))
}

/// A file of shared pieces: its name (empty when no piece is in it), bytes and integrity.
struct Bundle {
    file: String,
    bytes: Vec<u8>,
    integrity: String,
}

impl Bundle {
    fn of(bytes: Vec<u8>) -> Bundle {
        let file = if bytes.is_empty() { String::new() } else { hashed_name(SHARED_BUNDLE, &bytes) };
        let integrity = format!("sha256-{}", xtask::csp::base64(&xtask::csp::sha256(&bytes)));
        Bundle { file, bytes, integrity }
    }
}

/// A page's chunk: its name (`overview`), file and the files of shared pieces it needs.
struct Page {
    name: String,
    file: String,
    bundles: Vec<usize>,
}

/// Put before the loader. `bundle(index)` fetches a file of shared pieces once, with its
/// SHA-256 as the fetch's `integrity`, so the browser refuses any other body answered with a
/// 200 (a server's HTML fallback after a redeploy removed the file). A failed fetch is
/// forgotten, so the page's Retry fetches it again, past the HTTP cache. `merged(bundle,
/// imports)` instantiates that file's one module, once, for each of its pieces' loaders.
/// `pageChunk(name)` fetches a page's own chunk. For a page opened at its address
/// (`index.html` names it in `__openedPage`), the chunk and its files of shared pieces are
/// fetched as the loader starts, beside the main module, not once that runs and asks.
const LOADER_HEAD: &str = r#"const bundles = BUNDLES;
const pages = PAGES;
const fetched = [], failed = [], sent = new Map();
function bundle(index) {
  const [file, integrity] = bundles[index];
  const whole = (fetched[index] ??= fetch(new URL(file, import.meta.url), {
    integrity,
    cache: failed[index] ? "reload" : "default",
  }).then((response) =>
    response.ok ? response.arrayBuffer() : Promise.reject(new Error(`${response.status} ${response.url}`))));
  whole.catch(() => {
    if (fetched[index] === whole) {
      fetched[index] = undefined;
      failed[index] = true;
    }
  });
  return whole;
}
const instances = [];
function merged(index, imports) {
  const made = (instances[index] ??= bundle(index).then((bytes) => WebAssembly.instantiate(bytes, imports)));
  made.catch(() => {
    if (instances[index] === made) instances[index] = undefined;
  });
  return made;
}
function pageChunk(name) {
  const early = sent.get(name);
  sent.delete(name);
  return early ?? fetch(new URL(pages[name][0], import.meta.url));
}
const opened = pages[globalThis.__openedPage];
if (opened) {
  const early = fetch(new URL(opened[0], import.meta.url));
  early.catch(() => {});
  sent.set(globalThis.__openedPage, early);
  opened[1].forEach((index) => bundle(index).catch(() => {}));
}
"#;

/// [`LOADER_HEAD`] for `bundles` and `pages`.
fn loader_head(bundles: &[Bundle], pages: &[Page]) -> String {
    let bundles: Vec<String> =
        bundles.iter().map(|bundle| format!("[\"./{}\", \"{}\"]", bundle.file, bundle.integrity)).collect();
    let pages: Vec<String> =
        pages.iter().map(|page| format!("{}: [\"./{}\", {:?}]", page.name, page.file, page.bundles)).collect();
    LOADER_HEAD
        .replace("BUNDLES", &format!("[{}]", bundles.join(", ")))
        .replace("PAGES", &format!("{{ {} }}", pages.join(", ")))
}

/// A page chunk's name as `lazy_page!` gives it (`overview`), from its file (`split_overview.wasm`).
fn page_name(file: &str) -> Result<&str> {
    file.strip_prefix("split_")
        .and_then(|rest| rest.strip_suffix(".wasm"))
        .ok_or_else(|| format!("wasm-split wrote {file}, neither a page's chunk nor a shared piece"))
}

/// The pages that use the shared piece `piece` (`chunk_8.wasm`), as the comment wasm-split
/// writes above the piece's loader lists them.
fn piece_users<'a>(loader: &'a str, piece: &str) -> Result<Vec<&'a str>> {
    let variable = piece.strip_suffix(".wasm").unwrap_or(piece);
    let declared = format!("*/\nconst __{variable} = makeLoad(");
    let at = loader.find(&declared).ok_or_else(|| format!("{LOADER} declares no loader of {piece}"))?;
    let comment = loader[..at].rfind("/*").ok_or_else(|| format!("{LOADER} names no page above {piece}"))?;
    Ok(loader[comment + 2..at].split(',').map(str::trim).collect())
}

/// The files of shared pieces (their index) the page chunk `page` (`overview`) needs: those
/// of the pieces its loader waits for.
fn page_bundles(loader: &str, page: &str) -> Result<Vec<usize>> {
    let declared = format!("export const __wasm_split_load_{page} = ");
    let at = loader.find(&declared).ok_or_else(|| format!("{LOADER} has no chunk {page}"))?;
    let list =
        loader[at..].find("\n, [").map(|start| at + start + 4).ok_or_else(|| format!("{page}'s loader has no list"))?;
    let end = loader[list..].find(']').map(|end| list + end).ok_or_else(|| format!("{page}'s list is not closed"))?;
    let mut bundles = Vec::new();
    for variable in loader[list..end].split(',').map(str::trim).filter(|variable| !variable.is_empty()) {
        let bundle = piece_bundle(loader, &format!("{}.wasm", variable.trim_start_matches("__")))?;
        if !bundles.contains(&bundle) {
            bundles.push(bundle);
        }
    }
    bundles.sort();
    Ok(bundles)
}

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

/// Every wasm file wasm-split wrote besides the main module, by name (so the bundle of
/// shared pieces is the same for the same build).
fn chunks(work: &Path, main: &Path) -> Result<Vec<PathBuf>> {
    let mut chunks: Vec<PathBuf> = entries(work)?
        .into_iter()
        .filter(|path| path.extension().is_some_and(|ext| ext == "wasm") && path != main)
        .collect();
    chunks.sort();
    Ok(chunks)
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
    let listing = fs::read_dir(dir).map_err(|error| format!("cannot list {}: {error}", dir.display()))?;
    Ok(listing.flatten().map(|entry| entry.path()).collect())
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
}

fn read(path: &Path) -> Result<String> {
    fs::read_to_string(path).map_err(|error| format!("cannot read {}: {error}", path.display()))
}

fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    fs::read(path).map_err(|error| format!("cannot read {}: {error}", path.display()))
}

fn write(path: &Path, content: &[u8]) -> Result {
    fs::write(path, content).map_err(|error| format!("cannot write {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_class_built_from_rust_is_found_and_one_only_declared_is_not() {
        let declared =
            "export class IntoUnderlyingSink {\n    free() { wasm.__wbg_intounderlyingsink_free(ptr, 0); }\n}";
        assert_eq!(wrapped_stream_class(declared), None);
        let wrapped = format!("{declared}\nfunction __wbg_new(a) {{ return IntoUnderlyingSink.__wrap(a); }}");
        assert_eq!(wrapped_stream_class(&wrapped), Some("IntoUnderlyingSink"));
    }

    /// wasm-bindgen's way of writing a stream class and its registry, shortened.
    fn stream_class(class: &str) -> String {
        let lower = class.to_ascii_lowercase();
        format!(
            "export class {class} {{\n    free() {{\n        {class}Finalization.unregister(this);\n        \
             wasm.__wbg_{lower}_free(ptr, 0);\n    }}\n}}\n\
             if (Symbol.dispose) {class}.prototype[Symbol.dispose] = {class}.prototype.free;\n"
        )
    }

    fn stream_registry(class: &str) -> String {
        let lower = class.to_ascii_lowercase();
        format!(
            "const {class}Finalization = (typeof FinalizationRegistry === 'undefined')\n    \
             ? {{ register: () => {{}}, unregister: () => {{}} }}\n    \
             : new FinalizationRegistry(ptr => wasm.__wbg_{lower}_free(ptr, 1));\n"
        )
    }

    #[test]
    fn the_stream_classes_and_their_registries_are_cut_from_the_glue_and_nothing_else() {
        let classes: String = STREAM_CLASSES.iter().map(|c| stream_class(c)).collect();
        let registries: String = STREAM_CLASSES.iter().map(|c| stream_registry(c)).collect();
        let glue = format!(
            "import * as import1 from \"./__wasm_split.js\"\n{classes}function __wbg_get_imports() {{}}\n\
             const __wbindgen_enum_ReadableStreamType = [\"bytes\"];\n{registries}\
             const CLOSURE_DTORS = (typeof FinalizationRegistry === 'undefined') ? 1 : 2;\n"
        );
        assert_eq!(
            without_stream_classes(&glue).unwrap(),
            "import * as import1 from \"./__wasm_split.js\"\nfunction __wbg_get_imports() {}\n\
             const __wbindgen_enum_ReadableStreamType = [\"bytes\"];\n\
             const CLOSURE_DTORS = (typeof FinalizationRegistry === 'undefined') ? 1 : 2;\n"
        );
    }

    #[test]
    fn a_glue_written_another_way_stops_the_build_naming_what_is_missing() {
        let error = without_stream_classes("export class IntoUnderlyingByteSource {}").unwrap_err();
        assert!(error.contains("IntoUnderlyingByteSource") && error.contains("Symbol.dispose"), "{error}");
        let no_registry: String = STREAM_CLASSES.iter().map(|c| stream_class(c)).collect();
        let error = without_stream_classes(&no_registry).unwrap_err();
        assert!(error.contains("IntoUnderlyingByteSourceFinalization"), "{error}");
    }

    #[test]
    fn the_loader_is_preloaded_right_after_the_glue_with_the_same_attributes() {
        let html = "<script type=module>import init from '/app-1.js';</script>\
            <link crossorigin href=/app-1.js rel=modulepreload><link as=fetch href=/app-1_bg.wasm rel=preload>";
        let preloaded = with_loader_preload(html, "app-1.js", "__wasm_split-2.js").unwrap();
        assert_eq!(
            preloaded,
            "<script type=module>import init from '/app-1.js';</script>\
            <link crossorigin href=/app-1.js rel=modulepreload>\
            <link crossorigin href=/__wasm_split-2.js rel=modulepreload>\
            <link as=fetch href=/app-1_bg.wasm rel=preload>"
        );
        assert!(with_loader_preload("<link href=/other.js rel=modulepreload>", "app-1.js", "l.js").is_err());
    }

    #[test]
    fn a_replacement_that_matches_nothing_fails_naming_the_pattern() {
        assert_eq!(
            replaced("import x from \"./a.js\"", "glue.js", "\"./a.js\"", "\"./b.js\"").unwrap(),
            "import x from \"./b.js\""
        );
        let refused = replaced("import x from './a.js'", "glue.js", "\"./a.js\"", "\"./b.js\"").unwrap_err();
        assert!(refused.contains("glue.js") && refused.contains("\"./a.js\""), "{refused}");
    }

    #[test]
    fn each_file_of_shared_code_is_fetched_with_its_sha256_as_integrity_and_each_page_names_its_own() {
        let pages = [Page { name: "list".into(), file: "split_list-1.wasm".into(), bundles: vec![0] }];
        let js = loader_head(&[Bundle::of(b"abc".to_vec()), Bundle::of(Vec::new())], &pages);
        let abc = hashed_name(SHARED_BUNDLE, b"abc");
        // SHA-256("abc") = ba7816bf…15ad, in base64; an empty file is named by nobody.
        let listed = format!(
            "const bundles = [[\"./{abc}\", \"sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=\"], [\"./\", "
        );
        assert!(js.starts_with(&listed), "{js}");
        assert!(js.contains("const pages = { list: [\"./split_list-1.wasm\", [0]] };"), "{js}");
    }

    /// wasm-split's loader, shortened: three shared pieces and three pages using them.
    const GENERATED: &str = "/* list, overview */\nconst __chunk_1 = makeLoad(() => {\n}, []);\n\
        /* overview, nodes */\nconst __chunk_2 = makeLoad(() => {\n}, []);\n\
        /* placement_reads, nodes */\nconst __chunk_3 = makeLoad(() => {\n}, []);\n\
        export const __wasm_split_load_overview = wrapAsyncCb(makeLoad(() => {\n    return 1;\n}\n, [__chunk_2, __chunk_1]));\n\
        export const __wasm_split_load_list = wrapAsyncCb(makeLoad(() => {\n    return 1;\n}\n, [__chunk_1]));\n\
        export const __wasm_split_load_placement_reads = wrapAsyncCb(makeLoad(() => {\n    return 1;\n}\n, [__chunk_3, __chunk_1]));\n";

    #[test]
    fn a_shared_piece_is_in_the_file_of_the_first_bundle_page_using_it_and_a_page_needs_the_files_of_its_pieces() {
        assert_eq!(piece_users(GENERATED, "chunk_2.wasm").unwrap(), ["overview", "nodes"]);
        assert_eq!(piece_bundle(GENERATED, "chunk_1.wasm").unwrap(), 0);
        assert_eq!(piece_bundle(GENERATED, "chunk_3.wasm").unwrap(), 1);
        assert_eq!(piece_bundle(GENERATED, "chunk_2.wasm").unwrap(), 2);
        assert_eq!(page_bundles(GENERATED, "overview").unwrap(), [0, 2]);
        assert_eq!(page_bundles(GENERATED, "list").unwrap(), [0]);
        assert_eq!(page_bundles(GENERATED, "placement_reads").unwrap(), [0, 1]);
        assert!(piece_users(GENERATED, "chunk_4.wasm").is_err());
        assert!(page_bundles(GENERATED, "nodes").is_err());
        assert_eq!(page_name("split_overview.wasm").unwrap(), "overview");
        assert!(page_name("chunk_1.wasm").is_err());
    }

    #[test]
    fn hashed_name_follows_the_content_and_keeps_the_extension() {
        let first = hashed_name("split_nodes.wasm", b"one");
        assert!(first.starts_with("split_nodes-") && first.ends_with(".wasm"), "{first}");
        assert_eq!(first, hashed_name("split_nodes.wasm", b"one"));
        assert_ne!(first, hashed_name("split_nodes.wasm", b"two"));
    }
}
