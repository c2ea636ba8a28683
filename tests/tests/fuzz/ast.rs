//! The generated language: a small, typed subset of `async fn` bodies. Values are `u32`,
//! `bool`, `Loud` (logs its drop), `Result<u32, String>`, `Buf` (a logged buffer with an
//! async `&mut self` method), `Pair<Loud, Loud>` (whose fields move apart) and shared
//! references to `u32` and `Loud` locals; tuples appear only where a `let` destructures them.
//! References are kept across awaits (`let r = &v;`, `for x in &buf`), awaited calls borrow
//! locals (`fill(&mut buf, n).await`, `weigh_later(&v).await`), async blocks borrow what they
//! mention, and a field moved out of a pair leaves the other to drop at the end of its scope.
//! Macros of the user's (`keep!`, `deferred!`, `plain!`, `declare!`: `macro_rules!` of the
//! generated crate, which the lowering cannot see into) and closures are handed locals, and
//! what they make may be stored past the call (`out.push(..)`, `pending.push(..)`).

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    U32,
    Bool,
    Loud,
    Res,
    Unit,
    Tuple(Vec<Ty>),
    /// `Buf`: logs its drop, filled through `&mut`.
    Buf,
    /// `Pair<Loud, Loud>`: its fields move out one at a time.
    Duo,
    /// `&u32` or `&Loud`: a shared borrow of a local, `Copy`.
    Ref(Box<Ty>),
    /// The type of `return`, `break`, `panic!`: coerces to any type.
    Never,
    /// An item declared in the body (`Stmt::Item`), named by `Expr::ItemUse` only.
    Item(ItemKind),
    /// A closure bound by a `let`, called as `name()` (a `u32`).
    Closure(ClosureKind),
}

/// Items declared in a body, each used by later statements as a `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemKind {
    /// `const NAME: u32 = value;`, used as `NAME`.
    Const(u32),
    /// `fn name(x: u32) -> u32 { x % 5 + 1 }`, used as `name(e)`.
    Fn,
    /// `struct Name(u32);`, used as `Name(e).0`.
    Struct,
    /// `use std::cmp::min as name;`, used as `name(a, b)`.
    Use,
}

impl Ty {
    /// Used by value without being moved.
    pub fn is_copy(&self) -> bool {
        matches!(self, Ty::U32 | Ty::Bool | Ty::Unit | Ty::Never | Ty::Ref(_))
    }
}

#[derive(Clone, Debug)]
pub struct Program {
    /// A method on `&mut self` of a struct of its own (`RECEIVER_FIELDS`), rather than a
    /// free function: the body reaches `self.buf`, `self.label` and `self.count`.
    pub receiver: bool,
    pub params: Vec<Param>,
    /// Returns `()` (no `return` nor `?` in it; its body often ends in a loop that awaits),
    /// rather than `Result<u32, String>`.
    pub unit: bool,
    /// Of the function's result type.
    pub body: Block,
    /// How the signature around the body is written.
    pub signature: Signature,
}

/// The signature written around a program's body, which never names what it adds: the
/// shapes real crates declare their async fns in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signature {
    /// `pub async fn program(params)`.
    Plain,
    /// A lifetime and a type parameter bounded by it, and a parameter of both:
    /// `<'a, T: Debug + ?Sized + 'a>(_tag: &'a T, params)`, called with `"tag"`.
    Bounded,
    /// `(_tag: impl Display, params)`, called with `7u8`.
    ImplTraitArg,
    /// A method (only with a receiver) of a generic impl: `impl<T: Debug + ?Sized>
    /// ProgramMachine<T>`, the struct holding a `PhantomData<T>`, made with `T = str`.
    GenericImpl,
    /// A method (only with a receiver) of a trait impl under `#[async_trait(?Send)]`, the trait
    /// declared beside it; called as `ProgramTrait::program(receiver, args)`.
    AsyncTrait,
}

impl Signature {
    /// Only a method can be written so.
    pub fn needs_receiver(self) -> bool {
        matches!(self, Signature::GenericImpl | Signature::AsyncTrait)
    }
}

/// The fields of a method's `self` (a `Buf`, a `Loud`, a `u32`), as the body names them, with
/// their types and initial values: the checker sees them as `mut` locals that cannot move.
pub const RECEIVER_FIELDS: [(&str, &str, &str); 3] =
    [("buf", "Buf", "Buf::new(\"self.buf\")"), ("label", "Loud", "Loud::new(\"self.label\")"), ("count", "u32", "2")];

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Ty,
    pub mutable: bool,
    /// What each call passes (a literal, `Loud::new(..)`, `Ok(..)` or `Err(..)`).
    pub arg: Expr,
    pub shape: ParamShape,
}

