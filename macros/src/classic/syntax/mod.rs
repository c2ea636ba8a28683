//! Questions every phase asks of syn's tree, answered once each: here, the shapes of
//! expressions (parentheses, the root of a place, `let` chains, field paths, what a `move`
//! takes); in the submodules, the bindings a pattern makes (`bindings`), how code uses a local
//! (`mentions`) and which places it assigns (`assignments`), which jumps leave it (`jumps`),
//! what a method call does with its receiver, guessed from its name (`receivers`), and how the
//! standard and `tracing` macros hold their arguments (`std_macros`, `tracing_macros`).

pub(crate) mod assignments;
pub(crate) mod bindings;
pub(crate) mod callables;
pub(crate) mod jumps;
pub(crate) mod mentions;
pub(crate) mod receivers;
pub(crate) mod std_macros;
pub(crate) mod tracing_macros;

use proc_macro2::Ident;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// Is this a local the lowering made (`parse::lower`'s temporaries, `__h0`, `__t1`, ...)? The
/// lowering's names begin with two underscores.
pub(crate) fn is_lowering_temporary(ident: &Ident) -> bool {
    ident.to_string().starts_with("__")
}

/// The identifier of a user's name, made anew at `span` (`name` as `Ident::to_string` writes
/// it, `r#` and all). A made identifier is read under the edition of its span, which for the
/// lowering's own spans may be a later one than the user's: a word that any edition reserves
/// (`gen` from 2024, `try` from 2018) is written raw, as it may be in every edition since 2018.
pub(crate) fn ident_for(name: &str, span: proc_macro2::Span) -> Ident {
    const RESERVED: [&str; 48] = [
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "do", "dyn", "else", "enum",
        "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
        "move", "mut", "override", "priv", "pub", "ref", "return", "static", "struct", "trait", "true", "try", "type",
        "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
    ];
    let bare = name.strip_prefix("r#").unwrap_or(name);
    if RESERVED.contains(&bare) { Ident::new_raw(bare, span) } else { Ident::new(bare, span) }
}

/// `expr` without the parentheses and invisible groups around it.
pub(crate) fn strip_parens(mut expr: &syn::Expr) -> &syn::Expr {
    loop {
        match expr {
            syn::Expr::Paren(node) => expr = &node.expr,
            syn::Expr::Group(node) => expr = &node.expr,
            _ => return expr,
        }
    }
}

/// Which projections `place_root` looks through.
#[derive(Clone, Copy)]
pub(crate) enum Through {
    /// Fields (`v.a.0`): the local a field projection starts from.
    Fields,
    /// Fields and indexes (`v.f[i]`): the local a borrow of a place takes.
    Indexes,
    /// Fields, indexes and derefs (`*v.f[i]`): the local a read by value starts from.
    Reads,
    /// Those, derefs (`*v.f`), `?`, and the calls of methods whose result may borrow their receiver (the
    /// method's name says, by the function given): the local a value may hold a borrow of
    /// (`v.iter_mut().next()`, `v.lock().unwrap()`).
    Borrows(fn(&str) -> bool),
}

/// The local at the root of a place expression, through parentheses and the projections
/// `through` names; `None` when it starts from anything else (a call, a literal, a path of
/// more than one segment).
pub(crate) fn place_root(expr: &syn::Expr, through: Through) -> Option<&syn::Ident> {
    let borrows = matches!(through, Through::Borrows(_));
    let derefs = borrows || matches!(through, Through::Reads);
    match expr {
        syn::Expr::Path(path) if path.qself.is_none() => path.path.get_ident(),
        syn::Expr::Paren(node) => place_root(&node.expr, through),
        syn::Expr::Group(node) => place_root(&node.expr, through),
        syn::Expr::Field(node) => place_root(&node.base, through),
        syn::Expr::Index(node) if !matches!(through, Through::Fields) => place_root(&node.expr, through),
        syn::Expr::Unary(node) if derefs && matches!(node.op, syn::UnOp::Deref(_)) => place_root(&node.expr, through),
        syn::Expr::MethodCall(node) if matches!(through, Through::Borrows(may_borrow) if may_borrow(&node.method.to_string())) => {
            place_root(&node.receiver, through)
        }
        syn::Expr::Try(node) if borrows => place_root(&node.expr, through),
        _ => None,
    }
}

/// The operands of a condition's `&&` chain, in order, through parentheses: the `let P = e`s
/// of a `let` chain and the `bool`s between them (a condition without `&&` is one operand).
pub(crate) fn chain_operands(cond: &syn::Expr) -> Vec<&syn::Expr> {
    match cond {
        syn::Expr::Binary(node) if matches!(node.op, syn::BinOp::And(_)) => {
            let mut operands = chain_operands(&node.left);
            operands.extend(chain_operands(&node.right));
            operands
        }
        syn::Expr::Paren(node) => chain_operands(&node.expr),
        other => vec![other],
    }
}

