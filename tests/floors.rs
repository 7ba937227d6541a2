//! The floors of the console, kept by a test: every path into the crate written in `src/`
//! (`use crate::…`, `crate::x::f()`, `super::…`, a serde `with = "…"`) may point to its own
//! floor or one below, never up, and a page never names another page. Within a floor no two
//! files may need each other, directly or round a longer circle. Comments are not read.
//!
//! The floors are drawn in the README's "Where things live": `main.rs`/`lib.rs` on top,
//! then `pages/`, `components/`, `reads/`, `state.rs`, `router.rs`, `domain/`, `api/`, and
//! `browser.rs` at the bottom.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The floors, top to bottom: the one place they are written. A module is on the floor of
/// its first path segment; the crate root (`lib.rs`, `main.rs`) is on top.
const FLOORS: [&str; 9] = ["", "pages", "components", "reads", "state", "router", "domain", "api", "browser"];

/// The floor whose modules are leaves: none of them names another of them.
const LEAVES: &str = "pages";

/// The floor of a module path, 0 for the top; a first segment no floor names is the crate
/// root's own item (`crate::App`), on top.
fn floor(module: &[String]) -> usize {
    let first = module.first().map_or("", String::as_str);
    FLOORS.iter().position(|f| *f == first).unwrap_or(0)
}

fn floor_name(module: &[String]) -> &'static str {
    match FLOORS[floor(module)] {
        "" => "the crate root",
        name => name,
    }
}

