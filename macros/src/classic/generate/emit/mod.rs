//! From the lowered tree to `move_next`: a dispatcher over states, one code segment per state.
//!
//! State 0 runs from the start of the body; every await, loop head, loop exit and merge point
//! after a split `if`/`match` starts another state. A segment re-opens the scopes that
//! enclose its state as nested blocks and moves the locals alive there out of the state
//! machine's slots into ordinary locals with the user's names (so that user code, macros
//! included, runs unchanged); it runs until the next transition, which moves the locals still
//! initialized back into their slots, sets the state and re-enters the dispatcher (or returns
//! `Pending` when an awaiter cannot complete).
//!
//! The walk tracks, for every variable, whether it is initialized at the current point
//! (`Init`). Where paths meet with different answers (a value moved on one branch only), the
//! variable is restored as a hidden `Option`: the drop flag the plain `async fn` keeps too.
//! Loop heads need a fixpoint: `classic::expand` repeats the walk with the states seen on the
//! back edges until they no longer change.
//!
//! A local that an await may find borrowed never moves: it lives in place in its field
//! (`in_place`), and no transition saves or restores it.
//!
//! One job per module: `initialization` (which locals hold a value), `liveness_queries` (is a
//! value read later), `shadowing` (bindings that hide locals), `in_place` (locals that live in
//! place), `segment` (a state's code while it is written), `var` (a local of the walk),
//! `var_key` (a local as the next walk finds it again); this module walks the tree and
//! writes the transitions.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::rewrite::{FieldMove, Jump, JumpTarget, Rewriter, Sink, stored_value};
use crate::classic::analyse::in_place::{Binding, KeptInPlace, Reason};
use crate::classic::analyse::jumps;
use crate::classic::analyse::liveness::{Path, Rest};
use crate::classic::analyse::loans::borrow_root;
use crate::classic::parse::ir::{self, Block, Expr, Stmt};
use crate::classic::parse::lower::is_operand_temporary;
use crate::classic::syntax;
use crate::classic::syntax::bindings::{let_patterns, names_bound_in, pattern_bindings};
use crate::classic::syntax::mentions::{self, Kind};

mod awaited_values;
mod constructs;
mod in_place;
mod initialization;
pub(crate) use initialization::Init;
mod lets;
mod liveness_queries;
mod scopes;
mod segment;
mod shadowing;
mod states;
mod values;
mod var;
use var::HiddenNames;
pub(crate) use var::{Calls, Holds, Loan, Role, Var, WalkState};
mod var_key;
pub(crate) use var_key::VarKey;

use crate::classic::syntax::recursive_call;
use constructs::has_return;
use lets::let_scrutinee;

use self::awaited_values::{AwaitedAt, as_user_value};
use self::segment::{Level, Segment};

pub(crate) type VarId = usize;
pub(crate) type StateId = u32;

struct Scope {
    vars: Vec<VarId>,
    unsafety: bool,
    /// Locals that bindings of this scope hide, moved to hidden names (`bind_let`), with
    /// their own names: they get them back where the scope ends.
    renamed: Vec<(VarId, Ident)>,
}

struct TargetInfo {
    head: Option<StateId>,
    exit: StateId,
    depth: usize,
    /// How much of `rest` is the code after the loop or block (a `break` continues there).
    rest_len: usize,
}

pub(crate) enum Param {
    /// `x: T`; `reference` is `Some(is_mut)` for a reference type.
    Plain { name: Ident, mutable: bool, reference: Option<bool>, called_by_value: bool },
    /// A pattern, bound from the hidden parameter `hidden`.
    Pattern { pat: Box<syn::Pat>, hidden: Ident },
}

pub(crate) struct Awaiter {
    pub field: Ident,
    pub seq: u32,
}

pub(crate) struct Config<'a> {
    pub krate: &'a syn::Path,
    /// The function's name, to recognize recursive awaits.
    pub function: &'a Ident,
    /// A bare call of that name is the function itself (`recursive_call`).
    pub bare_name_recursion: bool,
    /// The function's result type, where the body can name it (not an `impl Trait`).
    pub result_type: Option<syn::Type>,
    pub option_return: bool,
    /// The span of the user's body block: what the body's tail is the tail of has it, so that
    /// rustc reads the user's edition there.
    pub body_span: Span,
    /// The function returns `()`: a body that ends without a value returns it (any other
    /// body that does diverges, by a `panic!` say, which the walk cannot see).
    pub unit_return: bool,
    pub self_ident: Option<Ident>,
    /// Loop-head entry states assumed from the previous walk.
    pub assumed: HashMap<StateId, HashMap<VarKey, Init>>,
    /// Fields used by value in the previous walk: a loop's back edge brings them to saves
    /// that come before them in the walk.
    pub fields_used: Vec<((VarKey, String), syn::Expr)>,
    /// The locals that live in place, and why (`analyse::in_place`): what the loans analysis
    /// and the signature found, and what earlier walks added.
    pub in_place: KeptInPlace,
    /// The fields moved out of each local living in place (by its state-machine field), as
    /// the previous walk found them: a field's index is its bit in the local's `Slot`.
    pub parts: HashMap<String, Vec<String>>,
}

