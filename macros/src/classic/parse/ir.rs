//! The lowered body: the user's function with every await of this function at statement
//! level, and every construct that contains one kept as structure.
//!
//! `lower` builds this tree from the `syn` body. It differs from the source in three ways:
//!
//! - An await is only ever the initializer of a `let` or a statement of its own
//!   ([`Expr::Await`]), and its operand contains no await. Whatever an expression evaluates
//!   before an await, in Rust's evaluation order, is computed into a temporary first, so that
//!   it can be saved across the suspension.
//! - `while`, `while let` and `for` are `loop`s; `&&` and `||` with an await on the right are
//!   `if`s.
//! - Code without an await of this function stays `syn` ([`Expr::Plain`]) and is emitted as
//!   written. Constructs (blocks, `if`, `match`, loops) are kept as structure even without
//!   awaits when they stand as a statement, so that `emit` can split them when a path through
//!   them moves a local that an await later saves.

use std::collections::HashSet;

use proc_macro2::Span;
use syn::{Attribute, Label, Pat};

/// The lowered body, with what the lowering made for it.
pub(crate) struct Body {
    pub block: Block,
    /// The temporaries the lowering hoisted into locals of its own (`lower::hoisting`): an
    /// await may hold a borrow of each, so each lives in place. By name: the lowering names
    /// each apart, and user code cannot name them.
    pub hoisted: HashSet<String>,
}

pub(crate) struct Block {
    pub label: Option<Label>,
    pub unsafety: Option<syn::token::Unsafe>,
    pub stmts: Vec<Stmt>,
    /// The span of the user's block this is (`None` for one the lowering makes): its tail
    /// stays a tail of a block with that span, whose edition decides when the tail's
    /// temporaries drop.
    pub span: Option<proc_macro2::Span>,
}

pub(crate) enum Stmt {
    Let(Let),
    /// An expression statement; `semi` is false for a block's tail.
    Expr(Expr, bool),
    /// Items and macro statements without awaits, emitted as written.
    Verbatim(syn::Stmt),
}

pub(crate) struct Let {
    pub attrs: Vec<Attribute>,
    /// The user's pattern, with its type annotation if any.
    pub pat: Pat,
    pub init: Option<Expr>,
    /// `let ... else { diverge }` (without awaits: `lower` turns one with awaits into a `match`).
    pub diverge: Option<syn::Block>,
    pub span: Span,
}

pub(crate) enum Expr {
    /// Contains no await of this function (awaits inside closures and async blocks belong to
    /// them).
    Plain(syn::Expr),
    Await(Await),
    Block(Box<Block>),
    If(Box<If>),
    Match(Box<Match>),
    Loop(Box<Loop>),
}

pub(crate) struct Await {
    /// What is awaited; contains no await.
    pub operand: syn::Expr,
    /// The `.await` token: errors about what this await holds point here.
    pub span: Span,
}

pub(crate) struct If {
    /// A `bool` expression or a `let` chain, without awaits; its bindings are visible in the
    /// `then` branch.
    pub cond: syn::Expr,
    pub then_branch: Block,
    /// A block, or another `If` for `else if`.
    pub else_branch: Option<Expr>,
    /// The construct as written, when it contains no await.
    pub source: Option<syn::Expr>,
}

pub(crate) struct Match {
    /// Contains no await (awaits are computed before the match).
    pub scrutinee: syn::Expr,
    pub arms: Vec<Arm>,
    pub source: Option<syn::Expr>,
}

pub(crate) struct Arm {
    pub attrs: Vec<Attribute>,
    /// The pattern, with its guard (`Pat::Guard`) if any; guards contain no await.
    pub pat: Pat,
    pub body: Block,
}

pub(crate) struct Loop {
    pub label: Option<Label>,
    pub body: Block,
    pub source: Option<syn::Expr>,
    /// Its value is `()`: a `while`, a `for`, or a `loop` without a `break value`.
    pub unit: bool,
}

impl Block {
    pub(crate) fn plain(stmts: Vec<Stmt>) -> Self {
        Block { label: None, unsafety: None, stmts, span: None }
    }
}

impl Expr {
    /// The construct as written, when it has no await and can be emitted unchanged.
    pub(crate) fn source(&self) -> Option<&syn::Expr> {
        match self {
            Expr::Plain(expr) => Some(expr),
            Expr::Await(_) => None,
            Expr::Block(_) => None,
            Expr::If(node) => node.source.as_ref(),
            Expr::Match(node) => node.source.as_ref(),
            Expr::Loop(node) => node.source.as_ref(),
        }
    }
}
