//! Items declared in the body (`use futures::StreamExt;`, a `fn`, a `struct`, a `const`).
//!
//! A block that awaits is cut into the segments of `move_next`, which are not the block the
//! items were written in: the stub declares its items, so that they are visible wherever the
//! block's code lands. Items are visible in their whole block in Rust, before and after their
//! declaration, so this changes no name's meaning within the block; what it can change is a
//! name outside it, if another block of the body declares or uses the same name (a block's
//! `use` then hides an outer item of that name for the whole function, and two blocks' items
//! of one name are rustc's duplicate at the user's items). A block that does not await stays
//! one piece of one segment, so it keeps its items, as the plain function's does: two arms of
//! a `match` may each `use` their own `Status` (an IMAP client's `parse_mailbox`). Identical
//! `use` items hoisted from several blocks are declared once.

use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};

/// The body without the items of its blocks that await, and those items; an error where
/// declaring an item for the whole function could change what a name outside its block means.
pub(crate) fn hoist(block: &syn::Block) -> syn::Result<(syn::Block, Vec<syn::Item>)> {
    check_names_outside(block)?;
    let mut block = block.clone();
    let mut hoister = Hoister(Vec::new());
    hoister.take_items(&mut block);
    visit_mut::visit_block_mut(&mut hoister, &mut block);
    Ok((block, hoister.0))
}

struct Hoister(Vec<syn::Item>);

impl Hoister {
    /// Moves `block`'s own items (not those of the blocks inside it) to the hoisted ones.
    fn take_items(&mut self, block: &mut syn::Block) {
        let mut kept = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match stmt {
                syn::Stmt::Item(item) => {
                    let duplicate = matches!(item, syn::Item::Use(_))
                        && self
                            .0
                            .iter()
                            .any(|known| known.to_token_stream().to_string() == item.to_token_stream().to_string());
                    if !duplicate {
                        self.0.push(item);
                    }
                }
                syn::Stmt::Macro(node) if declares_items(&node.mac) => self.0.push(syn::Item::Macro(syn::ItemMacro {
                    attrs: node.attrs,
                    ident: None,
                    mac: node.mac,
                    semi_token: node.semi_token,
                })),
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

impl VisitMut for Hoister {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        // A block that does not await is emitted whole, its items with it; so are the
        // blocks inside it.
        if !awaits(block) {
            return;
        }
        self.take_items(block);
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

fn block_names(block: &syn::Block) -> Vec<syn::Ident> {
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
/// a block that awaits would turn the function's other `helper()` calls into `b::helper`'s).
/// Refused where a name such an item declares is named outside every block that declares it.
fn check_names_outside(body: &syn::Block) -> syn::Result<()> {
    /// The items that hoisting takes from nested blocks, by the names they declare.
    struct Hoisted(Vec<syn::Ident>);
    impl<'ast> Visit<'ast> for Hoisted {
        fn visit_block(&mut self, block: &'ast syn::Block) {
            if awaits(block) {
                self.0.extend(block_names(block));
                syn::visit::visit_block(self, block);
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    /// A mention of a hoisted name outside every block that declares it.
    struct Outside<'h> {
        hoisted: &'h [syn::Ident],
        scopes: Vec<Vec<syn::Ident>>,
        found: Option<(syn::Ident, proc_macro2::Span)>,
    }
    impl Outside<'_> {
        fn mention(&mut self, ident: &proc_macro2::Ident) {
            if self.found.is_some() || self.scopes.iter().flatten().any(|name| name == ident) {
                return;
            }
            if let Some(item) = self.hoisted.iter().find(|name| *name == ident) {
                self.found = Some((item.clone(), ident.span()));
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
    let mut hoisted = Hoisted(Vec::new());
    for stmt in &body.stmts {
        hoisted.visit_stmt(stmt);
    }
    if hoisted.0.is_empty() {
        return Ok(());
    }
    let mut outside = Outside { hoisted: &hoisted.0, scopes: Vec::new(), found: None };
    outside.visit_block(body);
    match outside.found {
        None => Ok(()),
        Some((item, mention)) => {
            let line = mention.start().line;
            let at = if line == 0 { String::new() } else { format!(" (line {line})") };
            Err(syn::Error::new(
                item.span(),
                format!(
                    "classic lowering: `{item}` is declared in a block that awaits, which the state machine \
                     cannot keep whole, so it is declared for the whole function; but `{item}` is also named \
                     outside that block{at}, where it may mean another item. Give it a name of its own in \
                     the block (`use path::{item} as block_{item};`), or declare it at the top of the \
                     function's body if it means the same item there; `#[lowering(runtime)]` builds it as \
                     written"
                ),
            ))
        }
    }
}