pub(crate) struct Emitter<'a> {
    config: &'a Config<'a>,
    pub vars: Vec<Var>,
    init: Vec<Init>,
    /// What the next walk knows each local by (`VarKey`): what this one learned of it is
    /// carried by that.
    keys: Vec<VarKey>,
    scopes: Vec<Scope>,
    /// The states written so far and the edges between them.
    pub(crate) states: States,
    /// Where the walk stands: the code still to run around it, the jumps that lead out.
    position: Position<'a>,
    /// The names the walk gives: state-machine fields, hidden locals, awaiter numbers.
    naming: Naming,
    /// What the walk finds for the next one, and for the code around the state machine.
    pub(crate) found: Found,
}

/// The states written so far and the edges between them.
pub(crate) struct States {
    segment: Segment,
    parked: Vec<Segment>,
    pinned: Vec<StateId>,
    pub(crate) segments: Vec<(usize, StateId, TokenStream)>,
    begun: usize,
    edges: Vec<(StateId, Vec<Init>)>,
    next_state: StateId,
    /// Entry states of loop heads as seen in this walk, back edges included (for the
    /// fixpoint).
    pub(crate) heads: HashMap<StateId, HashMap<VarKey, Init>>,
    /// The loop heads begun, with the variables in scope there.
    loop_heads: Vec<(StateId, Vec<VarId>)>,
}

/// Where the walk stands: the code still to run around it, the jumps that lead out.
pub(crate) struct Position<'a> {
    targets: Vec<JumpTarget>,
    target_info: Vec<TargetInfo>,
    rest: Vec<Rest<'a>>,
    /// The scope depth at which each entry of `rest` runs: a local is dead in the entries
    /// outside the scope that declares it.
    rest_depth: Vec<usize>,
    reachable: bool,
    /// The next `stmts` is a block's whose level was just opened, with the user's span for
    /// that block: its tail, if plain, stays the tail of the block (`plain_value`).
    block_tail: Option<Span>,
    /// The `let`s whose initializers are being lowered: the index in `rest` of the
    /// statements after each, and the names it binds (which there mean the new bindings).
    initializing: Vec<(usize, Vec<String>)>,
}

/// The names the walk gives: state-machine fields, hidden locals, awaiter numbers.
pub(crate) struct Naming {
    next_seq: u32,
    field_names: HashMap<String, usize>,
    next_hidden: usize,
}

/// What the walk finds for the next one, and for the code around the state machine.
pub(crate) struct Found {
    /// The macros lent a local by value (`places::lent_key`), for the twin to do the same.
    pub(crate) lent_by_value: HashSet<String>,
    pub(crate) awaiters: Vec<Awaiter>,
    /// Fields of locals used by value (`field_used`), keyed by variable and text: those of
    /// the previous walk first (a loop's back edge brings their bits to saves that come
    /// before them in this walk), so that each keeps its index.
    pub(crate) fields_used: Vec<((VarKey, String), syn::Expr)>,
    pub(crate) errors: Vec<syn::Error>,
    /// `Config::parts`, with the fields this walk found moved.
    pub(crate) parts: HashMap<String, Vec<String>>,
    /// Locals this walk found must live in place (a field moved out of one saved at a state's
    /// end, a local saved there that borrows it): they do in the next walk.
    pub(crate) wants_in_place: KeptInPlace,
    /// The lowering's temporaries that hold an awaited value, by name, with where the user
    /// wrote the await (`awaited_values`).
    awaited_temporaries: HashMap<String, AwaitedAt>,
}

fn sm() -> Ident {
    Ident::new("__sm", Span::mixed_site())
}

fn cx() -> Ident {
    Ident::new("__cx", Span::mixed_site())
}

pub(crate) fn dispatch_label() -> syn::Lifetime {
    syn::Lifetime::new("'__dispatch", Span::mixed_site())
}

fn awaited() -> Ident {
    Ident::new("__awaited", Span::mixed_site())
}

