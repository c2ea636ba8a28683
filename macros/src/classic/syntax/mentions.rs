//! How a piece of user code uses the variables it names: reads them, moves them, or assigns
//! them. `emit` uses it to know which locals are still initialized at an await (and so must be
//! saved) and which are read later.
//!
//! The macro sees no types, so "move" means "used by value": a `Copy` value used by value is
//! still there afterwards. `emit` therefore counts a by-value use as a move only when nothing
//! reads the variable later (if something does, the value was `Copy`, or rustc rejects the
//! plain function too).

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::classic::syntax::std_macros::{self, ArgumentUse};
use crate::classic::syntax::tracing_macros;

/// The name of the local that holds `self` in `move_next`.
pub(crate) const SELF_LOCAL: &str = "__self";

/// The name a local is counted under, from the name the user's code writes: the receiver is
/// counted as the local that holds it (`SELF_LOCAL`).
pub(crate) fn counted_name(written: &str) -> &str {
    if written == "self" { SELF_LOCAL } else { written }
}

/// The name the user's code writes for a local counted under `counted` (`counted_name`).
pub(crate) fn written_name(counted: &str) -> &str {
    if counted == SELF_LOCAL { "self" } else { counted }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// Borrowed or copied: the variable stays initialized.
    Read,
    /// Used by value.
    Move,
    /// A field of it used by value (`pair.a`, `self.count`): copied if the field's type is
    /// `Copy`, moved out otherwise, which leaves the rest of the variable in place.
    MoveField,
    /// `x = ...`: initialized afterwards.
    Assign,
}

#[derive(Clone)]
pub(crate) struct Mention {
    pub name: String,
    pub kind: Kind,
    /// Inside a branch, a loop or a closure body: it may not happen.
    pub conditional: bool,
    /// For `MoveField`, the projection as written (`pair.a`).
    pub field: Option<syn::Expr>,
    /// The field the local is reached through (`tag` in `self.tag.len()`), where it is named
    /// only through a field projection.
    pub through: Option<String>,
    /// The callee of a call (`done(v)`): a `Move` only if it is an `FnOnce` closure.
    pub called: bool,
    /// In the `else` of a `let .. else`, which always leaves: the code after the statement
    /// does not run after it, so it changes nothing there (it still reads the value).
    pub leaves: bool,
}

impl Mention {
    /// A mention of `name` that is not of a field, not a callee, and not in a `let .. else`
    /// block (the collector marks those after).
    fn new(name: String, kind: Kind, conditional: bool) -> Self {
        Mention { name, kind, conditional, field: None, through: None, called: false, leaves: false }
    }
}

pub(crate) fn of_expr(expr: &syn::Expr) -> Vec<Mention> {
    let mut collector = Collector::default();
    collector.expr(expr, Kind::Move);
    collector.found
}

/// The operand of an await (`Collector::awaited`).
pub(crate) fn of_awaited(operand: &syn::Expr) -> Vec<Mention> {
    let mut collector = Collector::default();
    collector.awaited(operand);
    collector.found
}

/// A `match` scrutinee: moved only if some arm binds by value.
pub(crate) fn of_scrutinee<'p>(expr: &syn::Expr, patterns: impl Iterator<Item = &'p syn::Pat>) -> Vec<Mention> {
    let mut collector = Collector::default();
    let patterns: Vec<&syn::Pat> = patterns.collect();
    collector.scrutinee(expr, &patterns);
    collector.found
}

/// The initializer of `let pat = init`: `let _ = place` moves nothing, and a pattern that
/// leaves parts of a place unbound (`let (a, _) = pair;`) uses only the parts it binds.
pub(crate) fn of_let_init(pat: &syn::Pat, init: &syn::Expr) -> Vec<Mention> {
    let mut collector = Collector::default();
    collector.let_init(pat, init);
    collector.found
}

pub(crate) fn of_stmt(stmt: &syn::Stmt) -> Vec<Mention> {
    let mut collector = Collector::default();
    collector.visit_stmt(stmt);
    collector.found
}

pub(crate) fn of_block(block: &syn::Block) -> Vec<Mention> {
    let mut collector = Collector::default();
    collector.visit_block(block);
    collector.found
}

/// Every identifier in macro tokens (a macro's arguments are opaque: assume it reads them).
pub(crate) fn of_tokens(tokens: &TokenStream, out: &mut Vec<Mention>, conditional: bool) {
    of_macro_tokens(tokens, out, conditional, false, Kind::Read);
}

