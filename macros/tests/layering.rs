//! The classic lowering's modules import downward only: the questions asked of syntax first,
//! then parsing (the body as a tree of awaits), then the analyses of that tree, then the code
//! generation. Read from the sources of `macros/src/classic`: every `crate::classic::..` and
//! `super::..` path a file names is resolved to the module it reaches, and a path to a later
//! layer fails here, naming the file, the path and both layers.

use std::path::{Path, PathBuf};

/// The layers, lowest first, each by the top-level modules of `classic` it holds.
const LAYERS: [(&str, &[&str]); 5] = [
    ("syntax", &["syntax", "hints", "signature"]),
    ("parse", &["parse"]),
    ("analyse", &["analyse"]),
    ("generate", &["generate", "twin"]),
    ("expand", &["mod"]),
];

fn layer_of(top: &str) -> usize {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&top))
        .unwrap_or_else(|| panic!("classic::{top} is in no layer: add it to LAYERS"))
}

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            out.push(path);
        }
    }
}

/// The module path of a file below `classic/` (`parse/lower/mod.rs` is `["parse", "lower"]`,
/// `mod.rs` is `[]`).
fn module_of(relative: &Path) -> Vec<String> {
    let mut parts: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    if last != "mod.rs" {
        parts.push(last.trim_end_matches(".rs").to_owned());
    }
    parts
}

/// The code of `text` without comments (a path in prose is not an import).
fn code(text: &str) -> String {
    text.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The modules below `classic` that `text`, the code of module `module`, names: the first
/// segment after `crate::classic::`, or after resolving a chain of `super::`.
fn named_modules(module: &[String], text: &str) -> Vec<(String, String)> {
    let mut named = Vec::new();
    let ident = |rest: &str| -> String { rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect() };
    for (at, _) in text.match_indices("crate::classic::") {
        let rest = &text[at + "crate::classic::".len()..];
        named.push((ident(rest), text[at..].chars().take(60).collect()));
    }
    for (at, _) in text.match_indices("super::") {
        // The start of a `super::super::..` chain only.
        if text[..at].ends_with("super::") || text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let mut rest = &text[at..];
        let mut depth = 0;
        while let Some(after) = rest.strip_prefix("super::") {
            depth += 1;
            rest = after;
        }
        // A file's module is its own path; `super` is its parent.
        if depth > module.len() {
            continue;
        }
        let base = &module[..module.len() - depth];
        let target = match base.first() {
            Some(top) => top.clone(),
            None => {
                let next = ident(rest);
                if next.is_empty() {
                    continue;
                }
                next
            }
        };
        named.push((target, text[at..].chars().take(60).collect()));
    }
    named
}

#[test]
fn classic_modules_import_downward_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/classic");
    let mut files = Vec::new();
    sources(&root, &mut files);
    files.sort();
    let mut upward = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(&root).unwrap();
        let module = module_of(relative);
        let own = module.first().map_or("mod", String::as_str);
        let own_layer = layer_of(own);
        let text = code(&std::fs::read_to_string(file).unwrap());
        for (target, path) in named_modules(&module, &text) {
            if target.is_empty() || target == own {
                continue;
            }
            // A glob or a name of `classic` itself (`super::Config` from `generate`) is the
            // expand layer's: `mod.rs` holds no module of its own to import.
            let target_layer = if LAYERS.iter().any(|(_, modules)| modules.contains(&target.as_str())) {
                layer_of(&target)
            } else {
                4
            };
            if target_layer > own_layer {
                upward.push(format!(
                    "{} ({}) names {} ({}): `{}`",
                    relative.display(),
                    LAYERS[own_layer].0,
                    target,
                    LAYERS[target_layer].0,
                    path.lines().next().unwrap_or_default()
                ));
            }
        }
    }
    assert!(upward.is_empty(), "imports to a later layer:\n{}", upward.join("\n"));
    // The test reads real files: it found the modules it is about.
    assert!(files.len() > 30, "{} files under {}", files.len(), root.display());
}

/// No file of the macro does two jobs' worth of code: the largest stays under 700 lines, so
/// that a module that grows splits (as `places`, `emit`, `loans` and `lower` did) instead.
#[test]
fn no_file_over_700_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let long: Vec<String> = files
        .iter()
        .map(|file| (std::fs::read_to_string(file).unwrap().lines().count(), file))
        .filter(|(lines, _)| *lines > 700)
        .map(|(lines, file)| format!("{} ({lines} lines)", file.strip_prefix(&root).unwrap().display()))
        .collect();
    assert!(long.is_empty(), "files over 700 lines: {long:?}");
    assert!(files.len() > 40, "the test reads the macro's sources: {} files", files.len());
}

/// No struct of the macro carries a dozen facts at once: one with more fields than 12 is a
/// type that decides too much (the emitter once had 28), and splits into the parts it holds.
#[test]
fn no_struct_over_12_fields() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&root, &mut files);
    let mut wide = Vec::new();
    let mut structs = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let parsed = syn::parse_file(&text).unwrap_or_else(|error| panic!("{}: {error}", file.display()));
        let mut found = Vec::new();
        struct Structs<'f>(&'f mut Vec<(String, usize)>);
        impl<'ast> syn::visit::Visit<'ast> for Structs<'_> {
            fn visit_item_struct(&mut self, node: &'ast syn::ItemStruct) {
                self.0.push((node.ident.to_string(), node.fields.len()));
                syn::visit::visit_item_struct(self, node);
            }
        }
        syn::visit::Visit::visit_file(&mut Structs(&mut found), &parsed);
        structs += found.len();
        for (name, fields) in found.into_iter().filter(|(_, fields)| *fields > 12) {
            wide.push(format!("{} `{name}` ({fields} fields)", file.strip_prefix(&root).unwrap().display()));
        }
    }
    assert!(wide.is_empty(), "structs over 12 fields: {wide:?}");
    assert!(structs > 40, "the test reads the macro's structs: {structs}");
}