impl<'a> Emitter<'a> {
    pub(crate) fn new(config: &'a Config<'a>) -> Self {
        let mut field_names = HashMap::new();
        field_names.insert("state".to_owned(), 1);
        Emitter {
            config,
            found: Found {
                lent_by_value: HashSet::new(),
                awaiters: Vec::new(),
                fields_used: config.fields_used.clone(),
                errors: Vec::new(),
                parts: config.parts.clone(),
                wants_in_place: KeptInPlace::default(),
                awaited_temporaries: HashMap::new(),
            },
            naming: Naming { field_names, next_hidden: 0, next_seq: 0 },
            position: Position {
                rest: Vec::new(),
                rest_depth: Vec::new(),
                reachable: true,
                block_tail: None,
                initializing: Vec::new(),
                targets: Vec::new(),
                target_info: Vec::new(),
            },
            states: States {
                segment: Segment {
                    state: 0,
                    order: 0,
                    levels: vec![Level::new(TokenStream::new(), TokenStream::new())],
                },
                parked: Vec::new(),
                pinned: Vec::new(),
                segments: Vec::new(),
                begun: 0,
                edges: Vec::new(),
                next_state: 1,
                heads: HashMap::new(),
                loop_heads: Vec::new(),
            },
            vars: Vec::new(),
            init: Vec::new(),
            keys: Vec::new(),
            scopes: vec![Scope { vars: Vec::new(), unsafety: false, renamed: Vec::new() }],
        }
    }

    // ----- variables -----------------------------------------------------------------------

    fn field_name(&mut self, base: &str) -> Ident {
        let base = base.trim_start_matches("r#").trim_start_matches("__");
        let base = match base {
            "" => "value",
            // The receiver's slot, as C# calls it.
            "self" => "this",
            other => other,
        };
        let count = self.naming.field_names.entry(base.to_owned()).or_insert(0);
        *count += 1;
        let name = if *count == 1 { base.to_owned() } else { format!("{base}_{count}") };
        if matches!(name.as_str(), "Self" | "super" | "crate" | "self") {
            Ident::new(&format!("{name}_"), Span::call_site())
        } else {
            crate::classic::syntax::ident_for(&name, Span::call_site())
        }
    }

    /// Declare a variable in the innermost scope.
    pub(crate) fn declare(&mut self, name: Ident, mutable: bool, init: Init) -> VarId {
        let field = self.field_name(&name.to_string());
        let id = self.vars.len();
        let maybe = format_ident!("__maybe_{}", id, span = Span::mixed_site());
        let guard = format_ident!("__guard_{}", id, span = Span::mixed_site());
        let in_place = self.in_place_reason(&name);
        let key = VarKey::new(&name, &self.keys);
        self.vars.push(Var {
            in_place,
            span: name.span(),
            name,
            field,
            mutable,
            seq: self.naming.next_seq,
            holds: Holds::Owned,
            role: Role::Local,
            calls: Calls::Unknown,
            loan: Loan::default(),
            names: HiddenNames { maybe, guard },
            walk: WalkState::default(),
        });
        self.keys.push(key);
        self.naming.next_seq += 1;
        self.init.push(init);
        self.scopes.last_mut().expect("a scope is open").vars.push(id);
        id
    }

    pub(crate) fn var_mut(&mut self, id: VarId) -> &mut Var {
        &mut self.vars[id]
    }

    fn hidden(&mut self, prefix: &str) -> Ident {
        self.naming.next_hidden += 1;
        Ident::new(&format!("__{prefix}{}", self.naming.next_hidden), Span::mixed_site())
    }

