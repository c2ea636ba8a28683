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
//! place), `segment` (a state's code while it is written); this module walks the tree and
//! writes the transitions.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::rewrite::{FieldMove, Jump, JumpTarget, Rewriter, Sink};
use crate::classic::analyse::jumps;
use crate::classic::analyse::liveness::{Path, Rest};
use crate::classic::analyse::loans::{self, borrow_root};
use crate::classic::analyse::mentions::{self, Kind};
use crate::classic::parse::bindings::{let_patterns, names_bound_in, pattern_bindings};
use crate::classic::parse::ir::{self, Block, Expr, Stmt};
use crate::classic::parse::lower::is_operand_temporary;
use crate::classic::syntax;

mod awaited_values;
mod in_place;
mod initialization;
mod liveness_queries;
mod segment;
mod shadowing;

use self::awaited_values::{AwaitedAt, as_user_value};
use self::segment::{Level, Segment};

pub(crate) type VarId = usize;
pub(crate) type StateId = u32;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Init {
    Yes,
    No,
    /// Initialized on some paths to this point only.
    Maybe,
    /// Already stored in its slot (a construct's value on its way to the merge point).
    InSlot,
    /// Initialized, and some of its fields used by value since (`consume(pair.a)`): they were
    /// copied if their types are `Copy`, moved out otherwise. Saved whole like `Yes`, after a
    /// check that those fields are `Copy` (a partly moved value cannot be saved; rustc
    /// reports where the field moved). The mask says which of the variable's fields in
    /// `Emitter::fields_used` (by their order among that variable's; the 32nd stands for
    /// all after it too).
    FieldsUsed(u32),
}

impl Init {
    fn join(self, other: Init) -> Init {
        match (self, other) {
            _ if self == other => self,
            (Init::Yes, Init::FieldsUsed(mask)) | (Init::FieldsUsed(mask), Init::Yes) => Init::FieldsUsed(mask),
            (Init::FieldsUsed(one), Init::FieldsUsed(other)) => Init::FieldsUsed(one | other),
            _ => Init::Maybe,
        }
    }

    /// Holds a value that can be saved whole.
    fn holds_value(self) -> bool {
        matches!(self, Init::Yes | Init::FieldsUsed(_))
    }
}

pub(crate) struct Var {
    /// What code calls it: the user's identifier, or a mixed-site one for hidden values.
    pub name: Ident,
    /// Its slot in the state machine.
    pub field: Ident,
    pub mutable: bool,
    /// Declaration order; fields are declared in reverse of it so that a state machine
    /// dropped while suspended drops its locals in reverse declaration order.
    pub seq: u32,
    /// A reference or a literal: saved only when read later, never just to be dropped.
    pub no_drop: bool,
    /// A closure that moves nothing it captures (`mentions::closure_moves_captures`): a
    /// call leaves it in place, to drop where its scope ends.
    pub called_in_place: bool,
    /// A `&mut` parameter (or `&mut self`): an await that reborrows it cannot be saved.
    pub exclusive_ref: bool,
    /// The local this variable borrows (`let r = &v;`), with the borrow's span.
    pub borrows: Option<(VarId, Span)>,
    /// The local its initializer borrows from, through a reference too (`self.buf.iter()`
    /// for a `&mut self`): a jump that saves this variable keeps that local in place.
    pub borrow_root: Option<VarId>,
    /// Ever saved: it needs a slot.
    pub slotted: bool,
    /// A parameter: the stub stores its value.
    pub param: bool,
    /// Receives a construct's value: read right after the construct, which `mentioned_later`
    /// cannot see.
    pub sink: bool,
    /// The hidden `Option` holding it where it is only maybe initialized.
    pub maybe: Ident,
    /// Hidden by a binding of a nested scope, and known by a hidden name until that scope
    /// ends (`bind_let`, `unshadow`).
    pub hidden: bool,
    /// Lives in place in a pinned state machine (`analyse::loans`): never saved or restored,
    /// reached through a `Place` bound under its name, dropped by a guard named `guard`.
    pub in_place: bool,
    pub guard: Ident,
    pub span: Span,
}

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
    Plain { name: Ident, mutable: bool, reference: Option<bool> },
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
    pub assumed: HashMap<StateId, Vec<Init>>,
    /// Fields used by value in the previous walk: a loop's back edge brings them to saves
    /// that come before them in the walk.
    pub fields_used: Vec<((VarId, String), syn::Expr)>,
    /// The names of the locals that live in place (`analyse::loans`; `self` for the receiver).
    pub in_place: HashSet<String>,
    /// The fields moved out of each local living in place (by its state-machine field), as
    /// the previous walk found them: a field's index is its bit in the local's `Slot`.
    pub parts: HashMap<String, Vec<String>>,
}