/// How a parameter binds its argument. The unbound parts of a pattern drop when the future
/// completes or is dropped, as the plain `async fn` drops them, never when the body starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamShape {
    /// `name: ty`
    Plain,
    /// `_: ty` (binds nothing; `name` only labels the argument).
    Wild,
    /// `(name, _): (ty, Loud)`, passed `(arg, Loud::new("name_"))`.
    WithWild,
}

#[derive(Clone, Debug)]
pub struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Box<Expr>>,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    Let(Pat, Expr),
    /// `name op= value;` on a `mut` u32 local, or `name = value;` (`Op::Set`) on a `mut`
    /// local of any type, moved or not (the old value drops, if there is one).
    Assign(String, Op, Expr),
    /// `value;`
    Expr(Expr),
    /// An item (`const`, `fn`, `struct`, `use`) named `name`, in scope in its whole block.
    Item(String, ItemKind),
    /// `let Ok(name) = init else { .. };`: `init` a `Result` (not ending in `}`), the block
    /// ending in a jump out, `return` or `panic!`.
    LetElse(Binding, Expr, Block),
    /// `declare!(name = value);`: a macro of the user's that declares the `u32` local `name`
    /// (`let $n = $e;`), which the lowering cannot see. `value` is in the capture language
    /// ([`Closure`]), without awaits; `name` is used only before the next await.
    Declare(String, Expr),
}

/// How a `let`'s `&Loud::new("label")` is written; Rust extends the `Loud` (and what is made
/// with it) to the end of the block each way.
#[derive(Clone, Debug)]
pub enum Extension {
    /// `&Loud::new("label")`
    Whole,
    /// `&(Loud::new("label"), e).0`: a field of a temporary tuple; `e` is a `u32`.
    Field(Box<Expr>),
    /// `&*Box::new(Loud::new("label"))`
    Deref,
    /// `if c { &Loud::new("label.0") } else { &Loud::new("label.1") }`: one of two is made.
    If(Box<Expr>),
    /// `{ &Loud::new("label") }`
    Block,
}

#[derive(Clone, Debug)]
pub enum Pat {
    /// `x` or `mut x`.
    Bind(Binding),
    /// `_`: binds nothing, and moves nothing out of a place.
    Wild,
    /// `(a, _, mut b)`.
    Tuple(Vec<Option<Binding>>),
}

