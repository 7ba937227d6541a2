//! What modules import: short names for what the main module imports from its glue, and
//! one provider of the main module's memory, table and globals for shared pieces merged into
//! one module ([`reexporting`]).
//!
//! wasm-bindgen names each import after the JavaScript it calls and a hash
//! (`__wbg_new_with_str_and_init_d9f6b5611184e16b`), and writes every name twice: in the
//! wasm's import section and as a key of the glue's import object. Two hundred of them
//! weighed 4.3 KB of the first load's brotli (2.3 in the wasm, 2.0 in the glue): hashes
//! do not compress. Both sides are rewritten here with the same short names (`a`, `b`, …
//! `ab`), so nothing else changes: the glue still hands the same functions to the same
//! imports. A name the glue does not hold exactly once as a key fails the build.

use crate::Result;

/// `wasm` and `glue` with every import of `module` (the glue's own, `./<stem>_bg.js`)
/// renamed to a short name in both.
pub fn shortened(wasm: &[u8], glue: &str, module: &str) -> Result<(Vec<u8>, String)> {
    let mut renamed = Vec::new();
    let wasm = with_import_names(wasm, |import_module, name| {
        if import_module != module.as_bytes() {
            return None;
        }
        let short = short_name(renamed.len());
        renamed.push((String::from_utf8_lossy(name).into_owned(), short.clone()));
        Some((import_module.to_vec(), short.into_bytes()))
    })?;
    let mut glue = glue.to_owned();
    for (name, short) in &renamed {
        let key = format!("\n        {name}: function");
        if glue.matches(&key).count() != 1 || glue.matches(name.as_str()).count() != 1 {
            return Err(format!("the glue does not hold the import {name} once, as a key: its generator changed"));
        }
        glue = glue.replace(&key, &format!("\n        {short}: function"));
    }
    Ok((wasm, glue))
}

/// `a`…`z`, `A`…`Z`, then `ab`, `bb`, …: a JavaScript identifier for each index.
fn short_name(mut index: usize) -> String {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let mut name = vec![LETTERS[index % 52]];
    index /= 52;
    while index > 0 {
        name.push(LETTERS[index % 52]);
        index /= 52;
    }
    String::from_utf8(name).expect("ASCII letters")
}

/// `wasm` with every import of `from` imported from `to` instead, every other byte as it
/// was: for modules merged into one, all to take one provider's ([`reexporting`]).
pub fn imports_moved(wasm: &[u8], from: &str, to: &str) -> Result<Vec<u8>> {
    with_import_names(wasm, |module, name| (module == from.as_bytes()).then(|| (to.as_bytes().to_vec(), name.to_vec())))
}

/// A module that imports what `modules` import from `module`, each once, and exports each
/// under its name. wasm-merge gives each merged module's imports their own, and two
/// imported memories are two memories: with every module importing from this one instead
/// ([`imports_moved`]), the merged module imports the memory, the table and the globals
/// once. Only tables, memories and globals: a function would need its type declared.
pub fn reexporting(modules: &[Vec<u8>], module: &str) -> Result<Vec<u8>> {
    let mut imports: Vec<(&[u8], &[u8])> = Vec::new();
    for wasm in modules {
        for (_, body) in sections(wasm)?.into_iter().filter(|(id, _)| *id == IMPORTS) {
            for import in imports_of(body)? {
                if import.module == module.as_bytes() && !imports.iter().any(|(known, _)| *known == import.name) {
                    imports.push((import.name, import.description));
                }
            }
        }
    }
    let (mut import_section, mut export_section) = (Vec::new(), Vec::new());
    write_u32(&mut import_section, imports.len());
    write_u32(&mut export_section, imports.len());
    let mut of_kind = [0usize; 4];
    for (name, description) in &imports {
        let kind = description[0];
        if !(1..=3).contains(&kind) {
            return Err(format!("{module} gives an import of kind {kind}, which a re-exporting module cannot"));
        }
        write_import(&mut import_section, module.as_bytes(), name, description);
        write_bytes(&mut export_section, name);
        export_section.push(kind);
        write_u32(&mut export_section, of_kind[kind as usize]);
        of_kind[kind as usize] += 1;
    }
    let mut out = HEADER.to_vec();
    write_section(&mut out, IMPORTS, &import_section);
    write_section(&mut out, EXPORTS, &export_section);
    Ok(out)
}