    fn lookup(&self, name: &str) -> Option<VarId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|scope| scope.vars.iter().rev())
            .copied()
            .find(|&id| self.vars[id].name == name)
    }

    // ----- segments ------------------------------------------------------------------------

    fn emit(&mut self, tokens: TokenStream) {
        self.states.segment.levels.last_mut().expect("a level is open").body.extend(tokens);
    }

    /// A declaration without a value here, kept only if the level's code assigns the
    /// local (`Level::code`).
    fn declare_where_assigned(&mut self, name: Ident, declaration: TokenStream) {
        let level = self.states.segment.levels.last_mut().expect("a level is open");
        let position = level.body.clone().into_iter().count();
        level.uninit.push((position, name, declaration));
    }

    // ----- the walk ------------------------------------------------------------------------

    fn rewriter(&self) -> Rewriter<'_> {
        Rewriter::new(
            self.config.self_ident.as_ref(),
            self.config.option_return,
            self.config.result_type.as_ref(),
            &self.position.targets,
        )
    }

    /// The code for the jumps user code makes out of split loops.
    fn jumps_for(&mut self, jumps: Vec<Jump>) -> Vec<(Jump, TokenStream)> {
        jumps
            .into_iter()
            .map(|jump| {
                let info = &self.position.target_info[jump.target];
                let (state, depth) = match (jump.is_continue, info.head) {
                    (true, Some(head)) => (head, info.depth),
                    _ => (info.exit, info.depth),
                };
                let sink = match (&self.position.targets[jump.target].sink, jump.has_value) {
                    (Sink::Assign(var, ..), true) => Some(*var),
                    _ => None,
                };
                if let Some(var) = sink {
                    self.vars[var].walk.slotted = true;
                }
                let before = sink.map(|var| std::mem::replace(&mut self.init[var], Init::InSlot));
                // What runs next: the code after the loop or block, or the loop's body again.
                let leaving = if jump.is_continue { info.rest_len + 1 } else { info.rest_len };
                // What the value moves is gone when the jump saves (unless it was a copy, which
                // a later read tells).
                let mut moved: Vec<VarId> = jump
                    .moves
                    .iter()
                    .filter(|name| !self.mentioned_after_leaving(name, leaving))
                    .filter_map(|name| self.lookup(name))
                    .collect();
                // A value that names a local twice (`break mix(k, k)`): once, or the second
                // entry would remember the first one's `No` and leave it moved after the jump.
                moved.sort_unstable();
                moved.dedup();
                let mut moved: Vec<(VarId, Init)> =
                    moved.into_iter().map(|id| (id, std::mem::replace(&mut self.init[id], Init::No))).collect();
                // A field it moves leaves the rest of its local to save, partly moved.
                for FieldMove(mention) in &jump.field_moves {
                    if let Some(id) = self.lookup(&mention.name) {
                        moved.push((id, self.init[id]));
                        self.field_used(id, mention);
                    }
                }
                let code = self.jump_code(state, depth, None, Some(leaving));
                for (id, init) in moved.into_iter().rev() {
                    self.init[id] = init;
                }
                if let (Some(var), Some(before)) = (sink, before) {
                    self.init[var] = before;
                }
                (jump, code)
            })
            .collect()
    }

    fn rewrite_expr(&mut self, expr: &syn::Expr) -> syn::Expr {
        self.rewrite_matched(expr, None)
    }

    /// `rewrite_expr` for an expression matched against patterns (`Places::matched`).
    fn rewrite_matched(&mut self, expr: &syn::Expr, patterns: Option<&[&syn::Pat]>) -> syn::Expr {
        let expr = self.places_matched(expr, patterns);
        // Before the jumps are rewritten: a `return` of an awaited value is then one too.
        let expr = &awaited_values::read_as_awaited(expr, &self.found.awaited_temporaries);
        let jumps = self.rewriter().scan_expr(expr);
        let jumps = self.jumps_for(jumps);
        let mut rewriter = self.rewriter();
        rewriter.jumps = jumps;
        rewriter.expr(expr)
    }

    /// The whole body. `params` are the parameters in order after `self`: a plain one is
    /// declared here, a pattern is bound from the hidden parameter the stub stored (declared
    /// by the caller, like `self`).
    pub(crate) fn body(&mut self, block: &'a Block, params: Vec<Param>) {
        self.states.edges.push((0, self.init.clone()));
        let declared: Vec<VarId> = self.scopes[0].vars.clone();
        for id in declared {
            self.restore_param(id);
        }
        for param in params {
            match param {
                Param::Plain { name, mutable, reference, called_by_value } => {
                    let id = self.declare(name, mutable, Init::Yes);
                    if let Some(exclusive) = reference {
                        self.vars[id].holds = if exclusive { Holds::Exclusive } else { Holds::Borrowed };
                    }
                    if called_by_value {
                        self.vars[id].calls = Calls::TakeIt;
                    }
                    self.restore_param(id);
                }
                Param::Pattern { pat, hidden } => {
                    // Mutable: the pattern may bind `ref mut` parts of it.
                    let id = self.declare(hidden.clone(), true, Init::Yes);
                    self.restore_param(id);
                    let init: syn::Expr = syn::parse_quote!(#hidden);
                    self.bind_let(&[], &pat, &init, None, pat.span(), false);
                }
            }
        }
        self.push_scope(quote!(), false);
        self.position.block_tail = Some(self.config.body_span);
        self.stmts(&block.stmts, Sink::Return);
        self.pop_scope();
        self.join_back_edges();
        let segment = std::mem::replace(&mut self.states.segment, Segment { state: 0, order: 0, levels: Vec::new() });
        self.finish(segment);
    }

    fn stmts(&mut self, stmts: &'a [Stmt], sink: Sink) {
        let block_tail = self.position.block_tail.take();
        let tail = match stmts.last() {
            Some(Stmt::Expr(_, false)) => Some(stmts.len() - 1),
            _ => None,
        };
        for (index, stmt) in stmts.iter().enumerate() {
            if !self.position.reachable {
                return;
            }
            self.push_rest(Rest::Stmts(&stmts[index + 1..]));
            match stmt {
                Stmt::Expr(expr, _)
                    if Some(index) == tail
                        && block_tail.is_some()
                        && !self.must_split(expr)
                        && self.states.segment.levels.len() == self.scopes.len() =>
                {
                    match (expr.source(), block_tail) {
                        (Some(source), Some(span)) => self.plain_value(source, sink.clone(), Some(span)),
                        _ => self.expr(expr, sink.clone()),
                    }
                }
                Stmt::Expr(expr, _) if Some(index) == tail => self.expr(expr, sink.clone()),
                // The last statement of a block whose value goes to a slot, without a tail
                // (`Err(e) => { log(&e); resume_unwind(e); }`): the block's value is `()`, or `!`
                // where that statement diverges, which the macro cannot tell from a call
                // (`resume_unwind` returns `!`). Delivered as the block `{ expr; }`, rustc
                // gives it the type the plain block has.
                Stmt::Expr(expr, true)
                    if tail.is_none()
                        && index + 1 == stmts.len()
                        && matches!(sink, Sink::Assign(..))
                        && !jumps::panics(stmt)
                        && !self.must_split(expr)
                        && let Some(source) = expr.source()
                        && matches!(source, syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_))
                        && !syntax::jumps::jumps_out_of(source) =>
                {
                    let block: syn::Expr = syn::parse_quote_spanned!(source.span()=> { #source; });
                    self.plain_value(&block, sink.clone(), None);
                    self.pop_rest();
                    return;
                }
                _ => self.stmt(stmt),
            }
            // Nothing after `panic!(..)` runs (as liveness sees it too): what its path moved is
            // not moved where paths meet, and a block ending in it has type `!` (no `()` is
            // delivered for it).
            if jumps::panics(stmt) {
                self.position.reachable = false;
            }
            self.pop_rest();
        }
        if tail.is_none() && self.position.reachable {
            match sink {
                Sink::Return if !self.config.unit_return => {
                    self.emit(quote!(::core::unreachable!("lowering: the end of a body that diverges")));
                    self.position.reachable = false;
                }
                _ => self.deliver(quote!(()), &sink, Span::call_site()),
            }
        }
    }

    fn stmt(&mut self, stmt: &'a Stmt) {
        match stmt {
            Stmt::Let(node) => self.let_stmt(node),
            Stmt::Expr(expr, _) if valued_branches(expr) >= 2 && (expr.source().is_none() || self.must_split(expr)) => {
                self.discarded_construct(expr)
            }
            Stmt::Expr(expr, _) => self.expr(expr, Sink::Discard),
            Stmt::Verbatim(stmt) => {
                let stmt = &self.places_stmt(stmt);
                let jumps = self.rewriter().scan_stmt(stmt);
                let jumps = self.jumps_for(jumps);
                let mut rewriter = self.rewriter();
                rewriter.jumps = jumps;
                let rewritten = rewriter.stmt(stmt);
                let replaced = self.apply(&mentions::of_stmt(stmt));
                self.emit(rewritten.into_token_stream());
                self.drop_replaced(replaced);
            }
        }
    }
}

fn as_value(hidden: &Ident) -> syn::Expr {
    syn::parse_quote!(::core::convert::identity(#hidden))
}

/// How many branches of an `if` (with its `else if`s) or `match` end in a value (a tail).
fn valued_branches(expr: &Expr) -> usize {
    let valued = |block: &Block| usize::from(matches!(block.stmts.last(), Some(Stmt::Expr(_, false))));
    match expr {
        Expr::If(node) => {
            valued(&node.then_branch)
                + match &node.else_branch {
                    Some(Expr::Block(block)) => valued(block),
                    Some(other) => valued_branches(other),
                    None => 0,
                }
        }
        Expr::Match(node) => node.arms.iter().map(|arm| valued(&arm.body)).sum(),
        _ => 0,
    }
}
