//! Every text and wasm file of the build written again beside itself as `.br` (brotli,
//! quality 11) and `.gz` (gzip, level 9), for a server that sends a browser the encoding it
//! accepts without compressing on each request (the simulator's static files, nginx's
//! `brotli_static`/`gzip_static`); and the table of what each file weighs.

use std::path::Path;

/// What is worth compressing: text and wasm (`bin`: the pages' shared wasm, in one file).
/// Images (the SVG icon aside) are not in the build.
const EXTENSIONS: [&str; 8] = ["html", "js", "css", "wasm", "bin", "svg", "txt", "json"];

/// One file of the build and its weight each way.
#[derive(Clone, Debug, PartialEq)]
pub struct Weighed {
    pub name: String,
    pub raw: usize,
    pub gzip: usize,
    pub brotli: usize,
    /// Fetched by a first load of the console (named by `index.html` and not `disabled`).
    pub first_load: bool,
}

/// Writes `NAME.br` and `NAME.gz` beside each file of `dist` (replacing those of an
/// earlier build) and returns their weights, largest brotli first.
pub fn precompress(dist: &Path) -> crate::Result<Vec<Weighed>> {
    let failed = |what: &str, path: &Path, e: std::io::Error| format!("{what} {}: {e}", path.display());
    let index = std::fs::read_to_string(dist.join("index.html")).map_err(|e| failed("reading", dist, e))?;
    let first = first_load(&index);
    let mut weighed = Vec::new();
    let entries = std::fs::read_dir(dist).map_err(|e| failed("listing", dist, e))?;
    let mut names: Vec<String> = entries.flatten().filter_map(|e| e.file_name().into_string().ok()).collect();
    names.sort();
    for name in names {
        let path = dist.join(&name);
        if name.ends_with(".br") || name.ends_with(".gz") {
            std::fs::remove_file(&path).map_err(|e| failed("removing", &path, e))?;
            continue;
        }
        let compressible = name.rsplit_once('.').is_some_and(|(_, ext)| EXTENSIONS.contains(&ext));
        if !compressible || !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(&path).map_err(|e| failed("reading", &path, e))?;
        let (gzip, brotli) = (compress::gzip(&bytes), compress::brotli(&bytes));
        for (encoded, suffix) in [(&gzip, "gz"), (&brotli, "br")] {
            let out = dist.join(format!("{name}.{suffix}"));
            std::fs::write(&out, encoded).map_err(|e| failed("writing", &out, e))?;
        }
        let first_load = first.contains(&name);
        weighed.push(Weighed { name, raw: bytes.len(), gzip: gzip.len(), brotli: brotli.len(), first_load });
    }
    weighed.sort_by(|a, b| b.brotli.cmp(&a.brotli).then_with(|| a.name.cmp(&b.name)));
    Ok(weighed)
}

/// The files a first load fetches: `index.html`, and every file its tags and start-up
/// script name (`href=…`, `'/….js'`, `'/…_bg.wasm'`), but for `disabled` stylesheets (a
/// page turns them on when it needs them). Names without the leading `/`.
pub fn first_load(index: &str) -> Vec<String> {
    let mut files = vec!["index.html".to_owned()];
    for tag in index.split('<').filter(|tag| !tag.split_ascii_whitespace().any(|word| word == "disabled")) {
        let quoted = tag.split(['\'', '"', '=', ' ', '>', '(', ')', ',']);
        for word in quoted.filter_map(|word| word.strip_prefix('/')) {
            let is_file =
                word.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext));
            if is_file && !word.contains('/') && !files.iter().any(|f| f == word) {
                files.push(word.to_owned());
            }
        }
    }
    files
}

/// The weight table `cargo xtask dist` prints: each file raw / gzip / brotli in KB, the
/// first load's files marked, and the first load's total.
pub fn table(weighed: &[Weighed]) -> String {
    let kb = |bytes: usize| format!("{:.1}", bytes as f64 / 1000.0);
    let mut out = format!("{:<48} {:>9} {:>9} {:>9}\n", "file (* = first load)", "raw KB", "gzip KB", "brotli KB");
    for w in weighed {
        let name = format!("{}{}", if w.first_load { "* " } else { "  " }, w.name);
        out.push_str(&format!("{name:<48} {:>9} {:>9} {:>9}\n", kb(w.raw), kb(w.gzip), kb(w.brotli)));
    }
    let first: Vec<&Weighed> = weighed.iter().filter(|w| w.first_load).collect();
    let sum = |f: fn(&Weighed) -> usize| first.iter().map(|w| f(w)).sum::<usize>();
    out.push_str(&format!(
        "{:<48} {:>9} {:>9} {:>9}\n",
        format!("first load ({} files)", first.len()),
        kb(sum(|w| w.raw)),
        kb(sum(|w| w.gzip)),
        kb(sum(|w| w.brotli))
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = r#"<!doctype html><html lang=en><link href=/favicon-3a0a.svg rel=icon><link href=/main-4ae9.css rel=stylesheet><link disabled href=/nodes-64d8.css id=style-nodes rel=stylesheet><script type=module>import init, * as bindings from '/reservations-console-37fd.js';
const wasm = await init({ module_or_path: '/reservations-console-37fd_bg.wasm' });</script><link crossorigin href=/reservations-console-37fd.js rel=modulepreload><link crossorigin href=/__wasm_split-fd21.js rel=modulepreload></head></html>"#;

    #[test]
    fn the_first_load_is_the_page_and_what_it_names_but_disabled_stylesheets() {
        assert_eq!(
            first_load(INDEX),
            [
                "index.html",
                "favicon-3a0a.svg",
                "main-4ae9.css",
                "reservations-console-37fd.js",
                "reservations-console-37fd_bg.wasm",
                "__wasm_split-fd21.js"
            ]
        );
    }

    #[test]
    fn every_text_and_wasm_file_gets_a_br_and_a_gz_beside_it_and_old_ones_go() {
        let dist = std::env::temp_dir().join(format!("precompress-test-{}", std::process::id()));
        std::fs::create_dir_all(&dist).unwrap();
        std::fs::write(dist.join("index.html"), "<link href=/a-1.css rel=stylesheet>".repeat(50)).unwrap();
        std::fs::write(dist.join("a-1.css"), "body { color: red }\n".repeat(50)).unwrap();
        std::fs::write(dist.join("stale-0.css.br"), "left by an earlier build").unwrap();
        std::fs::write(dist.join("photo.png"), [0u8, 1, 2]).unwrap();
        let weighed = precompress(&dist).unwrap();
        let mut names: Vec<String> =
            std::fs::read_dir(&dist).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        std::fs::remove_dir_all(&dist).unwrap();
        assert_eq!(
            names,
            ["a-1.css", "a-1.css.br", "a-1.css.gz", "index.html", "index.html.br", "index.html.gz", "photo.png"]
        );
        assert_eq!(weighed.len(), 2);
        assert!(weighed.iter().all(|w| w.first_load && w.brotli < w.raw && w.gzip < w.raw), "{weighed:?}");
        let table = table(&weighed);
        assert!(table.lines().last().unwrap().starts_with("first load (2 files)"), "{table}");
    }
}
