//! Items of a cut block that cannot be declared for the whole function under their own name
//! (`parse::items`): another block declares one of that name too, or code outside the block
//! names it, meaning another item. Such an item is declared under a name of its own
//! (`helper` becomes `__item3_helper`), and so is every mention of it in its block: exactly the
//! code that sees it in Rust, less the blocks inside that declare an item of that name again
//! (theirs hides it there).

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::format_ident;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};

use crate::classic::syntax::std_macros;

/// Renames the items of `block` that declare one of `names`, and their mentions in the block.
/// `next` numbers the new names apart. `Err((name, why))` (nothing renamed) where a mention
/// cannot be told from another meaning of the name (`unrenamable`).
pub(super) fn rename(block: &mut syn::Block, names: &[String], next: &mut usize) -> Result<(), (String, String)> {
    // A constant's (or a unit struct's) name as an identifier pattern is that constant: it is
    // renamed there too.
    let constants: HashSet<String> = block
        .stmts
        .iter()
        .filter_map(|stmt| match stmt {
            syn::Stmt::Item(syn::Item::Const(node)) => Some(node.ident.to_string()),
            syn::Stmt::Item(syn::Item::Struct(node)) if matches!(node.fields, syn::Fields::Unit) => {
                Some(node.ident.to_string())
            }
            _ => None,
        })
        .filter(|name| names.contains(name))
        .collect();
    for name in names {
        if let Some(why) = unrenamable(block, name, constants.contains(name)) {
            return Err((name.clone(), why));
        }
    }
    let mut renames = HashMap::new();
    for stmt in &mut block.stmts {
        let syn::Stmt::Item(item) = stmt else { continue };
        for name in names {
            if let Some(ident) = declared_ident(item, name) {
                *ident = new_name(ident, &mut renames, next);
                allow_its_name(item);
            }
            if let syn::Item::Use(node) = item {
                rename_in_use_tree(&mut node.tree, name, &mut renames, next);
            }
        }
    }
    let mut renamer = Renamer { renames, constants };
    for stmt in &mut block.stmts {
        renamer.visit_stmt_mut(stmt);
    }
    Ok(())
}

/// The identifier an item other than a `use` or a macro declares, if it is `name`.
fn declared_ident<'i>(item: &'i mut syn::Item, name: &str) -> Option<&'i mut Ident> {
    let ident = match item {
        syn::Item::Fn(node) => &mut node.sig.ident,
        syn::Item::Struct(node) => &mut node.ident,
        syn::Item::Enum(node) => &mut node.ident,
        syn::Item::Union(node) => &mut node.ident,
        syn::Item::Const(node) => &mut node.ident,
        syn::Item::Static(node) => &mut node.ident,
        syn::Item::Trait(node) => &mut node.ident,
        syn::Item::TraitAlias(node) => &mut node.ident,
        syn::Item::Type(node) => &mut node.ident,
        syn::Item::Mod(node) => &mut node.ident,
        _ => return None,
    };
    (*ident == name).then_some(ident)
}

/// The new name is the lowering's, not the user's: no naming lint speaks of it.
fn allow_its_name(item: &mut syn::Item) {
    let allow: syn::Attribute =
        syn::parse_quote!(#[allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]);
    match item {
        syn::Item::Fn(node) => node.attrs.push(allow),
        syn::Item::Struct(node) => node.attrs.push(allow),
        syn::Item::Enum(node) => node.attrs.push(allow),
        syn::Item::Union(node) => node.attrs.push(allow),
        syn::Item::Const(node) => node.attrs.push(allow),
        syn::Item::Static(node) => node.attrs.push(allow),
        syn::Item::Trait(node) => node.attrs.push(allow),
        syn::Item::TraitAlias(node) => node.attrs.push(allow),
        syn::Item::Type(node) => node.attrs.push(allow),
        syn::Item::Mod(node) => node.attrs.push(allow),
        _ => {}
    }
}

/// The new name of `ident`'s items: one for all the block's items of that name (a `struct
/// Meter { .. }` and a `fn Meter`, one in each namespace), with `ident`'s span.
fn new_name(ident: &Ident, renames: &mut HashMap<String, Ident>, next: &mut usize) -> Ident {
    let new = renames.entry(ident.to_string()).or_insert_with(|| {
        *next += 1;
        format_ident!("__item{}_{}", *next, ident)
    });
    Ident::new(&new.to_string(), ident.span())
}

/// `use a::name;` becomes `use a::name as __itemN_name;`, `use a::b as name;` `use a::b as
/// __itemN_name;`.
fn rename_in_use_tree(tree: &mut syn::UseTree, name: &str, renames: &mut HashMap<String, Ident>, next: &mut usize) {
    match tree {
        syn::UseTree::Path(path) => rename_in_use_tree(&mut path.tree, name, renames, next),
        syn::UseTree::Name(leaf) if leaf.ident == name => {
            let rename = new_name(&leaf.ident, renames, next);
            *tree = syn::UseTree::Rename(syn::UseRename {
                ident: leaf.ident.clone(),
                as_token: Default::default(),
                rename,
            });
        }
        syn::UseTree::Rename(leaf) if leaf.rename == name => leaf.rename = new_name(&leaf.rename, renames, next),
        syn::UseTree::Group(group) => {
            for tree in &mut group.items {
                rename_in_use_tree(tree, name, renames, next);
            }
        }
        _ => {}
    }
}

/// Why a mention of `name` in the block could not be told from another meaning of the name,
/// if one could not: a `macro_rules!` of that name (invoked by name, not by path), an
/// identifier pattern of it (in closures and nested items too: a binding that hides the item,
/// or a constant's pattern), a format string that names it (`"{name}"`).
fn unrenamable(block: &syn::Block, name: &str, constant: bool) -> Option<String> {
    struct Finder<'n> {
        name: &'n str,
        constant: bool,
        found: Option<String>,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
            if pat.ident == self.name && !(self.constant && is_constant_pattern(pat)) {
                self.found = Some(format!(
                    "the block also has a pattern `{}`, which no new name can tell from a binding",
                    self.name
                ));
            }
            syn::visit::visit_pat_ident(self, pat);
        }
        fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
            if item.ident.as_ref().is_some_and(|ident| ident == self.name) {
                self.found = Some("it is a `macro_rules!`, which is invoked by its name".to_owned());
            }
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            // A binding inside a macro's arguments (`matches!(x, name)`) is a pattern too.
            if let Some(Ok(parsed)) = std_macros::parse(mac) {
                parsed.exprs().into_iter().for_each(|argument| self.visit_expr(argument));
            }
            if names_in_strings(mac.tokens.clone(), self.name) {
                self.found = Some(format!(
                    "a format string in the block names it (`\"{{{}}}\"`), which no new name reaches",
                    self.name
                ));
            }
        }
    }
    let mut finder = Finder { name, constant, found: None };
    finder.visit_block(block);
    finder.found
}

