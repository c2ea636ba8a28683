//! The `async fn`s a default build of the crate compiles, found by parsing its sources: from
//! each library and binary root, through `mod` declarations (`#[path]` honoured), skipping
//! items under a false `cfg`, entry points (`#[..::main]`, `#[..::test]`), functions without a
//! body, and what `syn` leaves unparsed (bodies of `macro_rules!` and other macro calls). Each
//! function keeps the byte offsets where the attribute goes in the file's original text.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use proc_macro2::{LineColumn, Span};
use serde::{Deserialize, Serialize};
use syn::{Attribute, ImplItem, Item, Meta, TraitItem, Visibility};

use super::cfg::Cfg;
use crate::error::{Context, Error, Result};

/// Where the attribute goes: before the function's other attributes, or just before its
/// signature (after them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    Outer,
    Inner,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Function {
    /// `module::Type::name`, `module::<Type as Trait>::name`, `module::Trait::name`.
    pub path: String,
    /// Relative to the package root, with `/`.
    pub file: String,
    /// The line of `fn`, and the last line of the body (1-based).
    pub line: usize,
    pub end_line: usize,
    /// Byte offset of the insertion in the file's original text.
    #[serde(skip)]
    pub insert_at: usize,
    /// The line the attribute goes on (before the fn's doc comments and attributes, with
    /// `--placement outer`): rustc's errors at the attribute are the fn's too.
    #[serde(skip)]
    pub attribute_line: usize,
}

impl Function {
    /// What `--only` matches: `path file:line`.
    pub fn key(&self) -> String {
        format!("{} {}:{}", self.path, self.file, self.line)
    }

    /// Whether `file:line` is in the fn: its attribute, signature or body.
    pub fn holds(&self, file: &str, line: usize) -> bool {
        self.file == file && (self.attribute_line.min(self.line)..=self.end_line).contains(&line)
    }

    /// In a binary target (`bin:NAME::..`), not the library.
    pub fn in_binary(&self) -> bool {
        self.path.starts_with("bin:")
    }
}

/// A target's root file and the path prefix its functions get (`""` for the library,
/// `bin:NAME::` for a binary).
pub struct Root {
    pub file: PathBuf,
    pub prefix: String,
}

/// Every function of the roots' module trees, in file and line order; `package` is the
/// directory the files are named relative to.
pub fn find(package: &Path, roots: &[Root], cfg: &Cfg, placement: Placement) -> Result<Vec<Function>> {
    let mut finder = Finder { package, cfg, placement, seen: BTreeSet::new(), found: Vec::new() };
    for root in roots {
        let dir = root.file.parent().unwrap_or(package).to_owned();
        finder.file(&root.file, dir, &root.prefix)?;
    }
    finder.found.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    Ok(finder.found)
}

struct Finder<'a> {
    package: &'a Path,
    cfg: &'a Cfg,
    placement: Placement,
    /// Files already read (two targets may share a module).
    seen: BTreeSet<PathBuf>,
    found: Vec<Function>,
}

/// One file being walked: its name and line starts, for offsets.
struct Source {
    name: String,
    text: String,
    line_starts: Vec<usize>,
}

impl Source {
    fn offset(&self, at: LineColumn) -> usize {
        let start = self.line_starts.get(at.line.saturating_sub(1)).copied().unwrap_or(self.text.len());
        let line = &self.text[start..];
        start + line.char_indices().nth(at.column).map_or(line.len(), |(byte, _)| byte)
    }
}