const HEADER: &[u8] = b"\0asm\x01\0\0\0";
const IMPORTS: u8 = 2;
const EXPORTS: u8 = 7;

/// The sections of `wasm`, in order: each one's id and body.
fn sections(wasm: &[u8]) -> Result<Vec<(u8, &[u8])>> {
    if !wasm.starts_with(HEADER) {
        return Err("not a wasm module".into());
    }
    let mut at = Reader { bytes: wasm, at: HEADER.len() };
    let mut sections = Vec::new();
    while at.at < wasm.len() {
        sections.push((at.byte()?, at.bytes()?));
    }
    Ok(sections)
}

/// One import as an import section writes it.
struct Import<'a> {
    module: &'a [u8],
    name: &'a [u8],
    /// Its kind and type, as written.
    description: &'a [u8],
}

/// The imports an import section's body lists.
fn imports_of(section: &[u8]) -> Result<Vec<Import<'_>>> {
    let mut at = Reader { bytes: section, at: 0 };
    let mut imports = Vec::new();
    for _ in 0..at.u32()? {
        let (module, name) = (at.bytes()?, at.bytes()?);
        let described = at.at;
        at.import_description()?;
        imports.push(Import { module, name, description: &section[described..at.at] });
    }
    Ok(imports)
}

/// `wasm` with the module and name of each import that `rename(module, name)` gives new
/// ones for replaced; every other byte as it was.
fn with_import_names(
    wasm: &[u8],
    mut rename: impl FnMut(&[u8], &[u8]) -> Option<(Vec<u8>, Vec<u8>)>,
) -> Result<Vec<u8>> {
    let mut out = HEADER.to_vec();
    for (id, body) in sections(wasm)? {
        let body = if id == IMPORTS { imports_renamed(body, &mut rename)? } else { body.to_vec() };
        write_section(&mut out, id, &body);
    }
    Ok(out)
}

fn imports_renamed(
    section: &[u8],
    rename: &mut impl FnMut(&[u8], &[u8]) -> Option<(Vec<u8>, Vec<u8>)>,
) -> Result<Vec<u8>> {
    let imports = imports_of(section)?;
    let mut out = Vec::with_capacity(section.len());
    write_u32(&mut out, imports.len());
    for import in imports {
        let (module, name) =
            rename(import.module, import.name).unwrap_or_else(|| (import.module.to_vec(), import.name.to_vec()));
        write_import(&mut out, &module, &name, import.description);
    }
    Ok(out)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8> {
        let byte = *self.bytes.get(self.at).ok_or("the wasm ends inside a section")?;
        self.at += 1;
        Ok(byte)
    }

    /// An unsigned LEB128 number (u32 or u64 alike).
    fn u64(&mut self) -> Result<u64> {
        let (mut value, mut shift) = (0u64, 0);
        loop {
            let byte = self.byte()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Ok(value);
            }
            shift += 7;
            if shift > 63 {
                return Err("a number in the wasm is too long".into());
            }
        }
    }

    fn u32(&mut self) -> Result<u32> {
        u32::try_from(self.u64()?).map_err(|_| "a count in the wasm is past u32".into())
    }

    /// A length-prefixed run of bytes (a name, a section's body).
    fn bytes(&mut self) -> Result<&'a [u8]> {
        let len = self.u32()? as usize;
        let bytes = self.bytes.get(self.at..self.at + len).ok_or("the wasm ends inside a name")?;
        self.at += len;
        Ok(bytes)
    }

    /// Skips what an import is: a function's type, a table, a memory, a global or a tag.
    fn import_description(&mut self) -> Result {
        match self.byte()? {
            0 => self.u32().map(drop),
            1 => {
                self.byte()?;
                self.limits()
            }
            2 => self.limits(),
            3 => {
                self.byte()?;
                self.byte().map(drop)
            }
            4 => {
                self.byte()?;
                self.u32().map(drop)
            }
            kind => Err(format!("an import of kind {kind}, which this does not read")),
        }
    }

    fn limits(&mut self) -> Result {
        let flags = self.byte()?;
        self.u64()?;
        if flags & 1 != 0 {
            self.u64()?;
        }
        if flags & 8 != 0 {
            self.u32()?;
        }
        Ok(())
    }
}