#[derive(Clone, Debug)]
pub struct Binding {
    pub name: String,
    pub mutable: bool,
    /// The type a `let` of one name says it binds (`let v: u32 = ..`), which the state
    /// machine's copy then gives each value it stores for it (`if`/`match` arms, `break`s).
    pub annotated: Option<Ty>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Add,
    Mul,
    Xor,
    BitOr,
    BitAnd,
    Lt,
    Eq,
    And,
    Or,
    /// `=`, in `Stmt::Assign` only.
    Set,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// `now(..)`: completes at once.
    Now,
    /// `later(..)`: suspends once.
    Later,
    /// `awaited!("label", e)`: a macro of the user's whose own body awaits `later("label", e)`,
    /// which the classic variant is told by the hint `awaits(awaited)` (only as a statement's
    /// operand, never in a `join!` nor a loop's iterable).
    Pasted,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Helper {
    /// `mix(u32, u32) -> u32`
    Mix,
    /// `add3(u32, u32, u32) -> u32`
    Add3,
    /// `consume(Loud) -> u32`
    Consume,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    WrappingAdd,
    Max,
    Min,
}

#[derive(Clone, Debug)]
pub enum Expr {
    Lit(u32),
    Bool(bool),
    /// A local or parameter, used by value (a move unless its type is `Copy`).
    Var(String),
    /// `ev("label", e)`
    Ev(String, Box<Expr>),
    /// `now("label", e).await` or `later("label", e).await`
    Await(Leaf, String, Box<Expr>),
    /// `forever::<T>("label").await`: never completes.
    Forever(String, Ty),
    Binary(Op, Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Call(Helper, Vec<Expr>),
    /// `note("label", e)`: logs a computed value.
    Note(String, Box<Expr>),
    /// `receiver.method(arg)` on u32.
    Method(Box<Expr>, Method, Box<Expr>),
    /// `weigh(&name)`: borrows a `Loud` local for the call.
    Weigh(String),
    /// `weigh(&Loud::new("label"))`: a temporary that lives to the end of the statement.
    WeighNew(String),
    /// `name.is_ok()`: borrows a `Result` local.
    IsOk(String),
    /// `Pair { a, b }.a` (`first`) or `.b`: the other field is a temporary.
    PairField(Box<Expr>, Box<Expr>, bool),
    /// `Pair { a, b: e }.a`: a struct literal whose field shorthand names the `Loud` local `a`,
    /// which moves into it (crates' `Out { entry, n }`).
    PairShorthand(Box<Expr>),
    /// `Pair { a: e, ..base }.b`: a struct update that moves `base.b` out of a `Pair` local.
    PairUpdate(Box<Expr>, String),
    /// `len_later("label", &<src>.name().to_uppercase()).await`: the owned temporary at the
    /// end of a method chain, borrowed by an awaited call; `src` is a `Loud` local (borrowed
    /// across the await) or a temporary `Loud::new("label")` (`None`).
    UpperLater(String, Option<String>),
    /// `weigh_all_later("label", &[&a, &Loud::new("label"), &1u32]).await`: an array an awaited
    /// call borrows as `&[&dyn Weighed]`, whose elements are `Loud` locals (borrowed across
    /// the await) or temporaries (`None`), and a number; the array is coerced where it is made.
    WeighAll(String, Vec<Option<String>>),
    /// `(e, ..)`: only as what a `let` destructures or binds whole (or awaits first).
    Tuple(Vec<Expr>),
    /// `name.index`: a `u32` element of a tuple local, copied (the rest of the local stays,
    /// to drop at the end of its scope).
    LocalField(String, usize),
    /// `(e, ..).index`: the other elements are temporaries, which live to the end of the
    /// statement (past the awaits after it).
    TupleField(Vec<Expr>, usize),
    /// `[a, b, c][(index % 3) as usize]`
    Index(Vec<Expr>, Box<Expr>),
    /// `check("label", e)`: a `Result` that is `Err` for one value in four.
    Check(String, Box<Expr>),
    /// `e?`
    Try(Box<Expr>),
    Ok(Box<Expr>),
    Err(String),
    NewLoud(String),
    If(Box<Expr>, Block, Option<Block>),
    Match(Box<Expr>, Vec<Arm>),
    Block(Block),
    /// `'label: { .. }`
    Labelled(String, Block),
    Loop(Loop),
    Break(Option<String>, Option<Box<Expr>>),
    Continue(Option<String>),
    /// `return e` (e is a `Result`).
    Return(Box<Expr>),
    /// `panic!("label {}", e)`, or with `true` the same message raised by
    /// `std::panic::resume_unwind(Box::new(format!("label {}", e)))`, a call of a function that
    /// returns `!` (which the classic lowering reads as leaving where its value is discarded).
    Panic(String, Box<Expr>, bool),
    /// `&name`: a shared borrow of a `u32` or `Loud` local, kept by a `let` (its referent
    /// can neither move nor be assigned while the reference is in scope).
    Borrow(String),
    /// `*name`, on a `&u32`.
    Deref(String),
    /// `weigh(name)` on a `&Loud`, or with `later`, `weigh_later(name).await`.
    WeighRef(String, bool),
    /// `weigh_later(&name).await`: an awaited call that borrows a `Loud` local.
    WeighLater(String),
    /// `Buf::new("label")`
    NewBuf(String),
    /// `fill(&mut name, e).await`: an awaited call that borrows a `Buf` local mutably.
    Fill(String, Box<Expr>),
    /// `fill(&mut Buf::new("label"), e).await`: a temporary borrowed by an awaited call.
    FillNew(String, Box<Expr>),
    /// `name.push_later(e).await`: an async `&mut self` method.
    PushLater(String, Box<Expr>),
    /// `name.total()`: a shared borrow of a `Buf` for the call.
    Total(String),
    /// `Pair { a: Loud::new("x"), b: Loud::new("y") }`
    NewDuo(String, String),
    /// `name.a` (`first`) or `name.b` moved out of a `Pair<Loud, Loud>` local.
    MoveField(String, bool),
    /// `weigh(&name.a)` or `weigh(&name.b)`.
    WeighField(String, bool),
    /// `futures::join!(a, b, ..).index`: each item an `Expr::Await` of a literal or a `u32`
    /// variable, printed without its `.await` (the macro awaits them together).
    Join(Vec<Expr>, usize),
    /// An item of the body used: `NAME`, `name(e)`, `Name(e).0` or `name(a, b)`.
    ItemUse(String, ItemKind, Vec<Expr>),
    /// `async { .. }.await`: a `u32` block that borrows (or moves) what it mentions; no
    /// `return`, `?`, nor a jump out of it.
    AsyncBlock(Block),
    /// `info!(..)` or `event!(..)`: a macro with tracing's grammar, whose arguments are not
    /// all expressions (`?x`, `%x`, `key = value`); a statement of type `()`.
    Event(Box<Event>),
    /// `name.into_len()` (or `Loud::into_len(name)`): a method that takes a `Loud` local or
    /// parameter by value.
    IntoLen(String, CallForm),
    /// `name.spend_later(e).await` (or `Loud::spend_later(name, e).await`): an async method
    /// that takes it by value.
    SpendLater(String, CallForm, Box<Expr>),
    /// `&Loud::new("label")`, only as a `let`'s initializer, written one of the ways Rust
    /// extends the temporary ([`Extension`]): it lives as long as the reference (past the
    /// awaits after it).
    BorrowNew(String, Extension),
    /// `self.bump(e).await`: another async method of the same impl (or trait), on `&mut self`.
    SelfBump(Box<Expr>),
    /// `plain!(e)`: a macro of the user's that expands to its tokens, a `u32` in the capture
    /// language (no await, no jump), which may also move a `Loud` (`consume(v)`).
    Plain(Box<Expr>),
    /// A closure, only as a `let`'s initializer (the local is then called, `name()`).
    Closure(Box<Closure>),
    /// `apply(|| ..)`, `apply(move || ..)` or `apply_mut(|| ..)`: a closure made and called
    /// (twice) where it is written; a `u32`.
    Apply(Box<Closure>),
    /// `name()`: a call of a closure a `let` bound.
    CallClosure(String),
    /// `name.put(e)`: a `Buf`'s `&mut self` method that does not await, in a closure's body.
    Put(String, Box<Expr>),
    /// What outlives the call, pushed to a vector the caller holds (a statement of type `()`).
    Store(Store, Block),
}

/// Where a closure or a macro's value goes when it is stored past the call, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Store {
    /// `out.push(keep! { body })`: the user's macro `keep!` makes a `move` closure
    /// (`Box::new(move || { $($t)* })`), a `Box<dyn Fn() -> u32>`.
    Keep,
    /// `pending.push(Box::pin(deferred! { body }))`: the user's macro `deferred!` makes an
    /// `async move` block (`async move { $($t)* }`) that awaits.
    Deferred,
    /// `out.push(Box::new(move || { body }))`: a visible `move` closure.
    MoveClosure,
    /// `pending.push(Box::pin(async move { body }))`: a visible `async move` block.
    AsyncMove,
}

impl Store {
    /// Made by a macro of the user's (the lowering sees only its tokens).
    pub fn is_macro(self) -> bool {
        matches!(self, Store::Keep | Store::Deferred)
    }