/// Does a string literal among `tokens` hold `{name}` or `{name:..}`?
fn names_in_strings(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Literal(literal) => {
            let text = literal.to_string();
            text.contains(&format!("{{{name}}}")) || text.contains(&format!("{{{name}:"))
        }
        TokenTree::Group(group) => names_in_strings(group.stream(), name),
        _ => false,
    })
}

/// An identifier pattern that, where a constant of its name is in scope, is that constant:
/// no `ref`, `mut` or `@` subpattern.
fn is_constant_pattern(pat: &syn::PatIdent) -> bool {
    pat.by_ref.is_none() && pat.mutability.is_none() && pat.subpat.is_none()
}

/// Renames the mentions of the renamed items.
struct Renamer {
    renames: HashMap<String, Ident>,
    /// The renamed constants and unit structs, whose names are patterns too.
    constants: HashSet<String>,
}

impl Renamer {
    fn renamed(&self, ident: &Ident) -> Option<Ident> {
        self.renames.get(&ident.to_string()).map(|new| Ident::new(&new.to_string(), ident.span()))
    }

    /// A macro the lowering does not parse: its identifiers, where they are not a field, a
    /// method, a later path segment or a metavariable (`.x`, `::x`, `$x`).
    fn tokens(&self, tokens: TokenStream) -> TokenStream {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::with_capacity(tokens.len());
        for (index, token) in tokens.iter().cloned().enumerate() {
            let previous = index.checked_sub(1).map(|before| &tokens[before]);
            let token = match token {
                TokenTree::Ident(ident) => {
                    let qualified = matches!(previous, Some(TokenTree::Punct(punct)) if matches!(punct.as_char(), '.' | ':' | '$' | '\''));
                    let invoked =
                        matches!(tokens.get(index + 1), Some(TokenTree::Punct(punct)) if punct.as_char() == '!');
                    match self.renamed(&ident).filter(|_| !qualified && !invoked) {
                        Some(new) => TokenTree::Ident(new),
                        None => TokenTree::Ident(ident),
                    }
                }
                TokenTree::Group(group) => {
                    let mut new = proc_macro2::Group::new(group.delimiter(), self.tokens(group.stream()));
                    new.set_span(group.span());
                    TokenTree::Group(new)
                }
                other => other,
            };
            out.push(token);
        }
        out.into_iter().collect()
    }
}

impl VisitMut for Renamer {
    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        if path.leading_colon.is_none()
            && let Some(first) = path.segments.first_mut()
            && let Some(new) = self.renamed(&first.ident)
        {
            first.ident = new;
        }
        visit_mut::visit_path_mut(self, path);
    }

    fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
        if is_constant_pattern(pat)
            && self.constants.contains(&pat.ident.to_string())
            && let Some(new) = self.renamed(&pat.ident)
        {
            pat.ident = new;
        }
        visit_mut::visit_pat_ident_mut(self, pat);
    }

    // `use name::Variant;` of a renamed enum or module.
    fn visit_item_use_mut(&mut self, node: &mut syn::ItemUse) {
        if node.leading_colon.is_none()
            && let syn::UseTree::Path(path) = &mut node.tree
            && let Some(new) = self.renamed(&path.ident)
        {
            path.ident = new;
        }
    }

    // `S { c }` with a renamed constant `c`: the shorthand is written out.
    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        if field.colon_token.is_none()
            && let syn::Member::Named(member) = &field.member
            && self.renamed(member).is_some()
        {
            field.colon_token = Some(Default::default());
        }
        visit_mut::visit_field_value_mut(self, field);
    }

    // A block inside that declares an item of a renamed name again: there, the name is its.
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut hidden = Vec::new();
        for name in super::items::block_names(block) {
            if let Some(new) = self.renames.remove(&name.to_string()) {
                hidden.push((name.to_string(), new));
            }
        }
        visit_mut::visit_block_mut(self, block);
        self.renames.extend(hidden);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // The macro's own name is a macro's, never a renamed item's.
        if std_macros::parse(mac).is_some() {
            std_macros::visit_arguments(mac, |argument| self.visit_expr_mut(argument));
        } else {
            mac.tokens = self.tokens(std::mem::take(&mut mac.tokens));
        }
    }
}