/// The `let`s of a condition (`let P = e`, or a `&&` chain with some).
pub(crate) fn let_chain(cond: &syn::Expr) -> Vec<&syn::ExprLet> {
    chain_operands(cond)
        .into_iter()
        .filter_map(|operand| match operand {
            syn::Expr::Let(node) => Some(node),
            _ => None,
        })
        .collect()
}

/// `let_chain`, to rewrite the `let`s in place.
pub(crate) fn let_chain_mut(cond: &mut syn::Expr) -> Vec<&mut syn::ExprLet> {
    match cond {
        syn::Expr::Let(node) => vec![node],
        syn::Expr::Binary(node) if matches!(node.op, syn::BinOp::And(_)) => {
            let mut lets = let_chain_mut(&mut node.left);
            lets.extend(let_chain_mut(&mut node.right));
            lets
        }
        syn::Expr::Paren(node) => let_chain_mut(&mut node.expr),
        _ => Vec::new(),
    }
}

/// An expression written as a statement as the rewriting left it, parenthesized when its first
/// operand is a block-like expression that the rewriting put there (a macro lent values, `{ let v
/// = ..; m!(v) } + 1;`): at the start of a statement, rustc reads such a block as a statement
/// of its own and the rest (`+ 1`) as the next, which the user's `m!(v) + 1;` never was.
pub(crate) fn expression_statement(expr: syn::Expr) -> syn::Expr {
    if !block_like(&expr) && block_like(leftmost_operand(&expr)) { syn::parse_quote!((#expr)) } else { expr }
}

/// The operand an expression begins with (itself when it begins with none).
fn leftmost_operand(expr: &syn::Expr) -> &syn::Expr {
    let next = match expr {
        syn::Expr::Binary(node) => &node.left,
        syn::Expr::Assign(node) => &node.left,
        syn::Expr::MethodCall(node) => &node.receiver,
        syn::Expr::Field(node) => &node.base,
        syn::Expr::Index(node) => &node.expr,
        syn::Expr::Call(node) => &node.func,
        syn::Expr::Cast(node) => &node.expr,
        syn::Expr::Try(node) => &node.expr,
        syn::Expr::Await(node) => &node.base,
        syn::Expr::Range(syn::ExprRange { start: Some(start), .. }) => start,
        _ => return expr,
    };
    leftmost_operand(next)
}

/// Does rustc end a statement at this expression's closing brace when it starts one (and a
/// macro's comma-separated branch without a comma after it)?
pub(crate) fn block_like(expr: &syn::Expr) -> bool {
    matches!(
        expr,
        syn::Expr::Block(_)
            | syn::Expr::If(_)
            | syn::Expr::Match(_)
            | syn::Expr::Loop(_)
            | syn::Expr::While(_)
            | syn::Expr::ForLoop(_)
            | syn::Expr::Unsafe(_)
            | syn::Expr::Const(_)
            | syn::Expr::TryBlock(_)
    )
}

/// Members as a place names them after its local, without spaces (`a.0`, `txn`).
pub(crate) fn members_text(members: &[syn::Member]) -> String {
    members.iter().map(|member| quote::quote!(#member).to_string()).collect::<Vec<_>>().join(".")
}

/// `v.a.b` (fields only, through parentheses): `v` and `[a, b]`.
pub(crate) fn field_chain(expr: &syn::Expr) -> Option<(String, Vec<syn::Member>)> {
    let mut members = Vec::new();
    let mut base = expr;
    loop {
        match base {
            syn::Expr::Field(node) => {
                members.push(node.member.clone());
                base = &node.base;
            }
            syn::Expr::Paren(node) => base = &node.expr,
            syn::Expr::Path(path) if !members.is_empty() && path.qself.is_none() => {
                members.reverse();
                return Some((path.path.get_ident()?.to_string(), members));
            }
            _ => return None,
        }
    }
}

/// The places a `move` closure or `async move` block (`code`) takes of each of `locals`, as
/// edition 2021 captures them: `None` where it names the local whole (a bare mention, a
/// mention inside a macro's tokens, which cannot be read as a path), else each field path it
/// names (`v.a.b`; a method call, index or `&` on the path takes the path itself), none inside
/// another. A name that `code` binds itself anywhere counts as whole (its mentions may be
/// of either binding).
pub(crate) fn moved_paths(code: &syn::Expr, locals: &[String]) -> Vec<(String, Option<Vec<syn::Member>>)> {
    let mut finder = MovedPaths { locals, whole: Vec::new(), paths: Vec::new() };
    finder.visit_expr(code);
    let mut out: Vec<(String, Option<Vec<syn::Member>>)> = Vec::new();
    for local in locals {
        if finder.whole.contains(local) || !finder.paths.iter().any(|(root, _)| root == local) {
            out.push((local.clone(), None));
            continue;
        }
        let mine: Vec<&Vec<syn::Member>> =
            finder.paths.iter().filter(|(root, _)| root == local).map(|(_, path)| path).collect();
        for path in &mine {
            let covered = mine.iter().any(|other| other.len() < path.len() && path.starts_with(other));
            let seen = out.iter().any(|(root, known)| root == local && known.as_ref() == Some(*path));
            if !covered && !seen {
                out.push((local.clone(), Some((*path).clone())));
            }
        }
    }
    out
}

struct MovedPaths<'l> {
    locals: &'l [String],
    whole: Vec<String>,
    paths: Vec<(String, Vec<syn::Member>)>,
}

impl MovedPaths<'_> {
    fn named(&self, name: &str) -> bool {
        self.locals.iter().any(|local| local == name)
    }
}

impl<'ast> Visit<'ast> for MovedPaths<'_> {
    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        if let Some((root, members)) = field_chain(expr)
            && self.named(&root)
        {
            self.paths.push((root, members));
            return;
        }
        if let syn::Expr::Path(path) = expr
            && path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
            && self.named(&ident.to_string())
        {
            self.whole.push(ident.to_string());
        }
        syn::visit::visit_expr(self, expr);
    }

    fn visit_pat_ident(&mut self, node: &'ast syn::PatIdent) {
        if self.named(&node.ident.to_string()) {
            self.whole.push(node.ident.to_string());
        }
        syn::visit::visit_pat_ident(self, node);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        each_ident(mac.tokens.clone(), &mut |name| {
            if self.named(&name) {
                self.whole.push(name);
            }
        });
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Calls `found` with each identifier among `tokens`, in groups too.
pub(crate) fn each_ident(tokens: proc_macro2::TokenStream, found: &mut impl FnMut(String)) {
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Ident(ident) => found(ident.to_string()),
            proc_macro2::TokenTree::Group(group) => each_ident(group.stream(), found),
            _ => {}
        }
    }
}

/// `f(..)`, `Self::f(..)`, `self.f(..)`, or one of them in `Box::pin(..)`, where `f` is
/// `function`: the call to await.
///
/// `bare_name` says whether a bare `name(..)` can call the function: in a free function it
/// does; in a method, or any function of an `impl` or trait, a bare name is a free function's
/// (an associated function is `Self::name(..)`), even one of the method's own name.
pub(crate) fn recursive_call<'e>(operand: &'e syn::Expr, function: &Ident, bare_name: bool) -> Option<&'e syn::Expr> {
    let is_self_call = |expr: &syn::Expr| match expr {
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(path) => {
                let segments: Vec<String> =
                    path.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
                match segments.as_slice() {
                    [name] => bare_name && function == name,
                    [owner, name] => owner == "Self" && function == name,
                    _ => false,
                }
            }
            _ => false,
        },
        syn::Expr::MethodCall(call) => {
            call.method == *function && matches!(&*call.receiver, syn::Expr::Path(path) if path.path.is_ident("self"))
        }
        _ => false,
    };
    if is_self_call(operand) {
        return Some(operand);
    }
    if let syn::Expr::Call(call) = operand
        && let syn::Expr::Path(path) = &*call.func
    {
        let segments: Vec<String> = path.path.segments.iter().map(|segment| segment.ident.to_string()).collect();
        let boxed = matches!(segments.as_slice(), [a, b] if a == "Box" && b == "pin")
            || matches!(segments.as_slice(), [.., a, b] if a == "Box" && b == "pin");
        if boxed && call.args.len() == 1 && is_self_call(&call.args[0]) {
            return Some(&call.args[0]);
        }
    }
    None
}