    /// A future (awaited by the caller after the call), rather than a closure.
    pub fn is_future(self) -> bool {
        matches!(self, Store::Deferred | Store::AsyncMove)
    }
}

/// `|| body`, `move || body` (a `Fn`), or `|| { x += 1; .. }` (a `FnMut`, bound `let mut`).
///
/// Its body, like a macro's tokens here, is in the *capture language*: `u32` expressions of
/// literals, `ev(..)`, `mix`/`add3`, arithmetic, and names of what is in scope (`x` a `u32`,
/// `weigh(&v)` a `Loud`, `b.total()` a `Buf`, `*r`, `weigh(r)` a reference, `v.0` a tuple's
/// `u32`, `weigh(&v.a)` a pair's field); a `FnMut` also assigns `u32` locals and calls
/// `b.put(e)`; an async body (`deferred!`, `async move`) also has `let`s, `note(..)`s and
/// awaits of its own.
#[derive(Clone, Debug)]
pub struct Closure {
    pub kind: ClosureKind,
    pub body: Block,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClosureKind {
    /// `|| ..`: borrows what it names (a `Fn`).
    Shared,
    /// `|| { x += 1; .. }`: borrows mutably what it assigns or `put`s into (a `FnMut`).
    Mutable,
    /// `move || ..`: takes what it names (a `Fn` that owns them).
    Move,
}

/// How a consuming method is called: as a method, which the macro cannot tell from a
/// borrowing one, or as the function of the value that the README says to write instead
/// where the local lives in place for a borrow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallForm {
    Method,
    Function,
}

/// A call of the tracing stand-ins (`lowering_tests::info!`, `event!`).
#[derive(Clone, Debug)]
pub struct Event {
    /// `target: "label",` first.
    pub target: Option<String>,
    /// `event!(Level::INFO, ..)` (`true`) or `event!(Level::DEBUG, ..)`; `None`: `info!(..)`.
    pub level: Option<bool>,
    pub fields: Vec<Field>,
    pub message: Option<Message>,
}

/// A field of an event: each borrows what it names.
#[derive(Clone, Debug)]
pub enum Field {
    /// `?name` (a `u32`, `Loud` or `Result` local).
    Debug(String),
    /// `%name` (a `u32` local).
    Display(String),
    /// `name`, formatted with `Debug`.
    Bare(String),
    /// `?name.a` or `?name.b` of a pair local.
    Part(String, bool),
    /// `key = value`, `key = ?value` or `key = %value`: the value a `u32` without an await;
    /// the key may be a local's name (it names no local there).
    Named(String, Sigil, Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sigil {
    None,
    Debug,
    Display,
}

/// An event's message: `"label {a} {b:?} {}", value`.
#[derive(Clone, Debug)]
pub struct Message {
    pub label: String,
    /// Locals captured inline: a `u32` (`{a}`) or a `Loud` (`{b:?}`, `true`).
    pub captures: Vec<(String, bool)>,
    /// A positional argument (a `u32` without an await).
    pub arg: Option<Expr>,
}

/// A loop that terminates: a counter (or the iterable) bounds it.
#[derive(Clone, Debug)]
pub struct Loop {
    pub label: String,
    pub kind: LoopKind,
    pub body: Block,
}

#[derive(Clone, Debug)]
pub enum LoopKind {
    /// `{ let mut c = 0; 'l: loop { if c == bound { break 'l default; } c += 1; body } }`;
    /// with `default`, the loop has a value (`break 'l value` inside).
    Loop { counter: String, bound: u32, default: Option<Box<Expr>> },
    /// `{ let mut c = 0; 'l: while c < bound && cond { c += 1; body } }`
    While { counter: String, bound: u32, cond: Box<Expr> },
    /// `'l: for name in 0..(end % 4) { body }`
    Range { name: String, end: Box<Expr> },
    /// `'l: for name in [Loud::new(..), ..] { body }`, the array awaited first if `leaf`.
    Louds { name: String, labels: Vec<String>, leaf: Option<(Leaf, String)> },
    /// `'l: for name in &buf { body }`: `name` is a `&u32`; `buf` is borrowed for the loop.
    OverBuf { name: String, buf: String },
}

#[derive(Clone, Debug)]
pub struct Arm {
    pub pat: ArmPat,
    /// `pat if guard =>`: a `bool` that awaits (`later("a", v < 4).await`), which moves
    /// nothing.
    pub guard: Option<Expr>,
    pub body: Expr,
}

#[derive(Clone, Debug)]
pub enum ArmPat {
    Lit(u32),
    /// `a | b`
    Either(u32, u32),
    /// A binding of the (u32) scrutinee.
    Bind(String),
    Wild,
    /// `Ok(name)` on a `Result` scrutinee.
    Ok(String),
    /// `Err(_)`
    Err,
}

impl Event {
    /// The values its fields and message evaluate, in order.
    pub fn values(&self) -> impl Iterator<Item = &Expr> {
        let fields = self.fields.iter().filter_map(|field| match field {
            Field::Named(_, _, value) => Some(value),
            _ => None,
        });
        fields.chain(self.message.iter().filter_map(|message| message.arg.as_ref()))
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Expr> {
        let fields = self.fields.iter_mut().filter_map(|field| match field {
            Field::Named(_, _, value) => Some(value),
            _ => None,
        });
        fields.chain(self.message.iter_mut().filter_map(|message| message.arg.as_mut()))
    }
}

/// A statement, or an expression anywhere in one, as [`visit_block`] meets them.
#[derive(Clone, Copy)]
pub enum Node<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
}

/// Calls `f` on every statement and every expression of `block`, nested ones included (match
/// guards too), each before its parts.
pub fn visit_block<'a>(block: &'a Block, f: &mut impl FnMut(Node<'a>)) {
    for stmt in &block.stmts {
        f(Node::Stmt(stmt));
        match stmt {
            Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => {
                visit_expr(expr, f)
            }
            Stmt::LetElse(_, init, otherwise) => {
                visit_expr(init, f);
                visit_block(otherwise, f);
            }
            Stmt::Item(..) => {}
        }
    }
    if let Some(tail) = &block.tail {
        visit_expr(tail, f);
    }
}

pub fn visit_expr<'a>(expr: &'a Expr, f: &mut impl FnMut(Node<'a>)) {
    f(Node::Expr(expr));
    for child in children(expr) {
        visit_expr(child, f);
    }
    if let Expr::Match(_, arms) = expr {
        for guard in arms.iter().filter_map(|arm| arm.guard.as_ref()) {
            visit_expr(guard, f);
        }
    }
    for block in blocks(expr) {
        visit_block(block, f);
    }
}

/// Calls `f` on every expression of `block`, nested ones included, each before its parts.
pub fn visit_block_mut(block: &mut Block, f: &mut impl FnMut(&mut Expr)) {
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => {
                visit_expr_mut(expr, f)
            }
            Stmt::LetElse(_, init, otherwise) => {
                visit_expr_mut(init, f);
                visit_block_mut(otherwise, f);
            }
            Stmt::Item(..) => {}
        }
    }
    if let Some(tail) = &mut block.tail {
        visit_expr_mut(tail, f);
    }
}

fn visit_expr_mut(expr: &mut Expr, f: &mut impl FnMut(&mut Expr)) {
    f(expr);
    for child in children_mut(expr) {
        visit_expr_mut(child, f);
    }
    if let Expr::Match(_, arms) = expr {
        for guard in arms.iter_mut().filter_map(|arm| arm.guard.as_mut()) {
            visit_expr_mut(guard, f);
        }
    }
    for block in blocks_mut(expr) {
        visit_block_mut(block, f);
    }
}

/// The expressions directly inside `expr` (not inside its blocks), in order.
pub fn children(expr: &Expr) -> Vec<&Expr> {
    match expr {
        Expr::Ev(_, value)
        | Expr::Await(_, _, value)
        | Expr::Not(value)
        | Expr::Note(_, value)
        | Expr::Check(_, value)
        | Expr::Try(value)
        | Expr::Ok(value)
        | Expr::Return(value)
        | Expr::Fill(_, value)
        | Expr::FillNew(_, value)
        | Expr::PushLater(_, value)
        | Expr::SpendLater(_, _, value)
        | Expr::SelfBump(value)
        | Expr::Plain(value)
        | Expr::Put(_, value)
        | Expr::Panic(_, value, _)
        | Expr::PairShorthand(value)
        | Expr::PairUpdate(value, _)
        | Expr::BorrowNew(_, Extension::Field(value) | Extension::If(value)) => vec![&**value],
        Expr::Event(event) => event.values().collect(),
        Expr::Binary(_, left, right) | Expr::Method(left, _, right) | Expr::PairField(left, right, _) => {
            vec![&**left, &**right]
        }
        Expr::Call(_, items)
        | Expr::Tuple(items)
        | Expr::TupleField(items, _)
        | Expr::Join(items, _)
        | Expr::ItemUse(_, _, items) => items.iter().collect(),
        Expr::Index(items, index) => items.iter().chain(std::iter::once(&**index)).collect(),
        Expr::If(cond, ..) => vec![&**cond],
        Expr::Match(scrutinee, arms) => std::iter::once(&**scrutinee).chain(arms.iter().map(|arm| &arm.body)).collect(),
        Expr::Break(_, Some(value)) => vec![&**value],
        Expr::Loop(node) => match &node.kind {
            LoopKind::Loop { default: Some(value), .. } => vec![&**value],
            LoopKind::While { cond, .. } => vec![&**cond],
            LoopKind::Range { end, .. } => vec![&**end],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

pub fn children_mut(expr: &mut Expr) -> Vec<&mut Expr> {
    match expr {
        Expr::Ev(_, value)
        | Expr::Await(_, _, value)
        | Expr::Not(value)
        | Expr::Note(_, value)
        | Expr::Check(_, value)
        | Expr::Try(value)
        | Expr::Ok(value)
        | Expr::Return(value)
        | Expr::Fill(_, value)
        | Expr::FillNew(_, value)
        | Expr::PushLater(_, value)
        | Expr::SpendLater(_, _, value)
        | Expr::SelfBump(value)
        | Expr::Plain(value)
        | Expr::Put(_, value)
        | Expr::Panic(_, value, _)
        | Expr::PairShorthand(value)
        | Expr::PairUpdate(value, _)
        | Expr::BorrowNew(_, Extension::Field(value) | Extension::If(value)) => vec![&mut **value],
        Expr::Event(event) => event.values_mut().collect(),
        Expr::Binary(_, left, right) | Expr::Method(left, _, right) | Expr::PairField(left, right, _) => {
            vec![&mut **left, &mut **right]
        }
        Expr::Call(_, items)
        | Expr::Tuple(items)
        | Expr::TupleField(items, _)
        | Expr::Join(items, _)
        | Expr::ItemUse(_, _, items) => items.iter_mut().collect(),
        Expr::Index(items, index) => items.iter_mut().chain(std::iter::once(&mut **index)).collect(),
        Expr::If(cond, ..) => vec![&mut **cond],
        Expr::Match(scrutinee, arms) => {
            std::iter::once(&mut **scrutinee).chain(arms.iter_mut().map(|arm| &mut arm.body)).collect()
        }
        Expr::Break(_, Some(value)) => vec![&mut **value],
        Expr::Loop(node) => match &mut node.kind {
            LoopKind::Loop { default: Some(value), .. } => vec![&mut **value],
            LoopKind::While { cond, .. } => vec![&mut **cond],
            LoopKind::Range { end, .. } => vec![&mut **end],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The blocks directly inside `expr`, in order.
pub fn blocks(expr: &Expr) -> Vec<&Block> {
    match expr {
        Expr::If(_, then_branch, else_branch) => std::iter::once(then_branch).chain(else_branch).collect(),
        Expr::Block(body) | Expr::Labelled(_, body) | Expr::AsyncBlock(body) | Expr::Store(_, body) => vec![body],
        Expr::Closure(closure) | Expr::Apply(closure) => vec![&closure.body],
        Expr::Loop(node) => vec![&node.body],
        _ => Vec::new(),
    }
}

pub fn blocks_mut(expr: &mut Expr) -> Vec<&mut Block> {
    match expr {
        Expr::If(_, then_branch, else_branch) => std::iter::once(then_branch).chain(else_branch.as_mut()).collect(),
        Expr::Block(body) | Expr::Labelled(_, body) | Expr::AsyncBlock(body) | Expr::Store(_, body) => vec![body],
        Expr::Closure(closure) | Expr::Apply(closure) => vec![&mut closure.body],
        Expr::Loop(node) => vec![&mut node.body],
        _ => Vec::new(),
    }
}

/// Does `expr` await, as the function's own suspension? The awaits of a stored `async move`
/// block or of `deferred!`'s tokens are theirs, not the function's; closures do not await.
pub fn awaits(expr: &Expr) -> bool {
    let own = match expr {
        Expr::Await(..)
        | Expr::Forever(..)
        | Expr::Join(..)
        | Expr::AsyncBlock(_)
        | Expr::WeighLater(_)
        | Expr::UpperLater(..)
        | Expr::WeighAll(..)
        | Expr::WeighRef(_, true)
        | Expr::Fill(..)
        | Expr::FillNew(..)
        | Expr::PushLater(..)
        | Expr::SpendLater(..)
        | Expr::SelfBump(_) => true,
        Expr::Loop(Loop { kind: LoopKind::Louds { leaf: Some(_), .. }, .. }) => true,
        Expr::Store(..) | Expr::Closure(_) | Expr::Apply(_) => return false,
        Expr::Match(_, arms) => arms.iter().filter_map(|arm| arm.guard.as_ref()).any(awaits),
        _ => false,
    };
    own || children(expr).into_iter().any(awaits) || blocks(expr).into_iter().any(block_awaits)
}

pub fn block_awaits(block: &Block) -> bool {
    block.stmts.iter().any(stmt_awaits) || block.tail.as_deref().is_some_and(awaits)
}

pub fn stmt_awaits(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => awaits(expr),
        Stmt::LetElse(_, init, otherwise) => awaits(init) || block_awaits(otherwise),
        Stmt::Item(..) => false,
    }
}

/// The local a struct literal's field shorthand names (`Expr::PairShorthand`): the field's.
pub const SHORTHAND_LOCAL: &str = "a";

/// The names of locals and parameters `expr` itself names (not counting its parts).
pub fn own_names(expr: &Expr) -> Vec<String> {
    match expr {
        Expr::Var(name)
        | Expr::Weigh(name)
        | Expr::IsOk(name)
        | Expr::LocalField(name, _)
        | Expr::Borrow(name)
        | Expr::Deref(name)
        | Expr::WeighRef(name, _)
        | Expr::WeighLater(name)
        | Expr::Fill(name, _)
        | Expr::PushLater(name, _)
        | Expr::Total(name)
        | Expr::MoveField(name, _)
        | Expr::WeighField(name, _)
        | Expr::IntoLen(name, _)
        | Expr::SpendLater(name, ..)
        | Expr::CallClosure(name)
        | Expr::Put(name, _)
        | Expr::PairUpdate(_, name)
        | Expr::UpperLater(_, Some(name)) => vec![name.clone()],
        Expr::WeighAll(_, sources) => sources.iter().flatten().cloned().collect(),
        Expr::PairShorthand(_) => vec![SHORTHAND_LOCAL.to_owned()],
        Expr::Loop(Loop { kind: LoopKind::OverBuf { buf, .. }, .. }) => vec![buf.clone()],
        Expr::Event(event) => {
            let mut names: Vec<String> = event
                .fields
                .iter()
                .filter_map(|field| match field {
                    Field::Debug(name) | Field::Display(name) | Field::Bare(name) | Field::Part(name, _) => {
                        Some(name.clone())
                    }
                    Field::Named(..) => None,
                })
                .collect();
            if let Some(message) = &event.message {
                names.extend(message.captures.iter().map(|(name, _)| name.clone()));
            }
            names
        }
        _ => Vec::new(),
    }
}

/// Every name `stmt` mentions, in its parts and blocks too (closures' and macros' included).
pub fn names_in_stmt(stmt: &Stmt) -> Vec<String> {
    let mut names = Vec::new();
    if let Stmt::Assign(name, ..) = stmt {
        names.push(name.clone());
    }
    let block = Block { stmts: vec![stmt.clone()], tail: None };
    visit_block(&block, &mut |node| {
        if let Node::Expr(expr) = node {
            names.extend(own_names(expr));
        }
        if let Node::Stmt(Stmt::Assign(name, ..)) = node {
            names.push(name.clone());
        }
    });
    names
}

/// Does the program store anything past the call (so that it takes `out` and `pending`)?
pub fn stores(program: &Program) -> bool {
    let mut found = false;
    visit_block(&program.body, &mut |node| found |= matches!(node, Node::Expr(Expr::Store(..))));
    found
}

/// The locals and parameters the classic lowering keeps in place, as far as the program's
/// syntax tells (the lowering's own rule, `macros/src/classic/analyse/loans.rs`, errs towards
/// in place more): a name borrowed where the borrow is held across one of the function's
/// awaits. That is an awaited call or method that borrows it (`weigh_later(&v).await`,
/// `fill(&mut b, ..).await`, `b.push_later(..).await`), a borrow inside an awaited operand
/// (`later("a", weigh(&v)).await`), `for x in &b` whose body awaits, an `async { .. }.await`
/// that names it and awaits, and a reference or closure a `let` binds with an await after it
/// in its block.
pub fn in_place(program: &Program) -> std::collections::BTreeSet<String> {
    let mut found = std::collections::BTreeSet::new();
    in_place_block(&program.body, &mut found);
    found
}

pub fn in_place_block(block: &Block, found: &mut std::collections::BTreeSet<String>) {
    for (index, stmt) in block.stmts.iter().enumerate() {
        let awaits_after =
            block.stmts[index + 1..].iter().any(stmt_awaits) || block.tail.as_deref().is_some_and(awaits);
        match stmt {
            Stmt::Let(_, Expr::Borrow(name)) if awaits_after => {
                found.insert(name.clone());
            }
            Stmt::Let(_, Expr::Closure(closure)) if awaits_after => {
                found.extend(names_in_stmt(&Stmt::Expr(Expr::Block(closure.body.clone()))));
            }
            _ => {}
        }
        match stmt {
            Stmt::Let(_, expr) | Stmt::Assign(_, _, expr) | Stmt::Expr(expr) | Stmt::Declare(_, expr) => {
                in_place_expr(expr, found)
            }
            Stmt::LetElse(_, init, otherwise) => {
                in_place_expr(init, found);
                in_place_block(otherwise, found);
            }
            Stmt::Item(..) => {}
        }
    }
    if let Some(tail) = &block.tail {
        in_place_expr(tail, found);
    }
}

fn in_place_expr(expr: &Expr, found: &mut std::collections::BTreeSet<String>) {
    match expr {
        // Their code runs in place, or after the call: none of the function's awaits.
        Expr::Store(..) | Expr::Closure(_) | Expr::Apply(_) => return,
        Expr::WeighLater(name) | Expr::Fill(name, _) | Expr::PushLater(name, _) | Expr::UpperLater(_, Some(name)) => {
            found.insert(name.clone());
        }
        Expr::WeighAll(_, sources) => found.extend(sources.iter().flatten().cloned()),
        Expr::Loop(Loop { kind: LoopKind::OverBuf { buf, .. }, body, .. }) if block_awaits(body) => {
            found.insert(buf.clone());
        }
        Expr::AsyncBlock(body) if block_awaits(body) => {
            found.extend(names_in_stmt(&Stmt::Expr(Expr::Block(body.clone()))));
        }
        Expr::Await(_, _, value) => {
            let mut borrowed = Vec::new();
            visit_expr(value, &mut |node| {
                if let Node::Expr(
                    Expr::Weigh(name)
                    | Expr::IsOk(name)
                    | Expr::Total(name)
                    | Expr::WeighField(name, _)
                    | Expr::Borrow(name),
                ) = node
                {
                    borrowed.push(name.clone());
                }
            });
            found.extend(borrowed);
        }
        _ => {}
    }
    for child in children(expr) {
        in_place_expr(child, found);
    }
    if let Expr::Match(_, arms) = expr {
        for guard in arms.iter().filter_map(|arm| arm.guard.as_ref()) {
            in_place_expr(guard, found);
        }
    }
    for block in blocks(expr) {
        in_place_block(block, found);
    }
}