pub(crate) struct Emitter<'a> {
    config: &'a Config<'a>,
    pub vars: Vec<Var>,
    init: Vec<Init>,
    scopes: Vec<Scope>,
    segment: Segment,
    parked: Vec<Segment>,
    pinned: Vec<StateId>,
    pub segments: Vec<(usize, StateId, TokenStream)>,
    /// The macros lent a local by value (`places::lent_key`), for the twin to do the same.
    pub lent_by_value: HashSet<String>,
    begun: usize,
    edges: Vec<(StateId, Vec<Init>)>,
    next_state: StateId,
    next_seq: u32,
    pub awaiters: Vec<Awaiter>,
    /// Fields of locals used by value (`field_used`), keyed by variable and text: those of
    /// the previous walk first (a loop's back edge brings their bits to saves that come
    /// before them in this walk), so that each keeps its index.
    pub fields_used: Vec<((VarId, String), syn::Expr)>,
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
    pub errors: Vec<syn::Error>,
    field_names: HashMap<String, usize>,
    next_hidden: usize,
    /// Entry states of loop heads as seen in this walk, back edges included (for the
    /// fixpoint).
    pub heads: HashMap<StateId, Vec<Init>>,
    /// The loop heads begun, with the variables in scope there.
    loop_heads: Vec<(StateId, Vec<VarId>)>,
    /// The `let`s whose initializers are being lowered: the index in `rest` of the
    /// statements after each, and the names it binds (which there mean the new bindings).
    initializing: Vec<(usize, Vec<String>)>,
    /// `Config::parts`, with the fields this walk found moved.
    pub parts: HashMap<String, Vec<String>>,
    /// Locals saved with some of their fields used by value: a field moved out leaves a
    /// local that cannot be saved whole, so they live in place in the next walk.
    pub wants_in_place: HashSet<String>,
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
            vars: Vec::new(),
            init: Vec::new(),
            scopes: vec![Scope { vars: Vec::new(), unsafety: false, renamed: Vec::new() }],
            segment: Segment { state: 0, order: 0, levels: vec![Level::new(TokenStream::new(), TokenStream::new())] },
            begun: 0,
            parked: Vec::new(),
            pinned: Vec::new(),
            segments: Vec::new(),
            lent_by_value: HashSet::new(),
            edges: Vec::new(),
            next_state: 1,
            next_seq: 0,
            awaiters: Vec::new(),
            fields_used: config.fields_used.clone(),
            targets: Vec::new(),
            target_info: Vec::new(),
            rest: Vec::new(),
            rest_depth: Vec::new(),
            reachable: true,
            block_tail: None,
            errors: Vec::new(),
            field_names,
            next_hidden: 0,
            heads: HashMap::new(),
            loop_heads: Vec::new(),
            initializing: Vec::new(),
            parts: config.parts.clone(),
            wants_in_place: HashSet::new(),
            awaited_temporaries: HashMap::new(),
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
        let count = self.field_names.entry(base.to_owned()).or_insert(0);
        *count += 1;
        let name = if *count == 1 { base.to_owned() } else { format!("{base}_{count}") };
        if syn::parse_str::<Ident>(&name).is_ok() {
            Ident::new(&name, Span::call_site())
        } else if matches!(name.as_str(), "Self" | "super" | "crate" | "self") {
            Ident::new(&format!("{name}_"), Span::call_site())
        } else {
            Ident::new_raw(&name, Span::call_site())
        }
    }

    /// Declare a variable in the innermost scope.
    pub(crate) fn declare(&mut self, name: Ident, mutable: bool, init: Init) -> VarId {
        let field = self.field_name(&name.to_string());
        let id = self.vars.len();
        let maybe = format_ident!("__maybe_{}", id, span = Span::mixed_site());
        let guard = format_ident!("__guard_{}", id, span = Span::mixed_site());
        let in_place = self.wants_in_place(&name);
        self.vars.push(Var {
            in_place,
            guard,
            span: name.span(),
            name,
            field,
            mutable,
            seq: self.next_seq,
            no_drop: false,
            called_in_place: false,
            borrow_root: None,
            exclusive_ref: false,
            borrows: None,
            slotted: false,
            param: false,
            sink: false,
            maybe,
            hidden: false,
        });
        self.next_seq += 1;
        self.init.push(init);
        self.scopes.last_mut().expect("a scope is open").vars.push(id);
        id
    }

    pub(crate) fn var_mut(&mut self, id: VarId) -> &mut Var {
        &mut self.vars[id]
    }

    fn hidden(&mut self, prefix: &str) -> Ident {
        self.next_hidden += 1;
        Ident::new(&format!("__{prefix}{}", self.next_hidden), Span::mixed_site())
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
        self.segment.levels.last_mut().expect("a level is open").body.extend(tokens);
    }

    /// A declaration without a value here, kept only if the level's code assigns the
    /// local (`Level::code`).
    fn declare_where_assigned(&mut self, name: Ident, declaration: TokenStream) {
        let level = self.segment.levels.last_mut().expect("a level is open");
        let position = level.body.clone().into_iter().count();
        level.uninit.push((position, name, declaration));
    }

    fn push_level(&mut self, head: TokenStream) {
        self.segment.levels.push(Level::new(head, TokenStream::new()));
    }

    fn pop_level(&mut self) {
        let level = self.segment.levels.pop().expect("a level is open");
        let code = self.close_level(level);
        self.emit(code);
    }

    /// A level's code as a block: `head { body }`; for a block whose code ends in its tail's
    /// value (`plain_value`), that block handed to where the value goes, spanned as the user's
    /// block. Rust drops a tail's temporaries at the end of the statement around the block
    /// before edition 2024, and before the block's locals from 2024, by the block's edition:
    /// `slot = Some({ .. locals ..; tail });`, `let value = { .. }; return Poll::Ready(value);`
    /// keep both orders (and drop them before the parameters, as the plain `async fn` does).
    fn close_level(&mut self, mut level: Level) -> TokenStream {
        let head = std::mem::take(&mut level.head);
        let tail = level.tail.take();
        let body = level.code();
        let Some((sink, span)) = tail else { return quote!(#head { #body }) };
        let block = quote_spanned!(span=> #head { #body });
        match sink {
            Sink::Discard => quote!(#block;),
            Sink::Assign(var, _) => self.sink_code(var, block, span),
            Sink::Return => {
                let value = Ident::new("__lowering_value", Span::mixed_site());
                // Of the result type, so that the value is coerced to it as the plain function's
                // tail is (`Ok(Box::new(upload))` to `Result<Box<dyn Debug>, _>`).
                let ty = self.config.result_type.as_ref().map(|ty| quote!(: #ty));
                quote! {
                    let #value #ty = #block;
                    return ::core::task::Poll::Ready(#value);
                }
            }
        }
    }

    fn push_scope(&mut self, head: TokenStream, unsafety: bool) {
        self.scopes.push(Scope { vars: Vec::new(), unsafety, renamed: Vec::new() });
        self.push_level(head);
    }

    fn pop_scope(&mut self) {
        let scope = self.end_scope();
        self.unshadow(scope);
        self.pop_level();
    }

    /// The innermost scope ends for the walk; the code that leaves it (the jump to a merge
    /// point, a loop head or exit) still runs where its hidden names are in effect, so the
    /// caller gives them back (`unshadow`) after that code.
    fn end_scope(&mut self) -> Scope {
        self.scopes.pop().expect("a scope is open")
    }

    /// The locals a scope's bindings hid are visible under their own names again.
    fn unshadow(&mut self, scope: Scope) {
        for (id, name) in scope.renamed.into_iter().rev() {
            self.vars[id].name = name;
            self.vars[id].hidden = false;
        }
    }

    /// Back to the states of a snapshot (variables declared since keep theirs).
    fn restore_init(&mut self, snapshot: &[Init]) {
        self.init[..snapshot.len()].copy_from_slice(snapshot);
    }

    fn new_state(&mut self) -> StateId {
        let state = self.next_state;
        self.next_state += 1;
        state
    }

    fn finish(&mut self, mut segment: Segment) {
        while segment.levels.len() > 1 {
            let level = segment.levels.pop().expect("checked");
            let code = self.close_level(level);
            segment.levels.last_mut().expect("checked").body.extend(code);
        }
        let body = segment.levels.pop().expect("the root level").code();
        // An unsafe operation of the user's outside `unsafe` is the twin's error (E0133, once,
        // as for the plain function): the state machine's copy of the code runs in an `unsafe`
        // block. Without it, rustc would report it a second time in other words ("requires
        // unsafe function or block": rustc words E0133 so where `unsafe_op_in_unsafe_fn` is
        // allowed, which the segment's `allow(warnings)` does to the edition 2024 default).
        // The block draws no `unsafe_code` lint, which rustc does not report in code an
        // attribute macro writes (its span is the macro's), so that a crate with
        // `#![forbid(unsafe_code)]` can lower its functions; an `allow(unsafe_code)` here would
        // be E0453 in such a crate, for every function.
        let body = quote!(#[allow(unused_unsafe)] unsafe { #body });
        self.segments.push((segment.order, segment.state, body));
    }

    /// Code that saves what is alive in `scopes[..depth]` and moves to `target`. Records the
    /// edge for the target's entry states. A `break` or `continue` (`skips_rest`) skips the
    /// code after it that `rest` describes: an assignment there that would make the value
    /// dead may never run, so a reference or literal named there at all is kept.
    fn jump_code(&mut self, target: StateId, depth: usize, await_span: Option<Span>, skips_rest: bool) -> TokenStream {
        let sm = sm();
        let mut saves = TokenStream::new();
        let mut edge = self.init.clone();
        let in_scope: Vec<VarId> = self.scopes[..depth].iter().flat_map(|scope| scope.vars.clone()).collect();
        for &id in &in_scope {
            let var = &self.vars[id];
            let span = await_span.unwrap_or(var.span);
            if var.in_place {
                // It stays where it is; its guard must not drop it as the state's code ends.
                let guard = &var.guard;
                saves.extend(quote_spanned!(span=> ::core::mem::forget(#guard);));
                continue;
            }
            match self.init[id] {
                Init::No => {}
                Init::InSlot => edge[id] = Init::Yes,
                Init::Yes | Init::FieldsUsed(_) => {
                    let needed = self.var_mentioned_later(id) || (skips_rest && self.var_named_later(id));
                    if var.no_drop && !needed {
                        edge[id] = Init::No;
                        continue;
                    }
                    if let Init::FieldsUsed(_) = self.init[id] {
                        // A field may have moved out: it lives in place in the next walk.
                        self.keep_in_place(id);
                    }
                    // What it borrows must not move out and back in (a state that does not
                    // await, at a loop's head, saves it too): in place in the next walk.
                    if let Some(root) = self.vars[id].borrow_root.filter(|&root| !self.vars[root].in_place) {
                        self.keep_in_place(root);
                    }
                    let var = &mut self.vars[id];
                    var.slotted = true;
                    let (field, name) = (&var.field, &var.name);
                    saves.extend(quote_spanned!(span=> #sm.#field = ::core::option::Option::Some(#name);));
                }
                Init::Maybe => {
                    let var = &mut self.vars[id];
                    var.slotted = true;
                    let (field, maybe) = (&var.field, &var.maybe);
                    saves.extend(quote_spanned!(span=> #sm.#field = #maybe;));
                }
            }
        }
        self.edges.push((target, edge));
        let label = dispatch_label();
        quote!(#saves #sm.state = #target; continue #label;)
    }

    /// Asks for the next walk to keep `id` in place (a user's local, a parameter or `self`).
    fn keep_in_place(&mut self, id: VarId) {
        let var = &self.vars[id];
        let name = var.name.to_string();
        if name == mentions::SELF_LOCAL {
            self.wants_in_place.insert("self".to_owned());
        } else if !var.hidden && (!name.starts_with("__") || var.param) {
            // This binding (`loans::binding_key`), not every one of its name.
            self.wants_in_place.insert(loans::binding_key(&var.name));
        }
    }

    fn jump(&mut self, target: StateId, await_span: Option<Span>) {
        if !self.reachable {
            return;
        }
        let depth = self.scopes.len();
        let code = self.jump_code(target, depth, await_span, false);
        self.emit(code);
        self.reachable = false;
    }

    /// Start the segment of `state`, at the current scope depth, entered by the edges
    /// recorded so far. `prologue` runs before anything is restored.
    fn begin(&mut self, state: StateId, prologue: TokenStream, loop_head: bool) -> bool {
        let in_scope: Vec<VarId> = self.scopes.iter().flat_map(|scope| scope.vars.clone()).collect();
        let mut entry: Option<Vec<Init>> = None;
        let var_count = self.vars.len();
        for (_, edge) in self.edges.iter().filter(|(target, _)| *target == state) {
            let mut edge = edge.clone();
            edge.resize(var_count, Init::No);
            entry = Some(match entry {
                None => edge,
                Some(mut joined) => {
                    for &id in &in_scope {
                        joined[id] = joined[id].join(edge[id]);
                    }
                    joined
                }
            });
        }
        if loop_head {
            if let (Some(entry), Some(assumed)) = (entry.as_mut(), self.config.assumed.get(&state)) {
                for &id in &in_scope {
                    if let Some(&assumed) = assumed.get(id) {
                        entry[id] = entry[id].join(assumed);
                    }
                }
            }
            if let Some(entry) = &entry {
                self.heads.insert(state, entry.clone());
                self.loop_heads.push((state, in_scope.clone()));
            }
        }
        let Some(entry) = entry else {
            // Nothing reaches this state: what follows is dead code, kept out.
            self.reachable = false;
            return false;
        };
        let old = std::mem::replace(
            &mut self.segment,
            Segment { state, order: self.begun + 1, levels: vec![Level::new(TokenStream::new(), prologue)] },
        );
        self.begun += 1;
        if self.pinned.contains(&old.state) {
            self.parked.push(old);
        } else {
            self.finish(old);
        }
        for &id in &in_scope {
            self.init[id] = entry[id];
        }
        let sm = sm();
        let scopes: Vec<(bool, Vec<VarId>)> =
            self.scopes.iter().map(|scope| (scope.unsafety, scope.vars.clone())).collect();
        for (depth, (unsafety, vars)) in scopes.into_iter().enumerate() {
            if depth > 0 {
                let head = if unsafety { quote!(unsafe) } else { quote!() };
                self.push_level(head);
            }
            for id in vars {
                if self.vars[id].in_place {
                    let binding = self.place_binding(id);
                    self.emit(binding);
                    continue;
                }
                let var = &self.vars[id];
                let mutability = if var.mutable { quote!(mut) } else { quote!() };
                let (name, field, maybe) = (var.name.clone(), var.field.clone(), var.maybe.clone());
                // A local that holds no value here, or maybe one (kept in its hidden
                // `Option`), is declared under its own name too where code here may assign
                // it (nothing can read it before); `drop_replaced` drops a maybe-held value
                // where the assignment is.
                let uninit = matches!(self.init[id], Init::No | Init::Maybe) && !var.sink && self.var_named_later(id);
                if uninit {
                    let declaration = quote! {
                        #[allow(unused_mut, unused_variables)]
                        let #mutability #name;
                    };
                    self.declare_where_assigned(name.clone(), declaration);
                }
                let code = match self.init[id] {
                    Init::Yes | Init::FieldsUsed(_) => Some(quote! {
                        #[allow(unused_mut, unused_variables)]
                        let #mutability #name = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!());
                    }),
                    Init::Maybe => Some(quote! {
                        #[allow(unused_mut, unused_variables)]
                        let mut #maybe = ::core::option::Option::take(&mut #sm.#field);
                    }),
                    Init::InSlot | Init::No => None,
                };
                self.emit(code.unwrap_or_default());
            }
        }
        self.reachable = true;
        true
    }

    /// After a branch: back to the segment the construct started in, with its levels closed
    /// down to `depth`.
    fn back_to(&mut self, origin: StateId, depth: usize) {
        if self.segment.state != origin {
            let position =
                self.parked.iter().rposition(|segment| segment.state == origin).expect("the origin is parked");
            let origin = self.parked.remove(position);
            let current = std::mem::replace(&mut self.segment, origin);
            self.finish(current);
        }
        while self.segment.levels.len() > depth {
            self.pop_level();
        }
    }

    // ----- the walk ------------------------------------------------------------------------

    fn rewriter(&self) -> Rewriter<'_> {
        Rewriter::new(self.config.self_ident.as_ref(), self.config.option_return, &self.targets)
    }

    /// The code for the jumps user code makes out of split loops.
    fn jumps_for(&mut self, jumps: Vec<Jump>) -> Vec<(Jump, TokenStream)> {
        jumps
            .into_iter()
            .map(|jump| {
                let info = &self.target_info[jump.target];
                let (state, depth) = match (jump.is_continue, info.head) {
                    (true, Some(head)) => (head, info.depth),
                    _ => (info.exit, info.depth),
                };
                let sink = match (&self.targets[jump.target].sink, jump.has_value) {
                    (Sink::Assign(var, _), true) => Some(*var),
                    _ => None,
                };
                if let Some(var) = sink {
                    self.vars[var].slotted = true;
                }
                let before = sink.map(|var| std::mem::replace(&mut self.init[var], Init::InSlot));
                // What the value moves is gone when the jump saves (unless it was a copy, which
                // a later read tells).
                let after = if jump.is_continue { None } else { Some(info.rest_len) };
                let mut moved: Vec<VarId> = jump
                    .moves
                    .iter()
                    .filter(|name| match after {
                        Some(rest_len) => !self.mentioned_after_leaving(name, rest_len),
                        None => !self.mentioned_later(name),
                    })
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
                let code = self.jump_code(state, depth, None, true);
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
        let expr = &awaited_values::read_as_awaited(expr, &self.awaited_temporaries);
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
        self.edges.push((0, self.init.clone()));
        let declared: Vec<VarId> = self.scopes[0].vars.clone();
        for id in declared {
            self.restore_param(id);
        }
        for param in params {
            match param {
                Param::Plain { name, mutable, reference } => {
                    let id = self.declare(name, mutable, Init::Yes);
                    if let Some(exclusive) = reference {
                        self.vars[id].no_drop = true;
                        self.vars[id].exclusive_ref = exclusive;
                    }
                    self.restore_param(id);
                }
                Param::Pattern { pat, hidden } => {
                    // Mutable: the pattern may bind `ref mut` parts of it.
                    let id = self.declare(hidden.clone(), true, Init::Yes);
                    self.restore_param(id);
                    let init: syn::Expr = syn::parse_quote!(#hidden);
                    self.bind_let(&[], &pat, &init, None, pat.span());
                }
            }
        }
        self.push_scope(quote!(), false);
        self.block_tail = Some(self.config.body_span);
        self.stmts(&block.stmts, Sink::Return);
        self.pop_scope();
        self.join_back_edges();
        let segment = std::mem::replace(&mut self.segment, Segment { state: 0, order: 0, levels: Vec::new() });
        self.finish(segment);
    }

    /// A loop head's entry state joins every edge into it, the back edges the walk found
    /// after beginning it included: the next round of the fixpoint starts from that.
    fn join_back_edges(&mut self) {
        for (state, in_scope) in std::mem::take(&mut self.loop_heads) {
            let Some(entry) = self.heads.get_mut(&state) else {
                continue;
            };
            for (_, edge) in self.edges.iter().filter(|(target, _)| *target == state) {
                for &id in &in_scope {
                    if let (Some(joined), Some(&seen)) = (entry.get_mut(id), edge.get(id)) {
                        *joined = joined.join(seen);
                    }
                }
            }
        }
    }

    /// State 0 takes a parameter out of the slot the stub filled.
    fn restore_param(&mut self, id: VarId) {
        let sm = sm();
        self.vars[id].param = true;
        if self.vars[id].in_place {
            let binding = self.place_binding(id);
            self.emit(binding);
            return;
        }
        let var = &mut self.vars[id];
        var.slotted = true;
        let mutability = if var.mutable { quote!(mut) } else { quote!() };
        let (name, field) = (&var.name, &var.field);
        let code = quote! {
            #[allow(unused_mut, unused_variables)]
            let #mutability #name = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!());
        };
        self.emit(code);
    }

    fn stmts(&mut self, stmts: &'a [Stmt], sink: Sink) {
        let block_tail = self.block_tail.take();
        let tail = match stmts.last() {
            Some(Stmt::Expr(_, false)) => Some(stmts.len() - 1),
            _ => None,
        };
        for (index, stmt) in stmts.iter().enumerate() {
            if !self.reachable {
                return;
            }
            self.push_rest(Rest::Stmts(&stmts[index + 1..]));
            match stmt {
                Stmt::Expr(expr, _)
                    if Some(index) == tail
                        && block_tail.is_some()
                        && !self.must_split(expr)
                        && self.segment.levels.len() == self.scopes.len() =>
                {
                    match (expr.source(), block_tail) {
                        (Some(source), Some(span)) => self.plain_value(source, sink.clone(), Some(span)),
                        _ => self.expr(expr, sink.clone()),
                    }
                }
                Stmt::Expr(expr, _) if Some(index) == tail => self.expr(expr, sink.clone()),
                _ => self.stmt(stmt),
            }
            // Nothing after `panic!(..)` runs (as liveness sees it too): what its path moved is
            // not moved where paths meet, and a block ending in it has type `!` (no `()` is
            // delivered for it).
            if jumps::panics(stmt) {
                self.reachable = false;
            }
            self.pop_rest();
        }
        if tail.is_none() && self.reachable {
            match sink {
                Sink::Return if !self.config.unit_return => {
                    self.emit(quote!(::core::unreachable!("lowering: the end of a body that diverges")));
                    self.reachable = false;
                }
                _ => self.deliver(quote!(()), &sink, Span::call_site()),
            }
        }
    }

    /// Hand a value to where it goes.
    fn deliver(&mut self, value: TokenStream, sink: &Sink, span: Span) {
        match sink {
            Sink::Discard => {
                let value = match syn::parse2::<syn::Expr>(value.clone()) {
                    Ok(expr) => syntax::expression_statement(expr).into_token_stream(),
                    Err(_) => value,
                };
                self.emit(quote_spanned!(span=> #value;))
            }
            Sink::Assign(var, _) => {
                // Straight into the slot: the merge point restores it. (A local declared
                // before the construct could not be inferred in segments that never assign it.)
                let code = self.sink_code(*var, value, span);
                self.emit(code);
            }
            Sink::Return => {
                let code = quote_spanned!(span=> return ::core::task::Poll::Ready(#value););
                self.emit(code);
                self.reachable = false;
            }
        }
    }

    fn sink_code(&mut self, var: VarId, value: TokenStream, span: Span) -> TokenStream {
        let sm = sm();
        let variable = &mut self.vars[var];
        variable.slotted = true;
        let field = &variable.field;
        self.init[var] = Init::InSlot;
        quote_spanned!(span=> #sm.#field = ::core::option::Option::Some(#value);)
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

    /// An `if` or `match` statement whose branches give values (`if c { Some(x) } else { None
    /// };`), taken apart: each branch's value goes to one hidden local, as in a `let`, so that
    /// rustc infers one type from all of them (a branch's value alone, `None;`, has none), and
    /// it drops where the statement ends, as the plain statement's value does.
    fn discarded_construct(&mut self, expr: &'a Expr) {
        let hidden = self.hidden("v");
        let var = self.declare(hidden.clone(), false, Init::No);
        self.vars[var].sink = true;
        let field = self.vars[var].field.clone();
        self.expr(expr, Sink::Assign(var, field));
        if self.reachable {
            if self.init[var] == Init::InSlot {
                let sm = sm();
                let field = &self.vars[var].field;
                self.emit(quote!(let #hidden = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!());));
            }
            self.init[var] = Init::No;
            self.emit(quote!(::core::mem::drop(#hidden);));
        }
    }

    fn let_stmt(&mut self, node: &'a ir::Let) {
        // Until the pattern binds, the statements after the `let` name the new bindings,
        // not the locals of the same names its initializer uses (`bind_let` ends this).
        let mark = self.initializing.len();
        if node.init.is_some() && !self.rest.is_empty() {
            let mut bindings = Vec::new();
            pattern_bindings(&node.pat, &mut bindings);
            let names = bindings.iter().map(|binding| binding.ident.to_string()).collect();
            self.initializing.push((self.rest.len() - 1, names));
        }
        self.let_stmt_inner(node);
        self.initializing.truncate(mark);
    }

    fn let_stmt_inner(&mut self, node: &'a ir::Let) {
        let attrs = &node.attrs;
        match &node.init {
            None if !self.place_temps(&node.pat).1.is_empty() => {
                // Its place is all it needs (the value's type is inferred where it is assigned).
                let (pat, _) = self.place_temps(&node.pat);
                if !matches!(&pat, syn::Pat::Ident(_)) {
                    self.emit(quote!(#(#attrs)* #[allow(unused_variables)] let #pat;));
                }
                let ids = self.declare_pattern(&node.pat, Init::No, None);
                self.bind_places(&ids, &[]);
            }
            None => {
                let pat = &node.pat;
                let declaration = quote!(#(#attrs)* let #pat;);
                match pat {
                    // Kept only if this state's code names it: without a type, rustc infers
                    // it from an assignment, which may be in another state.
                    syn::Pat::Ident(ident) if ident.subpat.is_none() => {
                        self.declare_where_assigned(ident.ident.clone(), declaration)
                    }
                    _ => self.emit(declaration),
                }
                self.declare_pattern(&node.pat, Init::No, None);
            }
            Some(Expr::Await(awaited_node)) => {
                self.await_expr(awaited_node);
                if self.reachable {
                    let at = AwaitedAt::of(&awaited_node.operand, awaited_node.span);
                    let value = match node.diverge {
                        // A `match` arm, as the await's desugaring gives the value: a mismatch
                        // with the `let`'s type is then the twin's diagnostic, in its words,
                        // and the local's type an error, as after the plain function's await
                        // (no follow-on errors).
                        None => awaited_values::as_awaited(awaited().into_token_stream(), at),
                        Some(_) => as_user_value(&awaited(), at),
                    };
                    // A temporary the lowering spilled the await into (`f(g().await)`): where
                    // an operand reads it, it reads as the awaited value.
                    if let Some(temporary) = lowering_temporary(&node.pat) {
                        self.awaited_temporaries.insert(temporary, at);
                    }
                    self.bind_let(attrs, &node.pat, &value, node.diverge.as_ref(), node.span);
                }
            }
            Some(init) => match init.source() {
                Some(source) if !self.must_split(init) => {
                    // The same value moved into another temporary (an operand read before a
                    // later one awaits).
                    if let (Some(temporary), syn::Expr::Path(path)) = (lowering_temporary(&node.pat), source)
                        && let Some(held) = path.path.get_ident()
                        && let Some(at) = self.awaited_temporaries.get(&held.to_string())
                    {
                        self.awaited_temporaries.insert(temporary, *at);
                    }
                    self.bind_let(attrs, &node.pat, source, node.diverge.as_ref(), node.span)
                }
                _ => {
                    let hidden = self.hidden("v");
                    let var = self.declare(hidden.clone(), false, Init::No);
                    // Slotted once something stores a value into it: a construct that always
                    // diverges never does, and an unused slot's type could not be inferred.
                    self.vars[var].sink = true;
                    let field = self.vars[var].field.clone();
                    self.expr(init, Sink::Assign(var, field));
                    if self.reachable {
                        if self.init[var] == Init::InSlot {
                            // The construct did not end in a new state (a block): take the
                            // value back out of its slot here.
                            let sm = sm();
                            let field = &self.vars[var].field;
                            let code = quote!(let #hidden = ::core::option::Option::take(&mut #sm.#field).unwrap_or_else(|| ::core::unreachable!()););
                            self.emit(code);
                        }
                        self.init[var] = Init::No;
                        let value = as_value(&hidden);
                        self.bind_let(attrs, &node.pat, &value, node.diverge.as_ref(), node.span);
                    }
                }
            },
        }
    }

    /// `let pat = init else { diverge };` with an await-free `init`.
    fn bind_let(
        &mut self,
        attrs: &[syn::Attribute],
        pat: &syn::Pat,
        init: &syn::Expr,
        diverge: Option<&syn::Block>,
        span: Span,
    ) {
        let split = if diverge.is_none() { self.parts_of_in_place(pat, init) } else { None };
        let (pat, init) = match &split {
            Some((pat, init)) => (pat, init),
            None => (pat, init),
        };
        let mut rewritten = self.rewrite_matched(init, Some(&[pat]));
        let diverge_block = diverge.map(|block| {
            let expr: syn::Expr =
                syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: block.clone() });
            self.rewrite_expr(&expr)
        });
        let diverge_code = diverge_block.as_ref().map(|block| quote!(else #block));
        // The `else` block always leaves (rustc checks): what it moves or assigns is not so
        // where the code after the `let` goes on (its jumps save what is alive there).
        let found = if diverge.is_some() { mentions::of_expr(init) } else { mentions::of_let_init(pat, init) };
        let mut replaced = self.apply(&found);
        self.drop_on_assignment(&mut rewritten, &mut replaced);
        // From here on, the statements after the `let` name its bindings.
        let initialized = if self.initializing.last().is_some_and(|(index, _)| Some(*index) == self.rest.len().checked_sub(1)) {
            self.initializing.pop()
        } else {
            None
        };
        let shadowed = self.shadowed_by(pat);
        if shadowed.is_empty() {
            self.hide_dead(pat, &shadowed);
        }
        let (emitted_pat, temps) = self.place_temps(pat);
        if shadowed.is_empty() {
            self.emit(quote_spanned!(span=> #(#attrs)* let #emitted_pat = #rewritten #diverge_code;));
        } else {
            // The new bindings hide live locals that a later transition must save. The
            // initializer runs first (it may read them); then a state of its own begins, which
            // restores the hidden locals under hidden names in their own places, so that they
            // still drop in declaration order, and binds the pattern there.
            let value = self.hidden("init");
            // A `let .. else` is matched here, and its `else` block runs here, where the
            // locals the pattern hides still have their names.
            let by_parts = match &diverge_block {
                None => shadowing::matched_before_state(&emitted_pat),
                Some(_) => shadowing::bound_before_state(&emitted_pat),
            };
            match (&by_parts, &diverge_block) {
                (Some((arm, tuple, _)), None) => {
                    self.emit(quote_spanned!(span=> let #value = match #rewritten { #arm => #tuple };))
                }
                // The initializer's temporaries drop before the `else` block runs, as a
                // `let .. else` drops them: it is computed by a `let` of its own.
                (Some((arm, tuple, _)), Some(otherwise)) => {
                    let scrutinee = self.hidden("scrutinee");
                    self.emit(quote_spanned!(span=>
                        let #value = match { let #scrutinee = #rewritten; #scrutinee } { #arm => #tuple, _ => #otherwise };
                    ))
                }
                (None, _) => self.emit(quote_spanned!(span=> let #value = #rewritten;)),
            }
            let matched_here = by_parts.is_some();
            let init_var = self.declare(value.clone(), false, Init::Yes);
            // A value that may borrow a local (`let v = &w;`, `w.iter()`, `w` a literal or a
            // reference too) is saved by that jump as an await's operand would be: the local
            // lives in place in the next walk.
            if let Some(borrowed) = borrow_root(init).and_then(|(root, _)| self.lookup(&root.to_string())) {
                self.keep_in_place(borrowed);
            }
            let state = self.new_state();
            // The jump saves the hidden locals, which code after the `let` may read once the
            // scope that hides them ends; there the `let`'s names still mean the new bindings
            // (`v = 6;` assigns the new `v`, not the hidden one, which a reference would not
            // be saved for).
            let mark = self.initializing.len();
            self.initializing.extend(initialized);
            self.jump(state, None);
            self.initializing.truncate(mark);
            // Renamed once the jump saved them under the names this state bound them by.
            self.hide_dead(pat, &shadowed);
            for id in shadowed {
                let alias = self.hidden("shadowed");
                let name = std::mem::replace(&mut self.vars[id].name, alias);
                self.vars[id].hidden = true;
                self.scopes.last_mut().expect("a scope is open").renamed.push((id, name));
            }
            self.begin(state, TokenStream::new(), false);
            self.init[init_var] = Init::No;
            let value = as_value(&value);
            let emitted_pat = by_parts.map_or(emitted_pat, |(_, _, rebind)| rebind);
            // Otherwise (a pattern that binds by reference or has a type) the `else` block
            // runs in this state, where the hidden locals have their hidden names (a jump out
            // of it saves them by those).
            let diverge_code = match diverge {
                Some(block) if !matched_here => {
                    let expr: syn::Expr =
                        syn::Expr::Block(syn::ExprBlock { attrs: Vec::new(), label: None, block: block.clone() });
                    let rewritten = self.rewrite_expr(&expr);
                    Some(quote!(else #rewritten))
                }
                _ => None,
            };
            self.emit(quote_spanned!(span=> #(#attrs)* let #emitted_pat = #value #diverge_code;));
        }
        self.drop_replaced(replaced);
        let borrows = self.borrowed_local(init);
        let borrow_root = borrow_root(init).and_then(|(root, _)| {
            let root = root.to_string();
            self.lookup(if root == "self" { mentions::SELF_LOCAL } else { &root })
        });
        let ids = self.declare_pattern(pat, Init::Yes, borrows);
        for &id in &ids {
            self.vars[id].borrow_root = borrow_root;
        }
        self.bind_places(&ids, &temps);
        // A borrow of a local (`v.iter()`, `s.as_str()`) holds nothing to drop either.
        if is_no_drop(init) || borrows.is_some() {
            for &id in &ids {
                self.vars[id].no_drop = true;
            }
        }
        let mut closure = init;
        while let syn::Expr::Paren(syn::ExprParen { expr, .. }) = closure {
            closure = expr;
        }
        if let syn::Expr::Closure(closure) = closure
            && !mentions::closure_moves_captures(closure)
        {
            for id in ids {
                self.vars[id].called_in_place = true;
            }
        }
    }

    fn declare_pattern(&mut self, pat: &syn::Pat, init: Init, borrows: Option<(VarId, Span)>) -> Vec<VarId> {
        let mut bindings = Vec::new();
        pattern_bindings(pat, &mut bindings);
        bindings
            .into_iter()
            .map(|binding| {
                let id = self.declare(binding.ident, binding.mutable, init);
                self.vars[id].borrows = borrows;
                if binding.by_ref {
                    self.vars[id].no_drop = true;
                }
                id
            })
            .collect()
    }

    /// The owned local that `init` borrows directly (`&v`, `&mut v.field`, `v.iter()`), if any.
    fn borrowed_local(&self, init: &syn::Expr) -> Option<(VarId, Span)> {
        let (root, span) = borrow_root(init)?;
        let id = self.lookup(&root.to_string())?;
        let var = &self.vars[id];
        if var.no_drop || var.exclusive_ref {
            // Borrowing through a reference does not borrow the state machine.
            return None;
        }
        Some((id, span))
    }

    /// Does this construct move a variable declared outside it on some of its paths only, or
    /// assign one that is not surely initialized on some of them, so that each path must
    /// save its own set of locals?
    fn must_split(&self, expr: &Expr) -> bool {
        let Some(source) = expr.source() else {
            return true;
        };
        if matches!(expr, Expr::Plain(_)) {
            return false;
        }
        // A jump out of it saves the locals by name: not where a binding of its own hides one.
        let breaks_out = jumps::jumps_out_of(source);
        if breaks_out && names_bound_in(source).iter().any(|name| self.lookup(name).is_some()) {
            return true;
        }
        let found = mentions::of_expr(source);
        let assigned = |name: &str| found.iter().any(|other| other.kind == Kind::Assign && other.name == name);
        // A path that moves a local and then jumps out (`consume(p); break;`) reads nothing
        // after the move, whatever the code after the construct does: only a walk sees that.
        let jumps_out = breaks_out || has_return(source);
        found.iter().enumerate().any(|(index, mention)| {
            let Some(id) = self.lookup(&mention.name) else {
                return false;
            };
            // Moved before, in the construct's own evaluation (`if { consume(p); c } { .. }
            // else { p = .. }`): the local may hold nothing where a path assigns it.
            let moved_before =
                || found[..index].iter().any(|earlier| earlier.name == mention.name && earlier.kind == Kind::Move);
            match mention.kind {
                // A move before a jump out (`if (p? == 1) { break }`) too: the jump saves what
                // is alive when it runs, which only a walk knows.
                Kind::Move => {
                    (mention.conditional || jumps_out)
                        && self.init[id].holds_value()
                        && !self.vars[id].no_drop
                        && (jumps_out || !self.mentioned_later(&mention.name))
                }
                Kind::Assign => mention.conditional && (!self.init[id].holds_value() || moved_before()),
                // A field used on a path that then assigns the whole local: only that path's
                // walk sees the local whole again.
                Kind::MoveField => mention.conditional && assigned(&mention.name),
                Kind::Read => false,
            }
        })
    }

    fn expr(&mut self, expr: &'a Expr, sink: Sink) {
        if let Some(source) = expr.source()
            && !self.must_split(expr)
        {
            return self.plain(source, sink);
        }
        match expr {
            Expr::Plain(source) => self.plain(source, sink),
            Expr::Await(node) => {
                self.await_expr(node);
                if self.reachable {
                    self.deliver(awaited().into_token_stream(), &sink, node.span);
                }
            }
            Expr::Block(block) => self.block(block, sink),
            Expr::If(node) => self.if_expr(node, sink),
            Expr::Match(node) => self.match_expr(node, sink),
            Expr::Loop(node) => self.loop_expr(node, sink),
        }
    }

    fn plain(&mut self, source: &syn::Expr, sink: Sink) {
        self.plain_value(source, sink, None);
    }

    /// Code without an await, its value handed to `sink`. With `block_tail` (the span of the
    /// user's block whose tail it is, straight in that block's level), it stays the block's
    /// tail, the level handing the block's value to the sink (`close_level`), unless code must
    /// follow the value (a drop of what it replaced).
    fn plain_value(&mut self, source: &syn::Expr, sink: Sink, block_tail: Option<Span>) {
        let mut rewritten = self.rewrite_expr(source);
        let mut replaced = self.apply(&mentions::of_expr(source));
        self.drop_on_assignment(&mut rewritten, &mut replaced);
        let diverges = matches!(source, syn::Expr::Return(_) | syn::Expr::Break(_) | syn::Expr::Continue(_));
        match block_tail {
            _ if diverges => {
                self.emit(quote!(#rewritten;));
                self.reachable = false;
            }
            Some(span) if replaced.is_empty() => {
                // Nothing more goes into this level: the block ends here (`stmts`, `block`).
                self.emit(rewritten.into_token_stream());
                self.reachable = !matches!(sink, Sink::Return);
                self.segment.levels.last_mut().expect("a level is open").tail = Some((sink, span));
            }
            _ => self.deliver(rewritten.into_token_stream(), &sink, source.span()),
        }
        self.drop_replaced(replaced);
    }

    /// `operand.await`: make the awaiter, save, and continue in the await's own state, which
    /// polls it. Leaves the result in `__awaited`.
    fn await_expr(&mut self, node: &'a ir::Await) {
        // `Box::pin(f(..)).await` (which the plain `async fn` needs to recurse) awaits the task
        // directly: each classic call is its own heap task already.
        let operand = recursive_call(&node.operand, self.config.function, self.config.bare_name_recursion)
            .unwrap_or(&node.operand);
        let mut operand = {
            let operand = &self.places_awaited(operand);
            let jumps = self.rewriter().scan_expr(operand);
            let jumps = self.jumps_for(jumps);
            let mut rewriter = self.rewriter();
            rewriter.jumps = jumps;
            rewriter.expr(operand)
        };
        let mut replaced = self.apply(&mentions::of_awaited(&node.operand));
        self.drop_on_assignment(&mut operand, &mut replaced);
        self.drop_replaced(replaced);
        let state = self.new_state();
        let field = self.field_name(&format!("awaiter_{state}"));
        self.awaiters.push(Awaiter { field: field.clone(), seq: self.next_seq });
        self.next_seq += 1;
        let sm = sm();
        let krate = self.config.krate;
        let span = node.span;
        self.emit(quote_spanned! {span=>
            #krate::__private::fill_awaiter(&mut #sm.#field, {
                #[allow(unused_imports)]
                use #krate::__private::AwaitAnyFuture as _;
                (#operand).__lowering_awaiter()
            });
        });
        self.jump(state, Some(span));
        let cx = cx();
        let awaited = awaited();
        let prologue = quote_spanned! {span=>
            let #awaited = match #krate::__private::poll_awaiter(&mut #sm.#field, #cx) {
                ::core::task::Poll::Ready(value) => value,
                ::core::task::Poll::Pending => return ::core::task::Poll::Pending,
            };
        };
        self.begin(state, prologue, false);
    }

    fn block(&mut self, block: &'a Block, sink: Sink) {
        if block.label.is_some() || self.hides_outer_local(block) {
            return self.block_with_exit(block, sink);
        }
        let head = if block.unsafety.is_some() { quote!(unsafe) } else { quote!() };
        self.push_scope(head, block.unsafety.is_some());
        self.block_tail = block.span;
        self.stmts(&block.stmts, sink);
        self.pop_scope();
    }

    /// Does a `let` of this block bind the name of a local declared outside it? `bind_let`
    /// may then move that local to a hidden name inside the block: the code after the block
    /// gets it back under its own name in a state of its own (as after a labelled block).
    fn hides_outer_local(&self, block: &Block) -> bool {
        block.stmts.iter().any(|stmt| {
            let Stmt::Let(node) = stmt else { return false };
            let mut bindings = Vec::new();
            pattern_bindings(&node.pat, &mut bindings);
            bindings.iter().any(|binding| self.lookup(&binding.ident.to_string()).is_some())
        })
    }

    /// A block that ends in a state of its own: a labelled one (`break 'label` jumps there),
    /// or one that hides an outer local.
    fn block_with_exit(&mut self, block: &'a Block, sink: Sink) {
        let depth = self.scopes.len();
        let exit = self.new_state();
        let label = block.label.as_ref().map(|label| label.name.ident.to_string());
        self.targets.push(JumpTarget { label, is_loop: false, sink: sink.clone() });
        let rest_len = self.rest.len();
        self.target_info.push(TargetInfo { head: None, exit, depth, rest_len });
        let origin = self.segment.state;
        let level_depth = self.segment.levels.len();
        self.pinned.push(origin);
        if let Some(label) = &block.label {
            self.push_rest(Rest::Labelled(label));
        }
        self.push_scope(quote!(), block.unsafety.is_some());
        self.stmts(&block.stmts, sink);
        let scope = self.end_scope();
        if block.label.is_some() {
            self.pop_rest();
        }
        self.jump(exit, None);
        self.unshadow(scope);
        self.back_to_after_scope(origin, level_depth);
        self.pinned.pop();
        self.targets.pop();
        self.target_info.pop();
        self.begin(exit, TokenStream::new(), false);
    }

    /// Like `back_to`, when the branch's scope was already popped from `scopes`.
    fn back_to_after_scope(&mut self, origin: StateId, level_depth: usize) {
        self.back_to(origin, level_depth);
    }

    fn if_expr(&mut self, node: &'a ir::If, sink: Sink) {
        let merge = self.new_state();
        let origin = self.segment.state;
        let level_depth = self.segment.levels.len();
        let before = self.init.clone();
        self.pinned.push(origin);

        let (cond_expr, rebound) = self.rebinding_in_condition(&node.cond);
        let cond = self.rewrite_expr(&cond_expr);
        let else_path = node.else_branch.as_ref().map_or(Path::Empty, Path::Expr);
        self.push_rest(Rest::Paths(vec![Path::Block(&node.then_branch), else_path]));
        self.apply(&mentions::of_expr(&node.cond));
        self.pop_rest();
        let after_cond = self.init.clone();
        self.push_scope(quote!(if #cond), false);
        if let syn::Expr::Let(_) | syn::Expr::Binary(_) = &cond_expr {
            for pat in let_patterns(&cond_expr) {
                let borrows = let_scrutinee(&cond_expr, pat).and_then(|scrutinee| self.borrowed_local(scrutinee));
                self.declare_pattern(pat, Init::Yes, borrows);
            }
        }
        self.bind_rebound(rebound);
        self.stmts(&node.then_branch.stmts, sink.clone());
        let scope = self.end_scope();
        self.jump(merge, None);
        self.unshadow(scope);
        self.back_to(origin, level_depth);

        self.restore_init(&after_cond);
        self.reachable = true;
        match &node.else_branch {
            Some(else_branch) => {
                self.push_scope(quote!(else), false);
                self.expr_in_branch(else_branch, sink);
                let scope = self.end_scope();
                self.jump(merge, None);
                self.unshadow(scope);
                self.back_to(origin, level_depth);
                self.reachable = false;
            }
            None => {
                // The condition was false: `()` to the sink, then the merge.
                self.deliver(quote!(()), &sink, Span::call_site());
                self.jump(merge, None);
            }
        }
        let _ = before;
        self.pinned.pop();
        self.begin(merge, TokenStream::new(), false);
    }

    /// An `else` branch: a block's statements, or an `else if`.
    fn expr_in_branch(&mut self, expr: &'a Expr, sink: Sink) {
        match expr {
            Expr::Block(block) if block.label.is_none() && block.unsafety.is_none() => self.stmts(&block.stmts, sink),
            other => self.expr(other, sink),
        }
    }

    fn match_expr(&mut self, node: &'a ir::Match, sink: Sink) {
        let merge = self.new_state();
        let origin = self.segment.state;
        let level_depth = self.segment.levels.len();
        self.pinned.push(origin);
        let patterns: Vec<&syn::Pat> = node.arms.iter().map(|arm| &arm.pat).collect();
        let scrutinee = self.rewrite_matched(&node.scrutinee, Some(&patterns));
        let borrows = self.borrowed_local(&node.scrutinee);
        self.push_rest(Rest::Paths(node.arms.iter().map(Path::Arm).collect()));
        self.apply(&mentions::of_scrutinee(&node.scrutinee, node.arms.iter().map(|arm| &arm.pat)));
        self.pop_rest();
        let after_scrutinee = self.init.clone();
        self.push_level(quote!(match #scrutinee));
        for arm in &node.arms {
            self.restore_init(&after_scrutinee);
            self.reachable = true;
            let attrs = &arm.attrs;
            let (arm_pat, rebound) = self.rebinding(&arm.pat);
            let pat = self.places_in_guard(&arm_pat);
            let pat = self.rewriter().pat(&pat);
            self.push_scope(quote!(#(#attrs)* #pat =>), false);
            self.declare_pattern(&arm_pat, Init::Yes, if rebound.is_empty() { borrows } else { None });
            self.bind_rebound(rebound);
            self.stmts(&arm.body.stmts, sink.clone());
            let scope = self.end_scope();
            self.jump(merge, None);
            self.unshadow(scope);
            self.back_to(origin, level_depth + 1);
        }
        self.back_to(origin, level_depth);
        self.reachable = false;
        self.pinned.pop();
        self.begin(merge, TokenStream::new(), false);
    }

    fn loop_expr(&mut self, node: &'a ir::Loop, sink: Sink) {
        let depth = self.scopes.len();
        let head = self.new_state();
        let exit = self.new_state();
        let label = node.label.as_ref().map(|label| label.name.ident.to_string());
        self.targets.push(JumpTarget { label, is_loop: true, sink: sink.clone() });
        let rest_len = self.rest.len();
        self.target_info.push(TargetInfo { head: Some(head), exit, depth, rest_len });
        self.push_rest(Rest::LoopBody(&node.body, node.label.as_ref()));
        self.jump(head, None);
        if self.begin(head, TokenStream::new(), true) {
            self.push_scope(quote!(), false);
            self.stmts(&node.body.stmts, Sink::Discard);
            let scope = self.end_scope();
            self.jump(head, None);
            self.unshadow(scope);
            while self.segment.levels.len() > depth {
                self.pop_level();
            }
        }
        self.pop_rest();
        self.targets.pop();
        self.target_info.pop();
        if self.begin(exit, TokenStream::new(), false) && node.unit {
            // Left by `break`s without a value (a `while` or `for` that ends, say): the loop's
            // value is `()`. (A loop with a `break value` delivers it there: a return, or the
            // sink's slot.)
            match &sink {
                Sink::Return => self.deliver(quote!(()), &sink, Span::call_site()),
                Sink::Assign(var, _) if self.init[*var] == Init::No => {
                    self.deliver(quote!(()), &sink, Span::call_site())
                }
                _ => {}
            }
        }
    }
}

/// A hidden local holding a `let`'s initializer, as a value rather than a place: what the
/// pattern leaves unbound (`_`, `(x, _)`) drops at the end of the `let`, as it would from the
/// initializer itself, not with the hidden local.
/// Does `expr` contain a `return` (outside closures and async blocks)?
fn has_return(expr: &syn::Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut finder = Finder(false);
    syn::visit::Visit::visit_expr(&mut finder, expr);
    finder.0
}

/// The name of a temporary of the lowering's that `pat` binds (`mut __t0`), if it is one.
fn lowering_temporary(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(binding) if binding.subpat.is_none() && is_operand_temporary(&binding.ident) => {
            Some(binding.ident.to_string())
        }
        _ => None,
    }
}

fn as_value(hidden: &Ident) -> syn::Expr {
    syn::parse_quote!(::core::convert::identity(#hidden))
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

/// Is a value computed by `init` one without a destructor of its own, that holds nothing
/// after its last use: a literal, a reference, a closure that borrows what it captures
/// (without `move`, and using none of it by value; rustc borrows a captured `Copy` value
/// too)? Saved only where read later.
fn is_no_drop(init: &syn::Expr) -> bool {
    match init {
        syn::Expr::Lit(_) | syn::Expr::Reference(_) => true,
        // One that uses a captured value by value takes it (since edition 2021).
        syn::Expr::Closure(node) => node.capture.is_none() && !mentions::closure_moves_captures(node),
        syn::Expr::Paren(node) => is_no_drop(&node.expr),
        syn::Expr::Unary(node) => matches!(node.op, syn::UnOp::Neg(_)) && is_no_drop(&node.expr),
        _ => false,
    }
}

fn let_scrutinee<'e>(cond: &'e syn::Expr, pat: &syn::Pat) -> Option<&'e syn::Expr> {
    match cond {
        syn::Expr::Let(node) if std::ptr::eq(&*node.pat, pat) => Some(&node.expr),
        syn::Expr::Binary(node) => let_scrutinee(&node.left, pat).or_else(|| let_scrutinee(&node.right, pat)),
        syn::Expr::Paren(node) => let_scrutinee(&node.expr, pat),
        _ => None,
    }
}