/// `of_tokens`, for the tokens of a macro; `fields`: tracing's, whose keys (`key = ..`) name no
/// local. `kind` is what a mention is: a read for a macro whose grammar is known to borrow, a
/// use by value for one the lowering cannot see into (which may move what it is handed, into
/// a `move` closure say: `generate::places` lends it the value where it is the last use).
fn of_macro_tokens(tokens: &TokenStream, out: &mut Vec<Mention>, conditional: bool, fields: bool, kind: Kind) {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (index, token) in tokens.iter().enumerate() {
        let previous = index.checked_sub(1).map(|before| &tokens[before]);
        match token {
            TokenTree::Ident(ident) => {
                let after_dot = matches!(previous, Some(TokenTree::Punct(p)) if p.as_char() == '.');
                let before_path_or_bang = matches!(tokens.get(index + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!' || p.as_char() == ':');
                let key = fields && tracing_macros::is_field_key(&tokens, index);
                if !after_dot && !before_path_or_bang && !key {
                    let name = counted_name(&ident.to_string()).to_owned();
                    out.push(Mention::new(name, kind, conditional));
                }
            }
            TokenTree::Group(group) => of_macro_tokens(&group.stream(), out, conditional, false, kind),
            // A string the macro may format: `"{v}"` reads `v` (tracing's message, say).
            TokenTree::Literal(literal) => {
                for name in std_macros::token_captures(literal) {
                    out.push(Mention::new(name, Kind::Read, conditional));
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

/// Whether a closure may move something it captures out of itself when called, which makes
/// it `FnOnce`: its body uses a captured name by value (the macro cannot tell a `Copy` one;
/// calling a captured function or closure does not count). One that does not is `Fn` or
/// `FnMut`, and a call leaves it where it is.
pub(crate) fn closure_moves_captures(closure: &syn::ExprClosure) -> bool {
    let mut collector = Collector::default();
    for input in &closure.inputs {
        collector.bind(input);
    }
    collector.expr(&closure.body, Kind::Move);
    collector.found.iter().any(|mention| matches!(mention.kind, Kind::Move | Kind::MoveField) && !mention.called)
}

#[derive(Default)]
struct Collector {
    found: Vec<Mention>,
    /// Depth of branches, loops and closures around the current expression.
    conditional: u32,
    /// Names bound inside the code being scanned (a `let` in a block, a match arm's pattern,
    /// a closure's parameters): mentions of them there are not mentions of the locals
    /// outside that have the same names.
    bound: Vec<String>,
}

impl Collector {
    fn push(&mut self, name: String, kind: Kind) {
        if self.bound.contains(&name) {
            return;
        }
        // `emit` calls the receiver `__self` (a closure cannot bind `self`).
        let name = counted_name(&name).to_owned();
        self.found.push(Mention::new(name, kind, self.conditional > 0));
    }

    fn let_init(&mut self, pat: &syn::Pat, init: &syn::Expr) {
        if matches!(pat, syn::Pat::Wild(_)) {
            // `let _ = place;` neither moves nor drops the place.
            return self.expr(init, Kind::Read);
        }
        // A method called on a local at its last use, taken to consume it there (as
        // `loans` does): `let limited = conn.limit(2);`.
        if let syn::Expr::MethodCall(call) = init
            && super::receivers::let_consumes(pat, init).is_some()
        {
            self.expr(&call.receiver, Kind::Move);
            for arg in &call.args {
                self.expr(arg, Kind::Move);
            }
            return;
        }
        if !self.parts_of_place(init, &[pat], Patterns::Irrefutable) {
            self.expr(init, Kind::Move);
        }
    }

    /// A `match` or `if let` scrutinee: a place matched by patterns that bind nothing by
    /// value is not moved; one whose patterns bind parts of it (`(x, _)`) uses those parts.
    fn scrutinee(&mut self, expr: &syn::Expr, patterns: &[&syn::Pat]) {
        if !patterns.iter().any(|pat| binds_by_value(pat)) {
            return self.expr(expr, Kind::Read);
        }
        if !self.parts_of_place(expr, patterns, Patterns::Refutable) {
            self.expr(expr, Kind::Move);
        }
    }

    /// `place` matched by `patterns` that leave parts of it unbound: each part they bind by
    /// value is a field used by value. False (nothing recorded) where that does not apply.
    fn parts_of_place(&mut self, place: &syn::Expr, patterns: &[&syn::Pat], kind: Patterns) -> bool {
        let root = match place {
            syn::Expr::Path(_) | syn::Expr::Field(_) | syn::Expr::Paren(_) => projection_root(place),
            _ => None,
        };
        let Some(root) = root else { return false };
        if !patterns.iter().any(|pat| leaves_parts(pat)) {
            return false;
        }
        let mut parts = Vec::new();
        if !patterns.iter().all(|pat| parts_bound(pat, place, kind, &mut parts)) {
            return false;
        }
        // A pattern that binds the whole place moves it.
        let whole = quote::ToTokens::to_token_stream(place).to_string();
        if parts.iter().any(|part| quote::ToTokens::to_token_stream(part).to_string() == whole) {
            return false;
        }
        for part in &parts {
            self.push_field(root.clone(), part);
        }
        true
    }

    /// `projection` (`pair.a`, `pair.0.1`) used by value: a field of the local at its root.
    fn push_field(&mut self, root: String, projection: &syn::Expr) {
        self.push(root, Kind::MoveField);
        if let Some(mention) = self.found.last_mut().filter(|mention| mention.kind == Kind::MoveField) {
            mention.field = Some(projection.clone());
        }
    }

    /// A `move` closure or `async move` block (`code`) that mentions `found`: it takes what
    /// it names when it is made, as edition 2021 captures, each field path it names alone
    /// (`move || v.0` takes `v.0`, and the rest of `v` stays) and the other locals whole.
    fn moved_into(&mut self, code: &syn::Expr, found: Vec<Mention>) {
        let mut names: Vec<String> = Vec::new();
        for mention in &found {
            let name = written_name(&mention.name).to_owned();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for (name, path) in crate::classic::syntax::moved_paths(code, &names) {
            let local = counted_name(&name).to_owned();
            let (kind, field) = match path {
                None => (Kind::Move, None),
                Some(members) => {
                    let root = crate::classic::syntax::ident_for(&name, proc_macro2::Span::call_site());
                    let projection: syn::Expr = syn::parse_quote!(#root #(.#members)*);
                    (Kind::MoveField, Some(projection))
                }
            };
            self.found.push(Mention { field, ..Mention::new(local, kind, self.conditional > 0) });
        }
    }

    /// Run `f` with the names `pat` binds hidden, then show them again.
    fn binding(&mut self, pat: &syn::Pat, f: impl FnOnce(&mut Self)) {
        let mark = self.bound.len();
        self.bind(pat);
        f(self);
        self.bound.truncate(mark);
    }

    fn bind(&mut self, pat: &syn::Pat) {
        let mut bindings = Vec::new();
        crate::classic::syntax::bindings::pattern_bindings(pat, &mut bindings);
        self.bound.extend(bindings.into_iter().map(|binding| binding.ident.to_string()));
    }

    /// The identifiers of macro tokens (`of_macro_tokens`), but not those a binding of the
    /// code being scanned hides (`let v = ..; info!(?v)`).
    fn tokens(&mut self, tokens: &TokenStream, fields: bool, kind: Kind) {
        let mut found = Vec::new();
        of_macro_tokens(tokens, &mut found, self.conditional > 0, fields, kind);
        found.retain(|mention| !self.bound.contains(&mention.name));
        self.found.extend(found);
    }

    fn conditionally(&mut self, f: impl FnOnce(&mut Self)) {
        self.conditional += 1;
        f(self);
        self.conditional -= 1;
    }

    /// An awaited operand. A method called on a local there may take it by value
    /// (`cmd.apply(db).await`), which `analyse::loans` assumes where it is the local's last
    /// use; anywhere else a later read of it says it was borrowed.
    fn awaited(&mut self, operand: &syn::Expr) {
        match operand {
            syn::Expr::MethodCall(call) if matches!(&*call.receiver, syn::Expr::Path(_)) => {
                // (`keeps(name)`: the user says the method borrows it.)
                let kept = projection_root(&call.receiver).is_some_and(|name| crate::classic::hints::keeps(&name));
                self.expr(&call.receiver, if kept { Kind::Read } else { Kind::Move });
                for arg in &call.args {
                    self.expr(arg, Kind::Move);
                }
            }
            _ => self.expr(operand, Kind::Move),
        }
    }

    /// The left side of an assignment: a local is assigned, also inside a destructuring
    /// assignment (`(buf, last) = f().await;`, `[a, _] = ..`, `Pair { a, .. } = ..`); a field,
    /// an index or a deref is a place of a local read to be written.
    fn assignee(&mut self, left: &syn::Expr) {
        match left {
            syn::Expr::Path(_) => self.expr(left, Kind::Assign),
            syn::Expr::Paren(node) => self.assignee(&node.expr),
            syn::Expr::Tuple(node) => node.elems.iter().for_each(|elem| self.assignee(elem)),
            syn::Expr::Array(node) => node.elems.iter().for_each(|elem| self.assignee(elem)),
            syn::Expr::Call(node) => node.args.iter().for_each(|arg| self.assignee(arg)),
            syn::Expr::Struct(node) => node.fields.iter().for_each(|field| self.assignee(&field.expr)),
            // `_` and the `..` of a slice or tuple pattern assign nothing.
            syn::Expr::Infer(_) | syn::Expr::Range(syn::ExprRange { start: None, end: None, .. }) => {}
            _ => self.expr(left, Kind::Read),
        }
    }

    /// Visit `expr`, used as `kind` if it is a bare variable.
    fn expr(&mut self, expr: &syn::Expr, kind: Kind) {
        match expr {
            syn::Expr::Path(path) if path.qself.is_none() && path.path.segments.len() == 1 => {
                let segment = &path.path.segments[0];
                if segment.arguments.is_empty() {
                    self.push(segment.ident.to_string(), kind);
                }
            }
            syn::Expr::Paren(node) => self.expr(&node.expr, kind),
            syn::Expr::Group(node) => self.expr(&node.expr, kind),
            syn::Expr::Field(node) => {
                let before = self.found.len();
                match projection_root(&node.base) {
                    Some(root) if kind == Kind::Move => self.push_field(root, expr),
                    _ => self.expr(&node.base, if kind == Kind::Move { Kind::Move } else { Kind::Read }),
                }
                if self.found.len() == before + 1
                    && let Some((_, members)) = super::field_chain(expr)
                {
                    self.found[before].through = Some(super::members_text(&members[..1]));
                }
            }
            syn::Expr::Index(node) => {
                self.expr(&node.expr, Kind::Read);
                self.expr(&node.index, Kind::Move);
            }
            syn::Expr::Reference(node) => self.expr(&node.expr, Kind::Read),
            syn::Expr::Unary(node) if matches!(node.op, syn::UnOp::Deref(_)) => self.expr(&node.expr, Kind::Read),
            syn::Expr::Await(node) => self.awaited(&node.base),
            syn::Expr::MethodCall(node) => {
                // (A local, or a field of one, the user's `moves` hint names: the method takes
                // it; where code after it names the local again, the local lives in place, and
                // the call takes it at its last use only, `places`.)
                let hinted_local = matches!(&*node.receiver, syn::Expr::Path(path)
                    if path.path.get_ident().is_some_and(|name| crate::classic::hints::moves(&name.to_string())));
                let takes = super::receivers::consumes_receiver(&node.method.to_string())
                    || hinted_local
                    || super::receivers::hinted_field_receiver(&node.receiver).is_some();
                let receiver = if takes { Kind::Move } else { Kind::Read };
                self.expr(&node.receiver, receiver);
                for arg in &node.args {
                    self.expr(arg, Kind::Move);
                }
            }
            syn::Expr::Call(node) => {
                // A local called (`done(v)`) may be an `FnOnce` closure, which the call takes
                // by value: a move where it is the last use, a borrow where something later
                // reads it (an `Fn` or `FnMut` one), or where it is a closure that moves
                // nothing it captures (`closure_moves_captures`).
                let before = self.found.len();
                self.expr(&node.func, Kind::Move);
                if matches!(&*node.func, syn::Expr::Path(_)) && self.found.len() == before + 1 {
                    self.found[before].called = true;
                }
                for arg in &node.args {
                    self.expr(arg, Kind::Move);
                }
            }
            syn::Expr::Binary(node) => {
                use syn::BinOp::*;
                match node.op {
                    Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) => {
                        self.expr(&node.left, Kind::Read);
                        self.expr(&node.right, Kind::Read);
                    }
                    And(_) | Or(_) => {
                        self.expr(&node.left, Kind::Move);
                        self.conditionally(|this| this.expr(&node.right, Kind::Move));
                    }
                    AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) | BitXorAssign(_)
                    | BitAndAssign(_) | BitOrAssign(_) | ShlAssign(_) | ShrAssign(_) => {
                        self.expr(&node.right, Kind::Move);
                        self.expr(&node.left, Kind::Read);
                    }
                    _ => {
                        self.expr(&node.left, Kind::Move);
                        self.expr(&node.right, Kind::Move);
                    }
                }
            }
            syn::Expr::Assign(node) => {
                self.expr(&node.right, Kind::Move);
                self.assignee(&node.left);
            }
            syn::Expr::If(node) => {
                self.expr(&node.cond, Kind::Move);
                self.conditionally(|this| {
                    let mark = this.bound.len();
                    for pat in crate::classic::syntax::bindings::let_patterns(&node.cond) {
                        this.bind(pat);
                    }
                    this.visit_block(&node.then_branch);
                    this.bound.truncate(mark);
                    if let Some((_, else_branch)) = &node.else_branch {
                        this.expr(else_branch, Kind::Move);
                    }
                });
            }
            syn::Expr::Match(node) => {
                let patterns: Vec<&syn::Pat> = node.arms.iter().map(|arm| &arm.pat).collect();
                self.scrutinee(&node.expr, &patterns);
                self.conditionally(|this| {
                    for arm in &node.arms {
                        this.binding(&arm.pat, |this| {
                            // A guard sees the arm's bindings.
                            if let syn::Pat::Guard(guard) = &arm.pat {
                                this.expr(&guard.guard, Kind::Move);
                            }
                            this.expr(&arm.body, Kind::Move);
                        });
                    }
                });
            }
            syn::Expr::Let(node) => {
                self.scrutinee(&node.expr, &[&node.pat]);
                self.visit_pat(&node.pat);
            }
            syn::Expr::While(node) => self.conditionally(|this| {
                this.expr(&node.cond, Kind::Move);
                this.visit_block(&node.body);
            }),
            syn::Expr::ForLoop(node) => {
                self.expr(&node.expr, Kind::Move);
                self.conditionally(|this| this.binding(&node.pat, |this| this.visit_block(&node.body)));
            }
            syn::Expr::Loop(node) => self.conditionally(|this| this.visit_block(&node.body)),
            syn::Expr::Closure(node) => {
                let kind = if node.capture.is_some() { Kind::Move } else { Kind::Read };
                let mut inner = Collector { bound: self.bound.clone(), ..Collector::default() };
                for input in &node.inputs {
                    inner.bind(input);
                }
                inner.expr(&node.body, Kind::Move);
                let captured = node.capture.is_some();
                if captured {
                    return self.moved_into(expr, inner.found);
                }
                for mention in inner.found {
                    // A closure that uses a field by value captures that field by value.
                    let (kind, field) = match mention.kind {
                        _ if captured => (kind, None),
                        Kind::Move => (Kind::Move, None),
                        Kind::MoveField => (Kind::MoveField, mention.field),
                        _ => (Kind::Read, None),
                    };
                    self.found.push(Mention { field, ..Mention::new(mention.name, kind, self.conditional > 0) });
                }
            }
            syn::Expr::Async(node) => {
                let kind = if node.capture.is_some() { Kind::Move } else { Kind::Read };
                let mut inner = Collector { bound: self.bound.clone(), ..Collector::default() };
                inner.visit_block(&node.block);
                if node.capture.is_some() {
                    return self.moved_into(expr, inner.found);
                }
                for mention in inner.found {
                    self.found.push(Mention::new(mention.name, kind, self.conditional > 0));
                }
            }
            syn::Expr::Macro(node) => self.visit_macro(&node.mac),
            _ => visit::visit_expr(self, expr),
        }
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        self.expr(expr, Kind::Move);
    }

    /// A `let` binds its names for the rest of its block.
    fn visit_block(&mut self, block: &'ast syn::Block) {
        let mark = self.bound.len();
        for stmt in &block.stmts {
            self.visit_stmt(stmt);
        }
        self.bound.truncate(mark);
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            if init.diverge.is_some() {
                // A refutable pattern: it may match an enum, whose parts are no fields.
                self.expr(&init.expr, Kind::Move);
            } else {
                self.let_init(&local.pat, &init.expr);
            }
            if let Some((_, diverge)) = &init.diverge {
                let start = self.found.len();
                self.conditionally(|this| this.expr(diverge, Kind::Move));
                for mention in &mut self.found[start..] {
                    mention.leaves = true;
                }
            }
        }
        self.bind(&local.pat);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        match std_macros::parse(mac) {
            Some(Ok(parsed)) => {
                for (expr, usage) in parsed.exprs_with_use() {
                    self.expr(expr, if usage == ArgumentUse::Borrowed { Kind::Read } else { Kind::Move });
                }
                for args in parsed.format_args() {
                    for (name, _) in args.inline_captures() {
                        self.push(name, Kind::Read);
                    }
                }
                if let std_macros::Kind::Matches { rest, .. } = &parsed.kind {
                    self.tokens(rest, false, Kind::Read);
                }
            }
            Some(Err(_)) => self.tokens(&mac.tokens, false, Kind::Read),
            None if tracing_macros::has_tracing_fields(mac) => self.tokens(&mac.tokens, true, Kind::Read),
            None => self.tokens(&mac.tokens, false, Kind::Move),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    /// Identifiers in patterns: constants and bindings alike are harmless reads.
    fn visit_pat(&mut self, _: &'ast syn::Pat) {}
}

/// The variable a field projection starts from (`pair` in `pair.a.0`), if it is a plain
/// variable.
fn projection_root(base: &syn::Expr) -> Option<String> {
    crate::classic::syntax::place_root(base, crate::classic::syntax::Through::Fields).map(ToString::to_string)
}

/// Does an irrefutable pattern leave parts of its value unbound (`_`, `..`)?
pub(crate) fn leaves_parts(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) | syn::Pat::Rest(_) => true,
        syn::Pat::Tuple(tuple) => tuple.elems.iter().any(leaves_parts),
        syn::Pat::TupleStruct(tuple) => tuple.elems.iter().any(leaves_parts),
        syn::Pat::Struct(node) => node.rest.is_some() || node.fields.iter().any(|field| leaves_parts(&field.pat)),
        syn::Pat::Paren(node) => leaves_parts(&node.pat),
        syn::Pat::Type(node) => leaves_parts(&node.pat),
        syn::Pat::Or(node) => node.cases.iter().any(leaves_parts),
        _ => false,
    }
}

/// Where patterns come from: a `let` without `else` (a tuple struct or struct pattern there
/// is a struct's), or a `match` arm or `if let` (where it may be an enum variant's, whose
/// parts are no fields).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Patterns {
    Irrefutable,
    Refutable,
}

/// The places that `pat`, matched against `place`, binds by value (`pair.0` for `(a, _)`).
/// False where the pattern's parts are not fields the macro can name (a `..` before the end
/// of a tuple, a reference, a slice, an enum variant).
pub(crate) fn parts_bound(pat: &syn::Pat, place: &syn::Expr, kind: Patterns, out: &mut Vec<syn::Expr>) -> bool {
    use syn::spanned::Spanned;
    let field = |member: syn::Member, span: proc_macro2::Span| -> syn::Expr {
        syn::parse_quote_spanned!(span=> #place.#member)
    };
    let elements = |elems: &syn::punctuated::Punctuated<syn::Pat, syn::Token![,]>, out: &mut Vec<syn::Expr>| {
        let count = elems.len();
        elems.iter().enumerate().all(|(index, elem)| match elem {
            syn::Pat::Rest(_) => index + 1 == count,
            _ => {
                let member = syn::Member::Unnamed(syn::Index { index: index as u32, span: elem.span() });
                parts_bound(elem, &field(member, elem.span()), kind, out)
            }
        })
    };
    match pat {
        syn::Pat::Ident(ident) => {
            if ident.by_ref.is_none() {
                out.push(place.clone());
            }
            true
        }
        syn::Pat::Wild(_) | syn::Pat::Lit(_) | syn::Pat::Range(_) => true,
        // A constant or a unit variant: binds nothing.
        syn::Pat::Path(_) => true,
        syn::Pat::Tuple(tuple) => elements(&tuple.elems, out),
        syn::Pat::TupleStruct(tuple) if kind == Patterns::Irrefutable => elements(&tuple.elems, out),
        syn::Pat::Struct(node) if kind == Patterns::Irrefutable => node
            .fields
            .iter()
            .all(|part| parts_bound(&part.pat, &field(part.member.clone(), part.pat.span()), kind, out)),
        syn::Pat::Or(node) => node.cases.iter().all(|case| parts_bound(case, place, kind, out)),
        syn::Pat::Paren(node) => parts_bound(&node.pat, place, kind, out),
        syn::Pat::Type(node) => parts_bound(&node.pat, place, kind, out),
        _ => false,
    }
}

/// Does this pattern bind anything by value (and so may move out of the place it matches)?
pub(crate) fn binds_by_value(pat: &syn::Pat) -> bool {
    let mut bindings = Vec::new();
    crate::classic::syntax::bindings::pattern_bindings(pat, &mut bindings);
    bindings.iter().any(|binding| !binding.by_ref)
}