/// One import as an import section lists it: its module, its name, its kind and type.
fn write_import(out: &mut Vec<u8>, module: &[u8], name: &[u8], description: &[u8]) {
    write_bytes(out, module);
    write_bytes(out, name);
    out.extend_from_slice(description);
}

/// A section: its id, then its body after the body's length.
fn write_section(out: &mut Vec<u8>, id: u8, body: &[u8]) {
    out.push(id);
    write_bytes(out, body);
}

/// `bytes` after their length, as wasm writes a name or a section's body.
fn write_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    write_u32(out, bytes.len());
    out.extend_from_slice(bytes);
}

fn write_u32(out: &mut Vec<u8>, value: usize) {
    let mut value = value as u64;
    loop {
        let byte = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GLUE_MODULE: &str = "./console_bg.js";

    /// A module importing two functions from the glue, one from elsewhere, and a memory.
    fn module() -> Vec<u8> {
        let mut imports = Vec::new();
        write_u32(&mut imports, 4);
        let entry = |imports: &mut Vec<u8>, module: &str, name: &str, description: &[u8]| {
            write_import(imports, module.as_bytes(), name.as_bytes(), description)
        };
        entry(&mut imports, GLUE_MODULE, "__wbg_now_043d245551b22f9a", &[0, 1]);
        entry(&mut imports, "./__wasm_split.js", "__wasm_split_load_nodes", &[0, 0]);
        entry(&mut imports, GLUE_MODULE, "__wbg_fetch_0123456789abcdef", &[0, 2]);
        entry(&mut imports, "env", "memory", &[2, 1, 17, 200, 1]);
        let mut wasm = HEADER.to_vec();
        // A type section before, a custom section after: both kept as they are.
        wasm.extend_from_slice(&[1, 4, 1, 0x60, 0, 0]);
        write_section(&mut wasm, IMPORTS, &imports);
        wasm.extend_from_slice(&[0, 3, 2, b'h', b'i']);
        wasm
    }

    fn glue() -> String {
        "const import0 = {\n        __wbg_now_043d245551b22f9a: function() {\n            return Date.now();\n        },\
         \n        __wbg_fetch_0123456789abcdef: function(a) {\n            return fetch(a);\n        },\n    };"
            .to_owned()
    }

    fn import_names(wasm: &[u8]) -> Vec<(String, String)> {
        let mut names = Vec::new();
        with_import_names(wasm, |module, name| {
            names.push((String::from_utf8_lossy(module).into_owned(), String::from_utf8_lossy(name).into_owned()));
            None
        })
        .unwrap();
        names
    }

    #[test]
    fn the_glues_imports_get_short_names_in_the_wasm_and_the_glue_alike() {
        let (wasm, glue) = shortened(&module(), &glue(), GLUE_MODULE).unwrap();
        let names = import_names(&wasm);
        assert_eq!(names[0], (GLUE_MODULE.to_owned(), "a".to_owned()));
        assert_eq!(names[2], (GLUE_MODULE.to_owned(), "b".to_owned()));
        assert!(glue.contains("\n        a: function() {\n            return Date.now();"), "{glue}");
        assert!(glue.contains("\n        b: function(a) {\n            return fetch(a);"), "{glue}");
        assert!(!glue.contains("__wbg_"), "{glue}");
    }

    #[test]
    fn other_modules_imports_and_every_other_byte_stay_as_they_were() {
        let before = module();
        let (after, _) = shortened(&before, &glue(), GLUE_MODULE).unwrap();
        let names = import_names(&after);
        assert_eq!(names[1], ("./__wasm_split.js".to_owned(), "__wasm_split_load_nodes".to_owned()));
        assert_eq!(names[3], ("env".to_owned(), "memory".to_owned()));
        assert_eq!(&after[..14], &before[..14], "header and type section");
        assert!(after.ends_with(&[0, 3, 2, b'h', b'i']), "the custom section after");
        // Renaming nothing gives the module back byte for byte.
        assert_eq!(with_import_names(&before, |_, _| None).unwrap(), before);
    }

    #[test]
    fn an_import_the_glue_does_not_hold_once_as_a_key_fails_the_build() {
        let missing = glue().replace("__wbg_fetch_0123456789abcdef: function", "fetch_0123: function");
        let error = shortened(&module(), &missing, GLUE_MODULE).unwrap_err();
        assert!(error.contains("__wbg_fetch_0123456789abcdef"), "{error}");
        let twice = format!("{}\nwasm.__wbg_now_043d245551b22f9a();", glue());
        assert!(shortened(&module(), &twice, GLUE_MODULE).is_err());
    }

    /// A piece as wasm-split writes one: the memory, the table and a global of the main
    /// module, imported from `__wasm_split` (only those it uses: here `table` is optional).
    fn piece(with_table: bool) -> Vec<u8> {
        let mut imports = Vec::new();
        write_u32(&mut imports, if with_table { 3 } else { 2 });
        let mut entry =
            |name: &str, description: &[u8]| write_import(&mut imports, b"__wasm_split", name.as_bytes(), description);
        entry("memory", &[2, 0, 19]);
        if with_table {
            entry("__indirect_function_table", &[1, 0x70, 0, 0x90, 0x1f]);
        }
        entry("__wasm_split_shared0", &[3, 0x7f, 1]);
        let mut wasm = HEADER.to_vec();
        write_section(&mut wasm, IMPORTS, &imports);
        wasm
    }

    #[test]
    fn pieces_take_their_imports_from_one_module_that_imports_each_once_and_exports_it() {
        let moved = imports_moved(&piece(false), "__wasm_split", "provider").unwrap();
        let names = import_names(&moved);
        assert_eq!(names, [("provider".into(), "memory".into()), ("provider".into(), "__wasm_split_shared0".into())]);

        let provider = reexporting(&[piece(false), piece(true), piece(true)], "__wasm_split").unwrap();
        let names: Vec<String> = import_names(&provider).into_iter().map(|(_, name)| name).collect();
        assert_eq!(names, ["memory", "__wasm_split_shared0", "__indirect_function_table"]);
        // Its export section, last: each import under its name, with its kind and its index
        // among the imports of that kind (each the first of its kind).
        let body = [
            &[3, 6][..],
            b"memory",
            &[2, 0, 20],
            b"__wasm_split_shared0",
            &[3, 0, 25],
            b"__indirect_function_table",
            &[1, 0],
        ]
        .concat();
        assert!(provider.ends_with(&[&[EXPORTS, body.len() as u8][..], &body].concat()), "{provider:?}");
        assert!(reexporting(&[module()], "./__wasm_split.js").is_err(), "a function cannot be re-exported");
    }

    #[test]
    fn short_names_are_distinct_identifiers() {
        let names: Vec<String> = (0..3000).map(short_name).collect();
        let distinct: std::collections::HashSet<&String> = names.iter().collect();
        assert_eq!(distinct.len(), names.len());
        assert_eq!((names[0].as_str(), names[51].as_str(), names[52].as_str()), ("a", "Z", "ab"));
        assert!(names.iter().all(|n| n.bytes().all(|b| b.is_ascii_alphabetic())));
    }
}