/// One path into the crate, as written, and the module it names.
struct Reference {
    file: PathBuf,
    line: usize,
    text: String,
    /// The module of the file (and inline module) it is written in.
    from: Vec<String>,
    /// The module it names: the longest prefix of the path that is a file of `src/`.
    to: Vec<String>,
    /// Written inside `#[cfg(test)]`: a test may reach anything of its own floor.
    in_test: bool,
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is: `api/client.rs` and `api/client/mod.rs` are `api::client`.
fn file_module(file: &Path) -> Vec<String> {
    let relative = file.strip_prefix(src()).expect("under src/").with_extension("");
    let mut module: Vec<String> = relative.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    if matches!(module.last().map(String::as_str), Some("mod" | "lib" | "main")) {
        module.pop();
    }
    module
}

/// Rust source with comments blanked and every string literal replaced by `""`, except a
/// literal that is a path into the crate (serde's `with = "super::limits::count"`), which is
/// kept as a path. Line breaks stay where they were, so lines still count.
fn code_only(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut out = String::with_capacity(source.len());
    let mut i = 0;
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    while i < chars.len() {
        let rest = &chars[i..];
        if rest.starts_with(&['/', '/']) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i..].starts_with(&['/', '*']) {
                    depth += 1;
                    i += 2;
                    out.push_str("  ");
                } else if chars[i..].starts_with(&['*', '/']) {
                    depth -= 1;
                    i += 2;
                    out.push_str("  ");
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if chars[i] == '"'
            || (chars[i] == 'r' && matches!(rest.get(1), Some('"' | '#')) && !ident_before(&chars, i))
        {
            let hashes = if chars[i] == 'r' {
                i += 1;
                let start = i;
                while chars.get(i) == Some(&'#') {
                    i += 1;
                }
                i - start
            } else {
                0
            };
            if chars.get(i) != Some(&'"') {
                out.push('r');
                continue;
            }
            i += 1;
            let mut literal = String::new();
            while i < chars.len() {
                if hashes == 0 && chars[i] == '\\' {
                    literal.push(blank(chars[i + 1]));
                    i += 2;
                    continue;
                }
                if chars[i] == '"' && chars[i + 1..].iter().take(hashes).filter(|c| **c == '#').count() == hashes {
                    i += 1 + hashes;
                    break;
                }
                literal.push(chars[i]);
                i += 1;
            }
            let is_path = ["crate::", "super::", "self::"].iter().any(|p| literal.starts_with(p))
                && literal.chars().all(|c| c.is_alphanumeric() || c == '_' || c == ':');
            out.push(' ');
            out.extend(literal.chars().map(|c| if is_path || c == '\n' { c } else { ' ' }));
            out.push(' ');
        } else if chars[i] == '\'' && char_literal_len(rest).is_some() {
            let len = char_literal_len(rest).unwrap();
            out.extend(std::iter::repeat_n(' ', len));
            i += len;
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    out
}

fn ident_before(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

/// The length of a char literal starting at `rest[0] == '\''`, `None` for a lifetime.
fn char_literal_len(rest: &[char]) -> Option<usize> {
    match rest.get(1)? {
        '\\' => rest.iter().skip(3).position(|c| *c == '\'').map(|p| p + 4),
        _ if rest.get(2) == Some(&'\'') => Some(3),
        _ => None,
    }
}

/// A word of the source: an identifier, `::`, or one other character.
#[derive(Clone, Debug, PartialEq)]
struct Token {
    text: String,
    line: usize,
}

fn tokens(code: &str) -> Vec<Token> {
    let mut out = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let start = i;
            if c.is_alphanumeric() || c == '_' {
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            } else if chars[i..].starts_with(&[':', ':']) {
                i += 2;
            } else {
                i += 1;
                if c.is_whitespace() {
                    continue;
                }
            }
            out.push(Token { text: chars[start..i].iter().collect(), line: n + 1 });
        }
    }
    out
}

fn is_ident(token: Option<&Token>) -> bool {
    token.is_some_and(|t| t.text.starts_with(|c: char| c.is_alphabetic() || c == '_'))
}

/// The paths a use tree starting at `tokens[at]` names (`a::b::{c, d::e}` is `a::b::c` and
/// `a::b::d::e`), and the index just past it.
fn use_tree(tokens: &[Token], mut at: usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) -> usize {
    let mut path = prefix;
    loop {
        match tokens.get(at) {
            Some(t) if t.text == "{" => {
                at += 1;
                while tokens.get(at).is_some_and(|t| t.text != "}") {
                    at = use_tree(tokens, at, path.clone(), out);
                    if tokens.get(at).is_some_and(|t| t.text == ",") {
                        at += 1;
                    }
                }
                return at + 1;
            }
            Some(t) if t.text == "*" => {
                out.push(path);
                return at + 1;
            }
            Some(t) if is_ident(Some(t)) => {
                path.push(t.text.clone());
                at += 1;
                if tokens.get(at).is_some_and(|t| t.text == "::") {
                    at += 1;
                    continue;
                }
                if tokens.get(at).is_some_and(|t| t.text == "as") {
                    at += 2;
                }
                out.push(path);
                return at;
            }
            _ => {
                out.push(path);
                return at;
            }
        }
    }
}

/// Where `path` (as written in `module`) points from the crate root, or `None` for a path
/// outside the crate (`std::…`, a dependency, a local name).
fn absolute(path: &[String], module: &[String], children: &BTreeSet<Vec<String>>, in_use: bool) -> Option<Vec<String>> {
    let mut here = module.to_vec();
    let mut rest = path;
    match rest.first()?.as_str() {
        "crate" => {
            here.clear();
            rest = &rest[1..];
        }
        "self" => rest = &rest[1..],
        "super" => {
            while rest.first().is_some_and(|s| s == "super") {
                here.pop();
                rest = &rest[1..];
            }
        }
        first => {
            // Since 2018 a `use` may name a child module without `self::`.
            let mut child = here.clone();
            child.push(first.to_owned());
            if !(in_use && children.contains(&child)) {
                return None;
            }
        }
    }
    here.extend(rest.iter().cloned());
    Some(here)
}

/// The longest prefix of `path` that is a file of `src/` (an item of `api::models::tests`
/// lives in `api::models`).
fn owning_file(path: &[String], files: &BTreeSet<Vec<String>>) -> Vec<String> {
    (0..=path.len()).rev().map(|n| path[..n].to_vec()).find(|p| files.contains(p)).unwrap_or_default()
}

/// Every path into the crate in `file`, with the module each names.
fn references(file: &Path, files: &BTreeSet<Vec<String>>, children: &BTreeSet<Vec<String>>) -> Vec<Reference> {
    let source = fs::read_to_string(file).expect("a source file");
    let lines: Vec<&str> = source.lines().collect();
    let tokens = tokens(&code_only(&source));
    let file_module = file_module(file);
    // Inline modules open here: (brace depth at their `{`, name, under `#[cfg(test)]`).
    let mut open: Vec<(usize, String, bool)> = Vec::new();
    let (mut depth, mut test_attribute, mut out) = (0usize, false, Vec::new());
    let mut at = 0;
    while at < tokens.len() {
        let token = &tokens[at];
        let module: Vec<String> =
            file_module.iter().cloned().chain(open.iter().map(|(_, name, _)| name.clone())).collect();
        let in_test = open.iter().any(|(_, _, test)| *test);
        match token.text.as_str() {
            "{" => {
                depth += 1;
                test_attribute = false;
            }
            "}" => {
                depth -= 1;
                test_attribute = false;
                if open.last().is_some_and(|(d, _, _)| *d == depth) {
                    open.pop();
                }
            }
            "cfg" if tokens.get(at + 2).is_some_and(|t| t.text == "test") => test_attribute = true,
            "mod" if is_ident(tokens.get(at + 1)) && tokens.get(at + 2).is_some_and(|t| t.text == "{") => {
                open.push((depth, tokens[at + 1].text.clone(), test_attribute));
                test_attribute = false;
                depth += 1;
                at += 3;
                continue;
            }
            ";" => test_attribute = false,
            _ => {}
        }
        let starts_use = token.text == "use";
        let starts_path = matches!(token.text.as_str(), "crate" | "super" | "self")
            && tokens.get(at + 1).is_some_and(|t| t.text == "::")
            && tokens.get(at.wrapping_sub(1)).is_none_or(|t| t.text != "::");
        if starts_use || starts_path {
            let mut paths = Vec::new();
            let next = use_tree(&tokens, at + usize::from(starts_use), Vec::new(), &mut paths);
            for path in paths {
                if let Some(target) = absolute(&path, &module, children, starts_use) {
                    out.push(Reference {
                        file: file.to_owned(),
                        line: token.line,
                        text: lines[token.line - 1].trim().to_owned(),
                        from: module.clone(),
                        to: owning_file(&target, files),
                        in_test,
                    });
                }
            }
            at = next.max(at + 1);
            continue;
        }
        at += 1;
    }
    out
}

/// Every path into the crate written in `src/`.
fn all_references() -> Vec<Reference> {
    let mut sources = Vec::new();
    rust_files(&src(), &mut sources);
    sources.sort();
    let files: BTreeSet<Vec<String>> = sources.iter().map(|f| file_module(f)).collect();
    sources.iter().flat_map(|file| references(file, &files, &files)).collect()
}

fn place(r: &Reference) -> String {
    format!("{}:{}: `{}`", r.file.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap_or(&r.file).display(), r.line, r.text)
}

/// Why `r` breaks a floor, or `None` when it keeps them.
fn broken_floor(r: &Reference) -> Option<String> {
    let (from, to) = (floor(&r.from), floor(&r.to));
    if to < from {
        return Some(format!(
            "{} (floor {} of {}) points up to {} (floor {}): a module imports its own floor or those below it",
            floor_name(&r.from),
            from + 1,
            FLOORS.len(),
            r.to.join("::"),
            to + 1
        ));
    }
    let page = |m: &[String]| (m.first().is_some_and(|f| f == LEAVES) && m.len() > 1).then(|| m[1].clone());
    match (page(&r.from), page(&r.to)) {
        (Some(from), Some(to)) if from != to => Some(format!("page `{from}` names page `{to}`: {LEAVES} are leaves")),
        _ => None,
    }
}

#[test]
fn no_path_in_src_points_up_a_floor_or_from_one_page_to_another() {
    let broken: Vec<String> =
        all_references().iter().filter_map(|r| broken_floor(r).map(|why| format!("{}\n    {why}", place(r)))).collect();
    assert!(broken.is_empty(), "{} paths break the floors:\n{}", broken.len(), broken.join("\n"));
}

#[test]
fn no_two_files_of_a_floor_need_each_other() {
    // file -> file it names -> the first place it does, outside tests, within one floor. A
    // folder's `mod.rs` presents its own files (`pub use`): its paths into them are not counted.
    let mut edges: BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>> = BTreeMap::new();
    for r in all_references().iter().filter(|r| !r.in_test) {
        let from = file_module(&r.file);
        if !r.to.starts_with(&from) && floor(&from) == floor(&r.to) {
            edges.entry(from).or_default().entry(r.to.clone()).or_insert_with(|| place(r));
        }
    }
    let circles: Vec<String> = circles(&edges)
        .iter()
        .map(|circle| {
            let names: Vec<String> = circle.iter().map(|m| m.join("::")).collect();
            let steps: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    edges[from].iter().filter(|(to, _)| circle.contains(to)).map(|(_, at)| format!("    {at}"))
                })
                .collect();
            format!("{}\n{}", names.join(" <-> "), steps.join("\n"))
        })
        .collect();
    assert!(circles.is_empty(), "{} circles of files that need each other:\n{}", circles.len(), circles.join("\n"));
}

