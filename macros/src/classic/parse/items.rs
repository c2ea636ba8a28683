//! Items declared in the body (`use futures::StreamExt;`, a `fn`, a `struct`, a `const`).
//!
//! A block that awaits is cut into the segments of `move_next`, which are not the block the
//! items were written in; so is a block where a binding hides a local (a `let` that hides a
//! live local begins a state of its own, with no await: `generate::emit::shadowing`), and one
//! holding a construct a path of which moves a local (a loop whose `break` value moves one
//! runs as states of its own). The stub declares such a block's items, so that they are
//! visible wherever the block's code lands. Items are visible in their whole block in Rust,
//! before and after their declaration, so this changes no name's meaning within the block;
//! what it can change is a name outside it, if another block of the body declares or uses the
//! same name (a block's `use` then hides an outer item of that name for the whole function,
//! and two blocks' items of one name are rustc's duplicate at the user's items). A block that
//! is not cut stays one piece of one segment, so it keeps its items, as the plain function's
//! does: two arms of a `match` may each `use` their own `Status` (an IMAP client's
//! `parse_mailbox`). Identical `use` items hoisted from several blocks are declared once.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;
use syn::visit::Visit;

use crate::classic::syntax::bindings::pattern_bindings;
use crate::classic::syntax::std_macros;
use syn::visit_mut::{self, VisitMut};

/// The body without the items of its blocks that the state machine cuts, and those items; an
/// error where declaring an item for the whole function could change what a name outside its
/// block means. `params`: the names the parameters bind.
pub(crate) fn hoist(block: &syn::Block, params: &[String]) -> syn::Result<(syn::Block, Vec<syn::Item>)> {
    let bound = binding_counts(block, params);
    let rebound: HashSet<String> =
        bound.iter().filter(|(_, times)| **times > 1).map(|(name, _)| name.clone()).collect();
    let conflicts = conflicting_names(block, &rebound);
    let mut block = block.clone();
    let mut hoister = Hoister { items: Vec::new(), rebound: &rebound, conflicts: &conflicts, renamed: 0, error: None };
    hoister.take_items(&mut block);
    visit_mut::visit_block_mut(&mut hoister, &mut block);
    if let Some(error) = hoister.error {
        return Err(error);
    }
    check_macro_rules(&hoister.items, &bound)?;
    Ok((block, hoister.items))
}