/// Which macro lends which local by value: the local's name and where the macro's path
/// starts in the source (`None` where spans carry no position).
pub(crate) fn lent_key(mac: &syn::Macro, name: &str) -> Option<String> {
    let start = mac.path.span().start();
    (start.line != 0).then(|| format!("{name}@{}:{}", start.line, start.column))
}

/// Which method call takes its receiver by value on a `moves` hint: the receiver's name and
/// where it starts in the source (as `lent_key`, with a `receiver ` mark).
pub(crate) fn receiver_key(receiver: &syn::Expr, name: &str) -> Option<String> {
    let start = receiver.span().start();
    (start.line != 0).then(|| format!("receiver {name}@{}:{}", start.line, start.column))
}

/// The names of the macros `walk` meets (the last segment of each path), in the standard
/// macros' arguments too: what an `awaits` or `returns` hint may name.
pub(crate) fn invoked_macros(walk: impl FnOnce(&mut InvokedMacros)) -> std::collections::HashSet<String> {
    let mut invoked = InvokedMacros(std::collections::HashSet::new());
    walk(&mut invoked);
    invoked.0
}

pub(crate) struct InvokedMacros(std::collections::HashSet<String>);

impl<'ast> Visit<'ast> for InvokedMacros {
    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(segment) = mac.path.segments.last() {
            self.0.insert(segment.ident.to_string());
        }
        std_macros::visit_arguments(&mut mac.clone(), |argument| self.visit_expr(argument));
    }
}