/// The strongly connected groups of more than one file (Tarjan).
fn circles(edges: &BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>) -> Vec<Vec<Vec<String>>> {
    struct Walk<'a> {
        edges: &'a BTreeMap<Vec<String>, BTreeMap<Vec<String>, String>>,
        index: BTreeMap<&'a Vec<String>, (usize, usize)>,
        stack: Vec<&'a Vec<String>>,
        found: Vec<Vec<Vec<String>>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, node: &'a Vec<String>) {
            let n = self.index.len();
            self.index.insert(node, (n, n));
            self.stack.push(node);
            for next in self.edges.get(node).into_iter().flat_map(BTreeMap::keys) {
                let low = match self.index.get(next) {
                    None => {
                        self.visit(next);
                        self.index[next].1
                    }
                    Some(&(i, _)) if self.stack.contains(&next) => i,
                    Some(_) => continue,
                };
                let entry = self.index.get_mut(node).unwrap();
                entry.1 = entry.1.min(low);
            }
            if self.index[node].0 == self.index[node].1 {
                let at = self.stack.iter().position(|m| *m == node).unwrap();
                let group: Vec<Vec<String>> = self.stack.split_off(at).into_iter().cloned().collect();
                if group.len() > 1 {
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk { edges, index: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for node in edges.keys() {
        if !walk.index.contains_key(node) {
            walk.visit(node);
        }
    }
    walk.found
}