/// A `macro_rules!` the body declares is declared once for the state machine, where the
/// function's locals are not (`move_next` binds them anew in each state): a local its rules
/// name (`flag.set(false)`, which Rust resolves where the macro is declared) would be one
/// `move_next` cannot reach. Refused at that name; `self` counts as a local.
fn check_macro_rules(items: &[syn::Item], bound: &HashMap<String, usize>) -> syn::Result<()> {
    for item in items {
        let syn::Item::Macro(node) = item else {
            continue;
        };
        let Some(name) = node.ident.as_ref().filter(|_| node.mac.path.is_ident("macro_rules")) else {
            continue;
        };
        let tokens: Vec<proc_macro2::TokenTree> = node.mac.tokens.clone().into_iter().collect();
        // The rules' bodies: each group after a `=>`.
        let bodies = tokens.windows(3).filter_map(|window| match window {
            [
                proc_macro2::TokenTree::Punct(eq),
                proc_macro2::TokenTree::Punct(gt),
                proc_macro2::TokenTree::Group(body),
            ] if eq.as_char() == '=' && gt.as_char() == '>' => Some(body.stream()),
            _ => None,
        });
        for body in bodies {
            if let Some(local) = local_named(body, bound) {
                return Err(syn::Error::new(
                    local.span(),
                    format!(
                        "classic lowering: `macro_rules! {name}`, declared in the body, names `{local}`, a local of \
                         the function; Rust reads that name where the macro is declared, and the state machine \
                         declares the body's macros once, where its locals are not. Hand the macro the local \
                         (`(${local}:expr, ..) => ..`, `{name}!({local}, ..)`), or declare the macro outside the \
                         function; `#[lowering(runtime)]` builds it as written"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The first identifier among a macro rule's body that names a local (`bound`, or `self`): not
/// a metavariable (`$x`), a field or a method (`.x`), nor a path's later segment (`a::x`).
fn local_named(tokens: proc_macro2::TokenStream, bound: &HashMap<String, usize>) -> Option<proc_macro2::Ident> {
    let tokens: Vec<proc_macro2::TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().find_map(|(index, token)| match token {
        proc_macro2::TokenTree::Ident(ident) => {
            let after = index.checked_sub(1).map(|before| &tokens[before]);
            let qualified = matches!(after, Some(proc_macro2::TokenTree::Punct(punct)) if matches!(punct.as_char(), '$' | '.' | ':'));
            let name = ident.to_string();
            (!qualified && (name == "self" || bound.contains_key(&name))).then(|| ident.clone())
        }
        proc_macro2::TokenTree::Group(group) => local_named(group.stream(), bound),
        _ => None,
    })
}

struct Hoister<'r> {
    items: Vec<syn::Item>,
    /// The names the function binds more than once (`binding_counts`).
    rebound: &'r HashSet<String>,
    /// The names a cut block's item cannot be declared under for the whole function, with
    /// where code outside the blocks that declare it names it (`conflicting_names`).
    conflicts: &'r HashMap<String, Option<proc_macro2::Span>>,
    /// How many items were given a name of their own (`item_renames`).
    renamed: usize,
    error: Option<syn::Error>,
}

impl Hoister<'_> {
    /// Moves `block`'s own items (not those of the blocks inside it) to the hoisted ones.
    fn take_items(&mut self, block: &mut syn::Block) {
        let mut kept = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match stmt {
                syn::Stmt::Item(item) => {
                    let duplicate = matches!(item, syn::Item::Use(_))
                        && self
                            .items
                            .iter()
                            .any(|known| known.to_token_stream().to_string() == item.to_token_stream().to_string());
                    if !duplicate {
                        self.items.push(item);
                    }
                }
                syn::Stmt::Macro(node) if declares_items(&node.mac) => {
                    self.items.push(syn::Item::Macro(syn::ItemMacro {
                        attrs: node.attrs,
                        ident: None,
                        mac: node.mac,
                        semi_token: node.semi_token,
                    }))
                }
                other => kept.push(other),
            }
        }
        block.stmts = kept;
    }
}

/// Does a macro statement declare items, as far as its tokens say: braces around nothing but
/// items that declare a name (`pin_project! { struct CopyFuture<R, W> { .. } }`)? It goes
/// where the block's items go, so that the items declared beside it (an `impl` for that
/// struct) and every state see what it declares. (A macro that pastes statements, an
/// expression or anything else stays where it is.)
fn declares_items(mac: &syn::Macro) -> bool {
    matches!(mac.delimiter, syn::MacroDelimiter::Brace(_))
        && syn::parse2::<syn::File>(mac.tokens.clone()).is_ok_and(|file| {
            !file.items.is_empty()
                && file.items.iter().all(|item| {
                    matches!(
                        item,
                        syn::Item::Struct(_)
                            | syn::Item::Enum(_)
                            | syn::Item::Union(_)
                            | syn::Item::Fn(_)
                            | syn::Item::Impl(_)
                            | syn::Item::Trait(_)
                            | syn::Item::Type(_)
                            | syn::Item::Const(_)
                            | syn::Item::Static(_)
                    )
                })
        })
}

impl VisitMut for Hoister<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        // A block that is not cut is emitted whole, its items with it; so are the blocks
        // inside it.
        if !is_cut(block, self.rebound) {
            return;
        }
        // An item whose name would mean another item for the code outside its block, or
        // would be declared twice, gets a name of its own. Where that cannot be done (a
        // binding of the name in the block), a block that does not await keeps its items: it
        // is cut only where a hiding `let` hides a live local or a path through it moves one,
        // which the emitter decides (named after such a cut, they are rustc's E0425).
        let mut conflicting: Vec<String> = Vec::new();
        for name in block_names(block) {
            let name = name.to_string();
            if self.conflicts.contains_key(&name) && !conflicting.contains(&name) {
                conflicting.push(name);
            }
        }
        let keeps_items = match super::item_renames::rename(block, &conflicting, &mut self.renamed) {
            Ok(()) => false,
            Err((name, why)) if awaits(block) => {
                let outside = self.conflicts.get(&name).copied().flatten();
                let error = unrenamable_error(block, &name, &why, outside);
                self.error.get_or_insert(error);
                false
            }
            Err(_) => true,
        };
        if !keeps_items {
            self.take_items(block);
        }
        visit_mut::visit_block_mut(self, block);
    }

    // A standard macro's arguments are lowered as any code is (`panic!("{}", { use ..; .. })`).
    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        crate::classic::syntax::std_macros::visit_arguments(mac, |expr| self.visit_expr_mut(expr));
    }

    // Closures, async blocks and items keep what they declare: their code stays whole.
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// May the state machine cut the block: it awaits, a binding in it may hide a local (one of a
/// name the function binds more than once, `rebound`), or a statement of it is one the
/// lowering keeps as structure because a path through it moves or assigns a local
/// (`lower::stmt_changes_on_a_path`, the lowering's own test: a loop whose `break` value moves
/// a local becomes states of its own)? Which of these the emitter does split is its to find
/// where it walks them (which locals are alive there); any of them may be.
fn is_cut(block: &syn::Block, rebound: &HashSet<String>) -> bool {
    awaits(block) || binds_any(block, rebound) || block.stmts.iter().any(super::lower::stmt_changes_on_a_path)
}

/// Does a pattern of `block` (a `let`'s, an arm's, an `if let`'s, a `for`'s) bind one of
/// `names`, outside closures, async blocks and items (whose code stays whole)?
fn binds_any(block: &syn::Block, names: &HashSet<String>) -> bool {
    let mut found = Patterns { names, found: false };
    found.visit_block(block);
    found.found
}

/// How many times the function binds each name, among its parameters' and its body's patterns
/// (outside closures, async blocks and items): a name bound more than once may be hidden.
fn binding_counts(block: &syn::Block, params: &[String]) -> HashMap<String, usize> {
    struct Count(HashMap<String, usize>);
    impl<'ast> Visit<'ast> for Count {
        fn visit_pat(&mut self, pat: &'ast syn::Pat) {
            let mut bindings = Vec::new();
            pattern_bindings(pat, &mut bindings);
            for binding in bindings {
                *self.0.entry(binding.ident.to_string()).or_insert(0) += 1;
            }
            syn::visit::visit_pat(self, pat);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if let Some(Ok(parsed)) = std_macros::parse(mac) {
                parsed.exprs().into_iter().for_each(|argument| self.visit_expr(argument));
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut count = Count(HashMap::new());
    for name in params {
        *count.0.entry(name.clone()).or_insert(0) += 1;
    }
    count.visit_block(block);
    count.0
}

struct Patterns<'n> {
    names: &'n HashSet<String>,
    found: bool,
}

impl<'ast> Visit<'ast> for Patterns<'_> {
    fn visit_pat(&mut self, pat: &'ast syn::Pat) {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        self.found |= bindings.iter().any(|binding| self.names.contains(&binding.ident.to_string()));
    }
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(Ok(parsed)) = std_macros::parse(mac) {
            parsed.exprs().into_iter().for_each(|argument| self.visit_expr(argument));
        }
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Does the block await: an `.await` of this function's (`parse::awaits`), or a macro that
/// expands to one (`join!`, `select!`: `parse::awaiting_macros`, which rewrites them after this).
fn awaits(block: &syn::Block) -> bool {
    struct AwaitingMacro(bool);
    impl<'ast> Visit<'ast> for AwaitingMacro {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.0 |= super::awaiting_macros::is_awaiting(mac);
            // A standard macro's arguments are lowered as any code is: an awaiting macro among
            // them (`panic!("{}", join!(a, b).0)`) cuts the block as well.
            let mut arguments = mac.clone();
            crate::classic::syntax::std_macros::visit_arguments(&mut arguments, |argument| {
                let mut inner = AwaitingMacro(false);
                inner.visit_expr(argument);
                self.0 |= inner.0;
            });
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut found = AwaitingMacro(false);
    found.visit_block(block);
    found.0 || super::awaits::in_block(block)
}

/// The names an item declares in its block's scope (a glob `use` declares names no macro can
/// list: none here).
fn declared_names(item: &syn::Item, out: &mut Vec<syn::Ident>) {
    fn use_tree(tree: &syn::UseTree, out: &mut Vec<syn::Ident>) {
        match tree {
            syn::UseTree::Path(path) => use_tree(&path.tree, out),
            syn::UseTree::Name(name) if name.ident != "self" => out.push(name.ident.clone()),
            syn::UseTree::Name(_) | syn::UseTree::Glob(_) => {}
            syn::UseTree::Rename(rename) => out.push(rename.rename.clone()),
            syn::UseTree::Group(group) => group.items.iter().for_each(|tree| use_tree(tree, out)),
        }
    }
    let ident = match item {
        syn::Item::Use(node) => return use_tree(&node.tree, out),
        syn::Item::Fn(node) => &node.sig.ident,
        syn::Item::Struct(node) => &node.ident,
        syn::Item::Enum(node) => &node.ident,
        syn::Item::Union(node) => &node.ident,
        syn::Item::Const(node) => &node.ident,
        syn::Item::Static(node) => &node.ident,
        syn::Item::Trait(node) => &node.ident,
        syn::Item::TraitAlias(node) => &node.ident,
        syn::Item::Type(node) => &node.ident,
        syn::Item::Mod(node) => &node.ident,
        syn::Item::ExternCrate(node) => node.rename.as_ref().map_or(&node.ident, |(_, rename)| rename),
        syn::Item::Macro(node) => match &node.ident {
            Some(ident) => ident,
            None => return,
        },
        _ => return,
    };
    out.push(ident.clone());
}

pub(super) fn block_names(block: &syn::Block) -> Vec<syn::Ident> {
    let mut names = Vec::new();
    for stmt in &block.stmts {
        if let syn::Stmt::Item(item) = stmt {
            declared_names(item, &mut names);
        }
    }
    names
}

/// Hoisting declares a nested block's items where the function's scope begins, where they
/// would hide an item of the same name for the code outside the block (a `use b::helper;` in
/// a block that awaits would turn the function's other `helper()` calls into `b::helper`'s),
/// or declare a name the body or another block declares too (two arms' own `fn step`). The
/// names of cut blocks' items for which one of these holds, with where code outside every
/// block that declares it names it; the same `use` in several places declares one name once.
fn conflicting_names(body: &syn::Block, rebound: &HashSet<String>) -> HashMap<String, Option<proc_macro2::Span>> {
    /// The items that hoisting may take from nested blocks.
    struct Hoisted<'r> {
        rebound: &'r HashSet<String>,
        /// The names they declare, in order.
        names: Vec<syn::Ident>,
        /// By name, each declaration's item: a `use` (as text, to tell the same `use` written
        /// in two blocks) or another item (`None`).
        declarations: HashMap<String, Vec<Option<String>>>,
    }
    impl Hoisted<'_> {
        fn declare(&mut self, stmts: &[syn::Stmt]) {
            for stmt in stmts {
                let syn::Stmt::Item(item) = stmt else { continue };
                let mut declared = Vec::new();
                declared_names(item, &mut declared);
                let text = matches!(item, syn::Item::Use(_)).then(|| item.to_token_stream().to_string());
                for name in declared {
                    self.declarations.entry(name.to_string()).or_default().push(text.clone());
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Hoisted<'_> {
        fn visit_block(&mut self, block: &'ast syn::Block) {
            if !is_cut(block, self.rebound) {
                return;
            }
            self.declare(&block.stmts);
            self.names.extend(block_names(block));
            syn::visit::visit_block(self, block);
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    /// The mentions of hoisted names outside every block that declares them.
    struct Outside<'h> {
        hoisted: &'h [syn::Ident],
        scopes: Vec<Vec<syn::Ident>>,
        found: Vec<(syn::Ident, proc_macro2::Span)>,
    }
    impl Outside<'_> {
        fn mention(&mut self, ident: &proc_macro2::Ident) {
            if self.scopes.iter().flatten().any(|name| name == ident) {
                return;
            }
            if let Some(item) = self.hoisted.iter().find(|name| *name == ident) {
                self.found.push((item.clone(), ident.span()));
            }
        }
        fn tokens(&mut self, tokens: proc_macro2::TokenStream) {
            for token in tokens {
                match token {
                    proc_macro2::TokenTree::Ident(ident) => self.mention(&ident),
                    proc_macro2::TokenTree::Group(group) => self.tokens(group.stream()),
                    _ => {}
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Outside<'_> {
        fn visit_block(&mut self, block: &'ast syn::Block) {
            self.scopes.push(block_names(block));
            syn::visit::visit_block(self, block);
            self.scopes.pop();
        }
        fn visit_path(&mut self, path: &'ast syn::Path) {
            if path.leading_colon.is_none()
                && let Some(first) = path.segments.first()
            {
                self.mention(&first.ident);
            }
            syn::visit::visit_path(self, path);
        }
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            self.visit_path(&mac.path);
            self.tokens(mac.tokens.clone());
        }
        // The names an item declares are its own; the code inside a nested item is scanned
        // as the function's (it sees the function's block scopes, hoisted items included).
        fn visit_item_use(&mut self, _: &'ast syn::ItemUse) {}
    }
    let mut hoisted = Hoisted { rebound, names: Vec::new(), declarations: HashMap::new() };
    // The body's own items are declared for the whole function as they are: a block's item
    // of one of their names is declared twice.
    hoisted.declare(&body.stmts);
    for stmt in &body.stmts {
        hoisted.visit_stmt(stmt);
    }
    let mut outside = Outside { hoisted: &hoisted.names, scopes: Vec::new(), found: Vec::new() };
    outside.visit_block(body);
    let mut conflicts: HashMap<String, Option<proc_macro2::Span>> = HashMap::new();
    for (item, mention) in outside.found {
        conflicts.entry(item.to_string()).or_insert(Some(mention));
    }
    for (name, items) in hoisted.declarations {
        let same_use = items[0].is_some() && items.iter().all(|item| *item == items[0]);
        if items.len() > 1 && !same_use {
            conflicts.entry(name).or_insert(None);
        }
    }
    conflicts
}

/// The error for an item of a block that awaits that needs a name of its own and cannot get
/// one (`item_renames::rename`'s reason).
fn unrenamable_error(block: &syn::Block, name: &str, why: &str, outside: Option<proc_macro2::Span>) -> syn::Error {
    let span = block_names(block)
        .iter()
        .find(|ident| *ident == name)
        .map_or_else(proc_macro2::Span::call_site, syn::Ident::span);
    let clash = match outside.map(|mention| mention.start().line) {
        Some(line) if line > 0 => format!("code outside that block (line {line}) names `{name}` too"),
        Some(_) => format!("code outside that block names `{name}` too"),
        None => format!("another item of the function is named `{name}` too"),
    };
    syn::Error::new(
        span,
        format!(
            "classic lowering: `{name}` is declared in a block that awaits, which the state machine cannot \
             keep whole, so it is declared for the whole function; {clash}, so it needs a name of its own \
             there, but {why}. Give it a name of its own in the block (`use path::{name} as block_{name};`, \
             `const BLOCK_{name}: ..`), or declare it at the top of the function's body if it means the same \
             item there; `#[lowering(runtime)]` builds it as written"
        ),
    )
}