impl Finder<'_> {
    /// Walk `file`, whose child modules live in `dir`.
    fn file(&mut self, file: &Path, dir: PathBuf, prefix: &str) -> Result<()> {
        let canonical = file.canonicalize().context(|| format!("reading {}", file.display()))?;
        if !self.seen.insert(canonical) {
            return Ok(());
        }
        let text = std::fs::read_to_string(file).context(|| format!("reading {}", file.display()))?;
        let parsed = syn::parse_file(&text).map_err(|error| {
            let at = error.span().start();
            Error::new(format!("parsing {}:{}:{}: {error}", file.display(), at.line, at.column + 1))
        })?;
        let name = file.strip_prefix(self.package).unwrap_or(file).to_string_lossy().replace('\\', "/");
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(at, _)| at + 1));
        let source = Source { name, text, line_starts };
        if !self.enabled(&parsed.attrs) {
            return Ok(());
        }
        self.items(&source, &parsed.items, &dir, prefix)
    }

    fn items(&mut self, source: &Source, items: &[Item], dir: &Path, prefix: &str) -> Result<()> {
        for item in items {
            match item {
                Item::Fn(f) if self.enabled(&f.attrs) && !is_entry(&f.attrs) && f.sig.asyncness.is_some() => {
                    let first = first_token(&f.vis, f.sig.asyncness.as_ref().map(|a| a.span));
                    let end = f.block.brace_token.span.close().end();
                    self.push(source, format!("{prefix}{}", f.sig.ident), &f.attrs, first, f.sig.fn_token.span, end);
                }
                Item::Impl(block) if self.enabled(&block.attrs) => {
                    let ty = type_name(&block.self_ty);
                    let owner = match &block.trait_ {
                        Some((path, _)) => format!("<{ty} as {}>", path_name(path)),
                        None => ty,
                    };
                    for item in &block.items {
                        let ImplItem::Fn(f) = item else { continue };
                        if self.enabled(&f.attrs) && !is_entry(&f.attrs) && f.sig.asyncness.is_some() {
                            let first = first_token(&f.vis, f.sig.asyncness.as_ref().map(|a| a.span));
                            let end = f.block.brace_token.span.close().end();
                            let path = format!("{prefix}{owner}::{}", f.sig.ident);
                            self.push(source, path, &f.attrs, first, f.sig.fn_token.span, end);
                        }
                    }
                }
                Item::Trait(block) if self.enabled(&block.attrs) => {
                    for item in &block.items {
                        let TraitItem::Fn(f) = item else { continue };
                        let Some(body) = &f.default else { continue };
                        if self.enabled(&f.attrs) && !is_entry(&f.attrs) && f.sig.asyncness.is_some() {
                            let first = f.sig.asyncness.as_ref().map_or(f.sig.fn_token.span, |a| a.span);
                            let end = body.brace_token.span.close().end();
                            let path = format!("{prefix}{}::{}", block.ident, f.sig.ident);
                            self.push(source, path, &f.attrs, first, f.sig.fn_token.span, end);
                        }
                    }
                }
                Item::Mod(module) if self.enabled(&module.attrs) => {
                    let prefix = format!("{prefix}{}::", module.ident);
                    let child_dir = dir.join(module.ident.to_string());
                    match &module.content {
                        Some((_, items)) => self.items(source, items, &child_dir, &prefix)?,
                        None => {
                            let file = self.module_file(source, module, dir)?;
                            // A module file's children live beside it when it is `mod.rs` or
                            // named by `#[path]`, else in the directory named after it.
                            let beside =
                                file.file_name().is_some_and(|n| n == "mod.rs") || path_attr(&module.attrs).is_some();
                            let dir = if beside { file.parent().unwrap_or(dir).to_owned() } else { child_dir };
                            self.file(&file, dir, &prefix)?;
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn module_file(&self, source: &Source, module: &syn::ItemMod, dir: &Path) -> Result<PathBuf> {
        if let Some(path) = path_attr(&module.attrs) {
            // `#[path]` is relative to the directory of the file that declares the module.
            let declaring = self.package.join(&source.name);
            return Ok(declaring.parent().unwrap_or(dir).join(path));
        }
        let name = module.ident.to_string();
        let name = name.strip_prefix("r#").unwrap_or(&name);
        let candidates = [dir.join(format!("{name}.rs")), dir.join(name).join("mod.rs")];
        candidates.iter().find(|file| file.is_file()).cloned().context(|| {
            format!(
                "module `{name}` declared in {}:{} has no file ({} or {})",
                source.name,
                module.ident.span().start().line,
                candidates[0].display(),
                candidates[1].display()
            )
        })
    }

    fn push(
        &mut self,
        source: &Source,
        path: String,
        attrs: &[Attribute],
        first: Span,
        fn_token: Span,
        end: LineColumn,
    ) {
        let at = match (self.placement, attrs.iter().find(|a| matches!(a.style, syn::AttrStyle::Outer))) {
            (Placement::Outer, Some(attr)) => attr.pound_token.span.start(),
            _ => first.start(),
        };
        self.found.push(Function {
            path,
            file: source.name.clone(),
            line: fn_token.start().line,
            end_line: end.line,
            insert_at: source.offset(at),
            attribute_line: at.line,
        });
    }

    /// Whether every `#[cfg(..)]` among `attrs` holds.
    fn enabled(&self, attrs: &[Attribute]) -> bool {
        attrs.iter().all(|attr| match &attr.meta {
            Meta::List(list) if list.path.is_ident("cfg") => self.cfg.holds(&list.tokens),
            _ => true,
        })
    }
}

/// `#[main]`, `#[tokio::main]`, `#[test]`, `#[tokio::test]`, `#[async_std::test]`, ...: an
/// entry point its attribute already turns into something else.
fn is_entry(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().segments.last().is_some_and(|last| ["main", "test", "bench"].iter().any(|name| last.ident == name))
    })
}

fn path_attr(attrs: &[Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The first token of a function after its attributes: `pub`, else `async`.
fn first_token(vis: &Visibility, asyncness: Option<Span>) -> Span {
    match vis {
        Visibility::Public(token) => token.span,
        Visibility::Restricted(restricted) => restricted.pub_token.span,
        Visibility::Inherited => asyncness.unwrap_or_else(Span::call_site),
    }
}

fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(path) => path_name(&path.path),
        syn::Type::Reference(reference) => format!("&{}", type_name(&reference.elem)),
        _ => "_".to_owned(),
    }
}

fn path_name(path: &syn::Path) -> String {
    path.segments.last().map_or_else(|| "_".to_owned(), |segment| segment.ident.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str, cfg: &str, placement: Placement) -> Vec<(String, usize, String)> {
        // One directory per call: the tests run in parallel.
        static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("inspect-krate-functions-{}-{call}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let file = dir.join("src/lib.rs");
        std::fs::write(&file, text).unwrap();
        let roots = [Root { file: file.clone(), prefix: String::new() }];
        let functions = find(&dir, &roots, &Cfg::from_print(cfg), placement).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        functions
            .into_iter()
            .map(|f| (f.path, f.line, text[f.insert_at..].lines().next().unwrap().to_owned()))
            .collect()
    }

    const SOURCE: &str = "\
pub async fn free() {}
/// Docs.
#[inline]
pub(crate) async fn with_attrs() {}
struct S;
impl S { async fn inherent(&self) {} fn plain() {} }
trait T { async fn required(&self); async fn provided(&self) {} }
impl T for S { async fn required(&self) {} }
#[tokio::main]
async fn main() {}
#[cfg(test)]
mod tests { async fn helper() {} }
#[cfg(unix)]
mod sys { async fn on_unix() {} }
#[cfg(windows)]
async fn on_windows() {}
macro_rules! m { () => { async fn in_macro() {} } }
fn outer() { async fn nested() {} }
";

    #[test]
    fn finds_each_kind_and_leaves_the_rest() {
        let names: Vec<(String, usize)> =
            found(SOURCE, "unix", Placement::Outer).into_iter().map(|(path, line, _)| (path, line)).collect();
        let expected = [
            ("free", 1),
            ("with_attrs", 4),
            ("S::inherent", 6),
            ("T::provided", 7),
            ("<S as T>::required", 8),
            ("sys::on_unix", 14),
        ];
        assert_eq!(names, expected.map(|(path, line)| (path.to_owned(), line)));
    }

    #[test]
    fn a_fn_holds_the_lines_of_its_attribute_signature_and_body() {
        let dir = std::env::temp_dir().join(format!("inspect-krate-functions-{}-holds", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let file = dir.join("src/lib.rs");
        std::fs::write(&file, SOURCE).unwrap();
        let roots = [Root { file, prefix: String::new() }];
        let functions = find(&dir, &roots, &Cfg::from_print(""), Placement::Outer).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let with_attrs = functions.iter().find(|f| f.path == "with_attrs").unwrap();
        assert_eq!((with_attrs.attribute_line, with_attrs.line), (2, 4));
        assert!(with_attrs.holds("src/lib.rs", 2) && with_attrs.holds("src/lib.rs", 4));
        assert!(
            !with_attrs.holds("src/lib.rs", 1) && !with_attrs.holds("src/lib.rs", 5) && !with_attrs.holds("x.rs", 4)
        );
    }

    #[test]
    fn outer_goes_before_the_first_attribute_inner_before_the_signature() {
        let outer = found(SOURCE, "", Placement::Outer);
        assert_eq!(outer[1].2, "/// Docs.");
        let inner = found(SOURCE, "", Placement::Inner);
        assert_eq!(inner[1].2, "pub(crate) async fn with_attrs() {}");
        assert_eq!(inner[2].2, "async fn inherent(&self) {} fn plain() {} }");
        assert_eq!(inner.len(), 5, "cfg(unix) is off here: {inner:?}");
    }
}
